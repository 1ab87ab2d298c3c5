import Foundation

// Types the decoder decodes itself instead of through their `init(from:)`: Optionals, arrays and
// `String`-keyed dictionaries (so that unusable elements can be nulled or dropped, and dictionary
// keys are never rewritten by the key strategy), and the types Foundation's JSONDecoder treats
// specially (Date, Data, URL, Decimal).

/// Optionals: missing or null is nil with no report entry (strict decodes them to nil too).
protocol DecodableOptional {
  static var nilValue: Self { get }
  /// Decodes `Self`, handed back as `T` (the caller's generic name for `Self`), so that no
  /// existential box or cast stands between.
  static func decodeOptional<T>(_ decoder: DecoderImpl, at position: DecodingPosition, as: T.Type)
    throws -> T
}

extension Optional: DecodableOptional where Wrapped: Decodable {
  static var nilValue: Wrapped? { nil }

  static func decodeOptional<T>(_ decoder: DecoderImpl, at position: DecodingPosition, as: T.Type)
    throws -> T
  {
    reinterpret(try decodeOptional(decoder, at: position), as: T.self)
  }

  private static func decodeOptional(_ decoder: DecoderImpl, at position: DecodingPosition) throws
    -> Wrapped?
  {
    guard position.index != nil else {
      // Only a keyed `decode(T?.self, forKey:)` of a missing key gets here; strict threw
      // keyNotFound before, so leniency reports it.
      decoder.record(.nulled, at: position.reading(Wrapped.self))
      return nil
    }
    if position.kind == .null { return nil }
    return try decoder.presentOptional(Wrapped.self, at: position)
  }
}

/// Arrays, element by element.
protocol DecodableArray {
  /// Decodes `Self`, handed back as `T` (the caller's generic name for `Self`).
  static func decodeArray<T>(_ decoder: DecoderImpl, at position: DecodingPosition, as: T.Type)
    throws -> T
}

extension Array: DecodableArray where Element: Decodable {
  static func decodeArray<T>(_ decoder: DecoderImpl, at position: DecodingPosition, as: T.Type)
    throws -> T
  {
    reinterpret(try decodeArray(decoder, at: position), as: T.self)
  }

  private static func decodeArray(_ decoder: DecoderImpl, at position: DecodingPosition) throws
    -> [Element]
  {
    let elements = try decoder.arrayElements(at: position)
    // No elements, nothing to decode: no frame to allocate, no buffer to make, no call. 746 of
    // twitter.json's 1,050 arrays are empty, and 8,685 of citm_catalog's 10,451.
    if elements.count == 0 { return [] }
    // Scalar elements: a loop specialised for the element type, no generic dispatch per element
    // (pays on canada's coordinates and twitter's id arrays; `[Float]` 1.9x faster).
    if Element.self == Double.self {
      return reinterpret(
        try decoder.scalarArray(Double.self, elements, at: position), as: [Element].self)
    }
    if Element.self == Int.self {
      return reinterpret(
        try decoder.scalarArray(Int.self, elements, at: position), as: [Element].self)
    }
    if Element.self == String.self {
      return reinterpret(
        try decoder.scalarArray(String.self, elements, at: position), as: [Element].self)
    }
    if Element.self == Int64.self {
      return reinterpret(
        try decoder.scalarArray(Int64.self, elements, at: position), as: [Element].self)
    }
    if Element.self == Float.self {
      return reinterpret(
        try decoder.scalarArray(Float.self, elements, at: position), as: [Element].self)
    }
    let document = elements.document(at: position)
    let frame = position.frame(document: document)
    // Elements are moved into place: `append` in this unspecialised code looked up the metadata
    // of `[Element]` for every element (5% of a page of 20 small models). A dropped element
    // leaves no gap; on a throw the elements kept so far are destroyed by the initializer.
    return try [Element](unsafeUninitializedCapacity: elements.count) { buffer, kept in
      var child = elements.first
      for offset in 0..<elements.count {
        let element = DecodingPosition(
          parent: frame, index: child, key: AnyCodingKey(intValue: offset), allowsFallback: false,
          type: Element.self)
        try decoder.element(Element.self, at: element) { value in
          buffer.initializeElement(at: kept, to: consume value)
          kept += 1
        }
        child = document.next(child)
      }
    }
  }
}

