import Foundation

/// A value in a document: its token, or nil when the key was missing.
struct ValueRef {
  let document: JSONDocument
  let index: Int?
}

/// Per-call state of one decode: options, the report being built, and error helpers.
///
/// Lives for one `decode` call on one thread; never shared.
final class DecodingState {
  let options: LenientDecoder
  let isLenient: Bool
  let userInfo: [CodingUserInfoKey: Any]
  private(set) var entries: [DecodingReport.Entry] = []
  var traitCache: [ObjectIdentifier: TypeTraits] = [:]

  init(decoder: LenientDecoder) {
    options = decoder
    isLenient = decoder.policy == .lenient
    var info: [CodingUserInfoKey: Any] = [:]
    for (key, value) in decoder.userInfo { info[key] = value }
    if info[.envelopeFormat] == nil { info[.envelopeFormat] = decoder.envelope }
    userInfo = info
  }

  /// Decodes `T` at `path` in `document`.
  func decode<T: Decodable>(_ type: T.Type, document: JSONDocument, at path: JSONPath) throws -> T {
    var index = 0
    var node = CodingPathNode.root
    for component in path.components {
      let key = AnyCodingKey(component)
      let found: Int?
      switch (component, document.kind(index)) {
      case (.key(let name), .object): found = document.valueIndex(forKey: name, inObject: index)
      case (.index(let position), .array): found = document.elementIndex(position, inArray: index)
      default: found = nil
      }
      guard let found else {
        if let optional = T.self as? any OptionalDecodable.Type, let none = optional.nilValue as? T
        {
          return none
        }
        throw DecodingError.keyNotFound(
          key,
          DecodingError.Context(
            codingPath: node.path,
            debugDescription:
              "No value at path \(path): \(describeMissingStep(key, in: document, at: index))"))
      }
      index = found
      node = node.appending(key)
    }
    let decoder = DecoderImpl(
      state: self, value: ValueRef(document: document, index: index), path: node)
    return try decoder.unbox(
      T.self, ValueRef(document: document, index: index), parent: node, key: nil)
  }

  private func describeMissingStep(_ key: AnyCodingKey, in document: JSONDocument, at index: Int)
    -> String
  {
    let step = key.intValue.map { "index \($0)" } ?? "key \"\(key.stringValue)\""
    return "\(step) not found in \(describe(ValueRef(document: document, index: index)))."
  }

  // MARK: - Reporting

  /// Forgets entries made while decoding a value that was then dropped as a whole.
  func truncateEntries(to count: Int) {
    if entries.count > count { entries.removeSubrange(count...) }
  }

  func report(
    _ kind: DecodingReport.Entry.Kind, _ expected: Any.Type, _ value: ValueRef,
    _ parent: CodingPathNode, _ key: (any CodingKey)?
  ) {
    entries.append(
      DecodingReport.Entry(
        path: formatCodingPath(parent.path(with: key)), kind: kind,
        expected: String(describing: expected), found: describe(value)))
  }

  /// The JSON kind and a short snippet: `string "18"`, `number 3.5`, `missing`.
  func describe(_ value: ValueRef) -> String {
    guard let index = value.index else { return "missing" }
    let document = value.document
    switch document.kind(index) {
    case .null: return "null"
    case .true: return "bool true"
    case .false: return "bool false"
    case .number: return "number \(snippet(document.rawText(index)))"
    case .string:
      var escaped = ""
      writeEscaped(snippet(document.string(index)), to: &escaped)
      return "string \(escaped)"
    case .array: return "array of \(document.tokens[index].count)"
    case .object: return "object of \(document.tokens[index].count) keys"
    }
  }

  private func snippet(_ text: String) -> String {
    text.count <= 40 ? text : String(text.prefix(37)) + "..."
  }

  // MARK: - Errors, worded as Foundation's JSONDecoder words them

  func kindDescription(_ value: ValueRef) -> String {
    guard let index = value.index else { return "nothing" }
    switch value.document.kind(index) {
    case .null: return "null"
    case .true, .false: return "bool"
    case .number: return "number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "a dictionary"
    }
  }

  func strictError(
    _ type: Any.Type, _ value: ValueRef, _ parent: CodingPathNode, _ key: (any CodingKey)?,
    unrepresentable: Bool = false
  ) -> DecodingError {
    guard let index = value.index else {
      if let key {
        return DecodingError.keyNotFound(
          key,
          DecodingError.Context(
            codingPath: parent.path,
            debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
      }
      return DecodingError.valueNotFound(
        type,
        DecodingError.Context(codingPath: parent.path, debugDescription: "No value found."))
    }
    let path = parent.path(with: key)
    let document = value.document
    if document.kind(index) == .null {
      return DecodingError.valueNotFound(
        type,
        DecodingError.Context(
          codingPath: path,
          debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }
    if unrepresentable {
      return DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: path,
          debugDescription: "Number \(document.rawText(index)) is not representable in Swift."))
    }
    return DecodingError.typeMismatch(
      type,
      DecodingError.Context(
        codingPath: path,
        debugDescription: "Expected to decode \(type) but found \(kindDescription(value)) instead.")
    )
  }

  // MARK: - Options

  /// The non-conforming float a string stands for under the options, or nil.
  func nonConformingFloat(_ document: JSONDocument, _ index: Int) -> Double? {
    guard
      case .convertFromString(let positive, let negative, let nan) =
        options.nonConformingFloatDecodingStrategy
    else { return nil }
    let text = document.string(index)
    if text == positive { return .infinity }
    if text == negative { return -.infinity }
    if text == nan { return .nan }
    return nil
  }
}

/// Lets generic code produce `nil` for any Optional type.
protocol OptionalDecodable {
  static var nilValue: Self { get }
}

extension Optional: OptionalDecodable {
  static var nilValue: Optional<Wrapped> { nil }
}
