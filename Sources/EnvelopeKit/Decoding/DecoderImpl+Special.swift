import Foundation

// Types Foundation's JSONDecoder treats specially (Date, Data, URL, Decimal), and arrays, which
// the lenient policy decodes element by element so that unusable elements can be dropped.

/// Arrays decoded by the decoder itself rather than through `Array.init(from:)`.
protocol DecodableArray {
  static func decodeArray(
    _ decoder: DecoderImpl, _ value: ValueRef, parent: CodingPathNode, key: (any CodingKey)?,
    allowsFallback: Bool
  ) throws -> Self
}

extension Array: DecodableArray where Element: Decodable {
  static func decodeArray(
    _ decoder: DecoderImpl, _ value: ValueRef, parent: CodingPathNode, key: (any CodingKey)?,
    allowsFallback: Bool
  ) throws -> [Element] {
    let path = parent.appending(key)
    let source = try decoder.arraySource(
      value, path: path, allowsFallback: allowsFallback, expected: [Element].self)
    let state = decoder.state
    // Scalar elements: a loop specialised for the element type (no generic dispatch per element).
    if Element.self == Double.self {
      return unsafeBitCast(try decoder.scalarArray(Double.self, source, path), to: [Element].self)
    }
    if Element.self == Int.self {
      return unsafeBitCast(try decoder.scalarArray(Int.self, source, path), to: [Element].self)
    }
    if Element.self == String.self {
      return unsafeBitCast(try decoder.scalarArray(String.self, source, path), to: [Element].self)
    }
    if Element.self == Int64.self {
      return unsafeBitCast(try decoder.scalarArray(Int64.self, source, path), to: [Element].self)
    }
    var result: [Element] = []
    result.reserveCapacity(source.count)
    var child = source.first
    for position in 0..<source.count {
      let element = ValueRef(document: source.document, index: child)
      let elementKey = AnyCodingKey(intValue: position)
      if state.isLenient {
        let mark = state.entries.count
        do {
          result.append(
            try decoder.unbox(
              Element.self, element, parent: path, key: elementKey, allowsFallback: false))
        } catch {
          state.truncateEntries(to: mark)
          state.report(.dropped, Element.self, element, path, elementKey)
        }
      } else {
        result.append(try decoder.unbox(Element.self, element, parent: path, key: elementKey))
      }
      child = source.document.next(child)
    }
    return result
  }
}

/// What the decoder needs to know about a type, found once per type and decode call.
struct TypeTraits {
  var array: (any DecodableArray.Type)?
  var isSpecial = false
  var isRawRepresentable = false
  var lenientDecodable: (any LenientDecodable.Type)?
  var caseDefaultable: (any CaseDefaultable.Type)?

  init(_ type: Any.Type) {
    array = type as? any DecodableArray.Type
    isSpecial =
      array != nil || type == Date.self || type == Decimal.self || type == URL.self
      || type == Data.self
    isRawRepresentable = type is any RawRepresentable.Type
    lenientDecodable = type as? any LenientDecodable.Type
    caseDefaultable = type as? any CaseDefaultable.Type
  }
}

extension DecodingState {
  /// The traits of `type`, cached for the rest of this decode.
  @inline(__always)
  func traits(of type: Any.Type) -> TypeTraits {
    let id = ObjectIdentifier(type)
    if let cached = traitCache[id] { return cached }
    let traits = TypeTraits(type)
    traitCache[id] = traits
    return traits
  }
}

extension DecoderImpl {
  /// Decodes an array of scalars; unusable elements are dropped (lenient) or thrown (strict).
  func scalarArray<S: JSONScalar>(_ type: S.Type, _ source: ArraySource, _ path: CodingPathNode)
    throws -> [S]
  {
    var result: [S] = []
    result.reserveCapacity(source.count)
    let document = source.document
    var child = source.first
    for position in 0..<source.count {
      if case .value(let element) = S.strictValue(document, child, state) {
        result.append(element)
      } else {
        let element = ValueRef(document: document, index: child)
        let key = AnyCodingKey(intValue: position)
        if state.isLenient {
          if let coerced = S.coerce(document, child, state) {
            state.report(.coerced, S.self, element, path, key)
            result.append(coerced)
          } else {
            state.report(.dropped, S.self, element, path, key)
          }
        } else {
          result.append(try scalar(S.self, element, parent: path, key: key, allowsFallback: false))
        }
      }
      child = document.next(child)
    }
    return result
  }