/// Dictionaries read from a JSON object, the way the standard library's `Dictionary` reads them
/// (`String`, `Int` and `CodingKeyRepresentable` keys), value by value, so that an unusable value
/// is dropped by the one rule for elements whatever the key type. `String` keys are data, never
/// rewritten by the key decoding strategy (as in Foundation); other keys go through it, as
/// through Foundation's keyed container. The first of duplicate keys wins.
protocol DecodableDictionary {
  /// Whether the decoder reads this dictionary itself (false: an array of alternating keys and
  /// values, through `init(from:)`).
  static var isReadFromObject: Bool { get }
  /// Decodes `Self`, handed back as `T` (the caller's generic name for `Self`).
  static func decodeDictionary<T>(
    _ decoder: DecoderImpl, at position: DecodingPosition, as: T.Type
  ) throws -> T
}

/// A dictionary key as the standard library makes it: `intValue` when the text is an integer.
private struct DictionaryKey: CodingKey {
  let stringValue: String
  let intValue: Int?
  init(stringValue: String) {
    self.stringValue = stringValue
    intValue = Int(stringValue)
  }
  init(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
}

extension Dictionary: DecodableDictionary where Key: Decodable, Value: Decodable {
  static var isReadFromObject: Bool {
    Key.self == String.self || Key.self == Int.self || Key.self is any CodingKeyRepresentable.Type
  }

  static func decodeDictionary<T>(
    _ decoder: DecoderImpl, at position: DecodingPosition, as: T.Type
  ) throws -> T {
    reinterpret(try decodeDictionary(decoder, at: position), as: T.self)
  }

  /// The key for a member name, or the error the standard library throws for it.
  private static func key(_ name: String, at frame: ContainerFrame) throws -> Key {
    if Key.self == String.self { return reinterpret(name, as: Key.self) }
    let codingKey = DictionaryKey(stringValue: name)
    func context(_ description: String) -> DecodingError.Context {
      DecodingError.Context(
        codingPath: frame.path(with: AnyCodingKey(stringValue: name)),
        debugDescription: description)
    }
    if Key.self == Int.self {
      guard let int = codingKey.intValue else {
        throw DecodingError.typeMismatch(
          Int.self, context("Expected Int key but found String key instead."))
      }
      return reinterpret(int, as: Key.self)
    }
    guard let representable = Key.self as? any CodingKeyRepresentable.Type,
      let key = representable.init(codingKey: codingKey) as? Key
    else {
      throw DecodingError.dataCorrupted(context("Could not convert key to type \(Key.self)"))
    }
    return key
  }

  private static func decodeDictionary(_ decoder: DecoderImpl, at position: DecodingPosition)
    throws -> [Key: Value]
  {
    let object = try decoder.objectValue(at: position)
    guard let index = object.index else { return [:] }
    let document = object.document
    let frame = position.frame(document: document)
    // Keys other than `String` go through the key strategy, as through Foundation's keyed
    // container; the conversion is worked out once per dictionary.
    let convert =
      Key.self == String.self
      ? nil
      : decoder.options.settings.keyDecodingStrategy.conversion(
        at: frame.path, cache: decoder.options.customKeys)
    var result: [Key: Value] = [:]
    result.reserveCapacity(document.count(index))
    for member in document.members(of: index) {
      let raw = document.string(member.key)
      let name = convert?(raw) ?? raw
      let value = DecodingPosition(
        parent: frame, index: member.value, key: AnyCodingKey(stringValue: name),
        allowsFallback: false, type: Value.self)
      let key: Key
      do {
        key = try self.key(name, at: frame)
      } catch {
        // A key that is not a `Key`: strict throws as Foundation does; lenient drops the entry.
        guard decoder.leniency.dropsElements else { throw error }
        decoder.record(.dropped, at: value)
        continue
      }
      guard result[key] == nil else { continue }
      try decoder.element(Value.self, at: value) { result[key] = $0 }
    }
    return result
  }
}

extension DecoderImpl {
  /// Decodes an array element or dictionary value and hands it to `keep`; an unusable one is
  /// dropped (reported) instead. A callback rather than a `T?` result: naming `T?` costs a
  /// metadata lookup per element in this unspecialised code (`recovering` returns `Void?`).
  @inline(__always)
  func element<T: Decodable>(
    _ type: T.Type, at position: DecodingPosition, _ keep: (consuming T) -> Void
  ) throws {
    guard leniency.dropsElements else { return keep(try unbox(type, at: position)) }
    // `recovering` spelled out: its closure would be two more frames per nesting level in
    // debug builds.
    let mark = reportMark
    do {
      keep(try unbox(type, at: position))
    } catch {
      try recover(from: error, to: mark)
      record(.dropped, at: position)
    }
  }

  /// The present, non-null value of an Optional: nil (reported `nulled`) when unusable.
  ///
  /// The value is read as `type` with no fallback; a position made so (the containers make
  /// them so) is used as it is, any other is copied first (a copy retains and releases what the
  /// position holds, on every present Optional).
  func presentOptional<T: Decodable>(_ type: T.Type, at position: DecodingPosition) throws -> T? {
    guard !position.allowsFallback, ObjectIdentifier(position.type) == ObjectIdentifier(type)
    else { return try presentOptional(type, at: position.reading(type, allowsFallback: false)) }
    guard leniency.nullsOptionals else { return try unbox(type, at: position) }
    // `recovering` spelled out, as in `element`.
    let mark = reportMark
    do {
      return try unbox(type, at: position)
    } catch {
      try recover(from: error, to: mark)
      record(.nulled, at: position)
      return nil
    }
  }

  /// Decodes an array of scalars; unusable elements are dropped (lenient) or thrown (strict).
  /// The elements' frame is made only if one of them needs a position. Out of line (once per
  /// array): inlined, its four specialised loops made the frame of every array of models
  /// larger, and an array of models is a nesting level.
  @inline(never)
  func scalarArray<S: JSONScalar>(
    _ type: S.Type, _ elements: ArrayElements, at position: DecodingPosition
  ) throws -> [S] {
    // The position's document is passed on as it is, not held in a local: a local retained
    // and released it for every array (4% of canada's decode).
    if let embedded = elements.embedded {
      return try scalarArray(type, elements, in: embedded, at: position)
    }
    return try scalarArray(type, elements, in: position.parent.document, at: position)
  }

  @inline(__always)
  private func scalarArray<S: JSONScalar>(
    _ type: S.Type, _ elements: ArrayElements, in document: JSONDocument,
    at position: DecodingPosition
  ) throws -> [S] {
    var result: [S] = []
    result.reserveCapacity(elements.count)
    var frame: ContainerFrame?
    var child = elements.first
    for offset in 0..<elements.count {
      if case .value(let element) = S.strictValue(document, child, options) {
        result.append(element)
      } else {
        let parent = frame ?? position.frame(document: document)
        frame = parent
        let element = DecodingPosition(
          parent: parent, index: child, key: AnyCodingKey(intValue: offset),
          allowsFallback: false, type: S.self)
        try self.element(S.self, at: element) { result.append($0) }
      }
      child = document.next(child)
    }
    return result
  }

  /// Decodes a Foundation type by the decoder's strategies. `T` is the type `value` was found
  /// for, so each result is `T` reinterpreted, not cast. Out of line: none of it is on the
  /// path of a nesting level.
  @inline(never)
  func unboxFoundationValue<T: Decodable>(
    _ type: T.Type, _ value: TypeTraits.FoundationValue, at position: DecodingPosition
  ) throws -> T {
    switch value {
    case .date:
      return reinterpret(try unboxDate(at: position), as: T.self)
    case .decimal:
      let decimal = try fallingBack(emptyValue(of: Decimal.self), at: position) {
        try strictDecimal(at: $0)
      }
      return reinterpret(decimal, as: T.self)
    case .url:
      let url = try fallingBack(emptyValue(of: URL.self), at: position) { position in
        let text = try stringToParse(at: position)
        guard let url = URL(string: text) else {
          throw invalidString("Invalid URL string.", at: position)
        }
        return url
      }
      return reinterpret(url, as: T.self)
    case .data:
      switch options.settings.dataDecodingStrategy {
      case .deferredToData:
        return try with(position) { try type.init(from: self) }
      case .base64:
        let data = try fallingBack(emptyValue(of: Data.self), at: position) { position in
          let text = try stringToParse(at: position)
          guard let data = Data(base64Encoded: text) else {
            throw invalidString("Encountered Data is not valid Base64.", at: position)
          }
          return data
        }
        return reinterpret(data, as: T.self)
      case .custom(let read):
        return reinterpret(try with(position) { try read(self) }, as: T.self)
      }
    }
  }