  /// Date, Data, URL, Decimal and arrays; nil for every other type.
  func unboxSpecial<T: Decodable>(
    _ type: T.Type, _ value: ValueRef, _ parent: CodingPathNode, _ key: (any CodingKey)?,
    _ allowsFallback: Bool, _ defaults: [String: Any]?, _ traits: TypeTraits
  ) throws -> T? {
    if let array = traits.array {
      if state.isLenient, let key, isMissingOrNull(value),
        let initial = defaults?[key.stringValue] as? T
      {
        state.report(.defaulted, T.self, value, parent, key)
        return initial
      }
      return try array.decodeArray(
        self, value, parent: parent, key: key, allowsFallback: allowsFallback) as? T
    }
    if T.self == Date.self {
      return try unboxDate(value, parent, key, allowsFallback) as? T
    }
    if T.self == Decimal.self {
      return try unboxDecimal(value, parent, key, allowsFallback) as? T
    }
    if T.self == URL.self {
      return try unboxString(value, parent, key, allowsFallback, as: URL.self) {
        URL(string: $0)
      } as? T
    }
    if T.self == Data.self, case .base64 = state.options.dataDecodingStrategy {
      return try unboxString(value, parent, key, allowsFallback, as: Data.self, empty: Data()) {
        Data(base64Encoded: $0)
      } as? T
    }
    if T.self == Data.self, case .custom(let read) = state.options.dataDecodingStrategy {
      return try withPosition(value, parent.appending(key)) { try read(self) } as? T
    }
    return nil
  }

  /// Runs `body` with the decoder pointed at `value`.
  func withPosition<R>(_ value: ValueRef, _ path: CodingPathNode, _ body: () throws -> R) rethrows
    -> R
  {
    let saved = (self.value, pathNode)
    setPosition(value, path)
    defer { setPosition(saved.0, saved.1) }
    return try body()
  }

  private func unboxDate(
    _ value: ValueRef, _ parent: CodingPathNode, _ key: (any CodingKey)?, _ allowsFallback: Bool
  ) throws -> Date? {
    switch state.options.dateDecodingStrategy {
    case .deferredToDate:
      return nil
    case .secondsSince1970:
      let seconds = try scalar(
        Double.self, value, parent: parent, key: key, allowsFallback: allowsFallback)
      return Date(timeIntervalSince1970: seconds)
    case .millisecondsSince1970:
      let milliseconds = try scalar(
        Double.self, value, parent: parent, key: key, allowsFallback: allowsFallback)
      return Date(timeIntervalSince1970: milliseconds / 1000)
    case .iso8601:
      return try unboxString(
        value, parent, key, allowsFallback, as: Date.self, empty: Date(timeIntervalSince1970: 0),
        failure: "Expected date string to be ISO8601-formatted."
      ) { try? Date($0, strategy: .iso8601) }
    case .formatted(let formatter):
      return try unboxString(
        value, parent, key, allowsFallback, as: Date.self, empty: Date(timeIntervalSince1970: 0),
        failure: "Date string does not match format expected by formatter."
      ) { formatter.date(from: $0) }
    case .custom(let read):
      return try withPosition(value, parent.appending(key)) { try read(self) }
    }
  }

  private func unboxDecimal(
    _ value: ValueRef, _ parent: CodingPathNode, _ key: (any CodingKey)?, _ allowsFallback: Bool
  ) throws -> Decimal {
    if let index = value.index {
      let document = value.document
      if document.kind(index) == .number,
        case .success(let decimal) = document.withBytes(index, { NumberParsing.decimal($0) })
      {
        return decimal
      }
      if state.isLenient,
        let decimal = Coercion.numericString(
          document, index, { try? NumberParsing.decimal($0).get() })
      {
        state.report(.coerced, Decimal.self, value, parent, key)
        return decimal
      }
    }
    guard state.isLenient, allowsFallback else {
      throw state.strictError(Decimal.self, value, parent, key)
    }
    return fallback(Decimal(0), value, parent: parent, key: key, defaults: nil)
  }

  /// A value parsed from a JSON string (URL, base64 Data, formatted dates).
  private func unboxString<R>(
    _ value: ValueRef, _ parent: CodingPathNode, _ key: (any CodingKey)?, _ allowsFallback: Bool,
    as type: R.Type, empty: R? = nil, failure: String? = nil, parse: (String) -> R?
  ) throws -> R {
    let text = try scalar(String.self, value, parent: parent, key: key, allowsFallback: false)
    if let parsed = parse(text) { return parsed }
    if state.isLenient, allowsFallback, let empty {
      return fallback(empty, value, parent: parent, key: key, defaults: nil)
    }
    throw DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: parent.path(with: key),
        debugDescription: failure ?? "Invalid \(R.self) string."))
  }
}