  /// Runs a strict `read`; when it fails and the position may fall back, gives the declared
  /// initial value or `empty` (reported `defaulted`). `empty` is made only then: the empty
  /// URL is a URL parse, which every URL value paid before (a sixth of a GitHub events decode).
  private func fallingBack<R>(
    _ empty: @autoclosure () -> R?, at position: DecodingPosition,
    _ read: (DecodingPosition) throws -> R
  ) throws -> R {
    let strict = position.reading(position.type, allowsFallback: false)
    guard leniency.fallsBack(at: position) else { return try read(strict) }
    // `recovering` spelled out, with `empty` asked only once the read has failed.
    let mark = reportMark
    do {
      return try read(strict)
    } catch {
      if DecodeStop.stops(error) { throw error }
      guard let empty = empty() else { throw error }
      rollbackReport(to: mark)
      return fallback(empty, at: position)
    }
  }

  private func unboxDate(at position: DecodingPosition) throws -> Date {
    let epoch = Date(timeIntervalSince1970: 0)
    switch options.settings.dateDecodingStrategy {
    case .deferredToDate:
      // What `Date.init(from:)` does, here so that fallbacks and reports name `Date`.
      return try fallingBack(Date(timeIntervalSinceReferenceDate: 0), at: position) {
        Date(timeIntervalSinceReferenceDate: try scalar(Double.self, at: $0))
      }
    case .secondsSince1970:
      return try fallingBack(epoch, at: position) {
        Date(timeIntervalSince1970: try scalar(Double.self, at: $0))
      }
    case .millisecondsSince1970:
      return try fallingBack(epoch, at: position) {
        Date(timeIntervalSince1970: try scalar(Double.self, at: $0) / 1000)
      }
    case .iso8601:
      return try fallingBack(epoch, at: position) { position in
        let text = try stringToParse(at: position)
        // Foundation's parser, after the fast path held to it (`ISO8601.utcSeconds`).
        guard let date = ISO8601.utcSeconds(text) ?? (try? Date(text, strategy: .iso8601)) else {
          throw invalidString("Expected date string to be ISO8601-formatted.", at: position)
        }
        return date
      }
    case .formatted(let formatter):
      return try fallingBack(epoch, at: position) { position in
        let text = try stringToParse(at: position)
        guard let date = formatter.date(from: text) else {
          throw invalidString(
            "Date string does not match format expected by formatter.", at: position)
        }
        return date
      }
    case .custom(let read):
      return try with(position) { try read(self) }
    }
  }

  /// The text of a string that a strategy parses (URL, base64, formatted dates). Only a JSON
  /// string: a number or bool turned into text would parse into something nobody sent.
  private func stringToParse(at position: DecodingPosition) throws -> String {
    guard let index = position.index, position.document.kind(index) == .string else {
      throw strictError(String.self, at: position)
    }
    return position.document.string(index)
  }

  /// A JSON number (or, leniently, a numeric string) read exactly as a Decimal.
  private func strictDecimal(at position: DecodingPosition) throws -> Decimal {
    guard let index = position.index else { throw strictError(Decimal.self, at: position) }
    let document = position.document
    if document.kind(index) == .number {
      switch document.withBytes(index, { NumberParsing.decimal($0) }) {
      case .success(let decimal): return decimal
      case .failure: throw strictError(Decimal.self, at: position, unrepresentable: true)
      }
    }
    if leniency.coercesKinds,
      let decimal = Coercion.numericString(
        document, index, { try? NumberParsing.decimal($0).get() })
    {
      record(.coerced, at: position)
      return decimal
    }
    throw strictError(Decimal.self, at: position)
  }
}

extension DecoderImpl: JSONValueSource {
  var currentKindIsArray: Bool { position.kind == .array }
  var currentKindIsObject: Bool { position.kind == .object }

  func oneOrManySingle<T: Decodable>(_ type: T.Type) throws -> T? {
    guard leniency.coercesKinds, position.kind == .string else {
      return try unbox(type, at: position)
    }
    // A string: the single value when strict reads it so (no entry); else, when the string
    // holds an array, the many form, coerced (a too-deep element then stops the decode, as in
    // any array); else the single value's fallback or error.
    let mark = reportMark
    let single = try recovering { try unbox(type, at: position) }
    if let single, reportMark == mark { return single }
    if try embeddedDocument(at: position, kind: .array) != nil {
      rollbackReport(to: mark)
      return nil
    }
    if let single { return single }
    return try unbox(type, at: position)
  }

  /// The value at the current position as it is in the document; null for a missing value
  /// read as null, else a missing value is an error.
  func currentJSON() throws -> JSON {
    guard position.index != nil else {
      if position.readsMissingAsNull { return .null }
      throw absentError(JSON.self, at: position, "Expected a JSON value but found nothing.")
    }
    return try json(at: position)
  }
}
