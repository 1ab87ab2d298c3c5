import Foundation

// Input as apps already hold it: a `String` (SmartCodable's `deserialize(from:)`), a `JSON`
// value, or Foundation objects (`[String: Any]`, `[Any]`, from `JSONSerialization` or a literal).
// Each form becomes the JSON text it stands for and goes through the `Data` path, so the rules,
// the report and the errors are the same as from `Data`.

extension LenientDecoder {
  /// Decodes a value from JSON text.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - string: the JSON text.
  /// - Returns: the value.
  /// - Throws: the errors of `decode(_:from:)` with `Data`.
  public func decode<T: Decodable>(_ type: T.Type, from string: String) throws -> T {
    try decode(type, from: Data(string.utf8))
  }

  /// Decodes a value from a `JSON` value.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - json: the value.
  /// - Returns: the value.
  /// - Throws: the errors of `decode(_:from:)` with `Data`.
  public func decode<T: Decodable>(_ type: T.Type, from json: JSON) throws -> T {
    try decode(type, from: Self.text(of: json))
  }

  /// Decodes a value from Foundation objects: `[String: Any]`, `[Any]`, strings, numbers,
  /// booleans (`NSNumber` booleans from `JSONSerialization` included) and `NSNull`, as
  /// `JSONSerialization` gives them or as a literal spells them.
  ///
  /// ```swift
  /// let user = try LenientDecoder().decode(User.self, fromJSONObject: ["id": "18", "name": "Ada"])
  /// ```
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - object: the object.
  /// - Returns: the value.
  /// - Throws: `DecodingError.dataCorrupted` naming the path of anything that is not JSON (a
  ///   `Date`, a custom class, a non-finite number), and the errors of `decode(_:from:)`.
  public func decode<T: Decodable>(_ type: T.Type, fromJSONObject object: Any) throws -> T {
    try decode(type, from: Self.text(ofJSONObject: object, maxDepth: maxDepth))
  }

  /// Decodes a value at a key path of JSON text.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - string: the JSON text.
  ///   - path: where the value is.
  /// - Returns: the value.
  /// - Throws: the errors of `decode(_:from:at:)` with `Data`.
  public func decode<T: Decodable>(_ type: T.Type, from string: String, at path: JSONPath)
    throws -> T
  {
    try decode(type, from: Data(string.utf8), at: path)
  }

  /// Decodes a value at a key path of a `JSON` value.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - json: the value.
  ///   - path: where the value is.
  /// - Returns: the value.
  /// - Throws: the errors of `decode(_:from:at:)` with `Data`.
  public func decode<T: Decodable>(_ type: T.Type, from json: JSON, at path: JSONPath) throws -> T {
    try decode(type, from: Self.text(of: json), at: path)
  }

  /// Decodes a value at a key path of Foundation objects.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - object: the object.
  ///   - path: where the value is.
  /// - Returns: the value.
  /// - Throws: the errors of `decode(_:fromJSONObject:)` and `decode(_:from:at:)`.
  public func decode<T: Decodable>(_ type: T.Type, fromJSONObject object: Any, at path: JSONPath)
    throws -> T
  {
    try decode(type, from: Self.text(ofJSONObject: object, maxDepth: maxDepth), at: path)
  }

  /// Decodes a value from JSON text and reports every coercion and fallback.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - string: the JSON text.
  ///   - path: where the value is; nil for the root.
  /// - Returns: the value and its report.
  /// - Throws: the errors of `decodeWithReport(_:from:at:)` with `Data`.
  public func decodeWithReport<T: Decodable>(
    _ type: T.Type, from string: String, at path: JSONPath? = nil
  ) throws -> Decoded<T> {
    try decodeWithReport(type, from: Data(string.utf8), at: path)
  }

  /// Decodes a value from a `JSON` value and reports every coercion and fallback.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - json: the value.
  ///   - path: where the value is; nil for the root.
  /// - Returns: the value and its report.
  /// - Throws: the errors of `decodeWithReport(_:from:at:)` with `Data`.
  public func decodeWithReport<T: Decodable>(
    _ type: T.Type, from json: JSON, at path: JSONPath? = nil
  ) throws -> Decoded<T> {
    try decodeWithReport(type, from: Self.text(of: json), at: path)
  }

  /// Decodes a value from Foundation objects and reports every coercion and fallback.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - object: the object.
  ///   - path: where the value is; nil for the root.
  /// - Returns: the value and its report.
  /// - Throws: the errors of `decode(_:fromJSONObject:)` and `decodeWithReport(_:from:at:)`.
  public func decodeWithReport<T: Decodable>(
    _ type: T.Type, fromJSONObject object: Any, at path: JSONPath? = nil
  ) throws -> Decoded<T> {
    try decodeWithReport(type, from: Self.text(ofJSONObject: object, maxDepth: maxDepth), at: path)
  }

  /// Decodes an envelope's payload from JSON text.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - string: the response body as text.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data (`"list"`, `"page>rows"`); data itself by default.
  /// - Returns: the payload.
  /// - Throws: the errors of `decodeEnvelope(_:from:format:at:)` with `Data`.
  public func decodeEnvelope<T: Decodable>(
    _ type: T.Type, from string: String, format: EnvelopeFormat? = nil, at path: JSONPath = .root
  ) throws -> T {
    try decodeEnvelope(type, from: Data(string.utf8), format: format, at: path)
  }

  /// Decodes an envelope's payload from a `JSON` value.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - json: the envelope.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data; data itself by default.
  /// - Returns: the payload.
  /// - Throws: the errors of `decodeEnvelope(_:from:format:at:)` with `Data`.
  public func decodeEnvelope<T: Decodable>(
    _ type: T.Type, from json: JSON, format: EnvelopeFormat? = nil, at path: JSONPath = .root
  ) throws -> T {
    try decodeEnvelope(type, from: Self.text(of: json), format: format, at: path)
  }

  /// Decodes an envelope's payload from Foundation objects.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - object: the envelope, e.g. a `[String: Any]` from `JSONSerialization`.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data; data itself by default.
  /// - Returns: the payload.
  /// - Throws: the errors of `decode(_:fromJSONObject:)` and
  ///   `decodeEnvelope(_:from:format:at:)`.
  public func decodeEnvelope<T: Decodable>(
    _ type: T.Type, fromJSONObject object: Any, format: EnvelopeFormat? = nil,
    at path: JSONPath = .root
  ) throws -> T {
    try decodeEnvelope(
      type, from: Self.text(ofJSONObject: object, maxDepth: maxDepth), format: format, at: path)
  }

  /// Like `decodeEnvelope(_:from:format:at:)` from JSON text, and also returns the report.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - string: the response body as text.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data; data itself by default.
  /// - Returns: the payload and its report.
  /// - Throws: the errors of `decodeEnvelopeWithReport(_:from:format:at:)` with `Data`.
  public func decodeEnvelopeWithReport<T: Decodable>(
    _ type: T.Type, from string: String, format: EnvelopeFormat? = nil, at path: JSONPath = .root
  ) throws -> Decoded<T> {
    try decodeEnvelopeWithReport(type, from: Data(string.utf8), format: format, at: path)
  }

  /// Like `decodeEnvelope(_:from:format:at:)` from a `JSON` value, and also returns the report.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - json: the envelope.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data; data itself by default.
  /// - Returns: the payload and its report.
  /// - Throws: the errors of `decodeEnvelopeWithReport(_:from:format:at:)` with `Data`.
  public func decodeEnvelopeWithReport<T: Decodable>(
    _ type: T.Type, from json: JSON, format: EnvelopeFormat? = nil, at path: JSONPath = .root
  ) throws -> Decoded<T> {
    try decodeEnvelopeWithReport(type, from: Self.text(of: json), format: format, at: path)
  }

  /// Like `decodeEnvelope(_:fromJSONObject:format:at:)`, and also returns the report.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - object: the envelope, e.g. a `[String: Any]` from `JSONSerialization`.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data; data itself by default.
  /// - Returns: the payload and its report.
  /// - Throws: the errors of `decode(_:fromJSONObject:)` and
  ///   `decodeEnvelopeWithReport(_:from:format:at:)`.
  public func decodeEnvelopeWithReport<T: Decodable>(
    _ type: T.Type, fromJSONObject object: Any, format: EnvelopeFormat? = nil,
    at path: JSONPath = .root
  ) throws -> Decoded<T> {
    try decodeEnvelopeWithReport(
      type, from: Self.text(ofJSONObject: object, maxDepth: maxDepth), format: format, at: path)
  }

  /// The UTF-8 text of a `JSON` value, through the one writer.
  static func text(of json: JSON) -> Data { Data(json.rawText.utf8) }

  /// The JSON text Foundation objects stand for.
  static func text(ofJSONObject object: Any, maxDepth: Int) throws -> Data {
    text(of: try JSON(jsonObject: object, maxDepth: maxDepth))
  }
}

extension JSON {
  /// The JSON value of Foundation objects (what `JSONSerialization` gives, or a literal).
  ///
  /// - Parameters:
  ///   - object: `[String: Any]`, `[Any]`, `String`, a number, a `Bool` (or an `NSNumber`
  ///     boolean), `NSNull`, or nil in an Optional.
  ///   - maxDepth: the deepest nesting accepted.
  /// - Throws: `DecodingError.dataCorrupted` naming the path of a value that is not JSON.
  init(jsonObject object: Any, maxDepth: Int) throws {
    self = try Self.converting(object, path: [], depth: 0, maxDepth: maxDepth)
  }

  private static func converting(
    _ object: Any, path: [AnyCodingKey], depth: Int, maxDepth: Int
  ) throws -> JSON {
    func notJSON(_ what: String) -> DecodingError {
      DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: path,
          debugDescription: "The given object is not JSON: \(what) is not a JSON value."))
    }
    switch object {
    case let text as String:
      return .string(text)
    case let bool as Bool where type(of: object) == Bool.self:
      return .bool(bool)
    case let number as Decimal where type(of: object) == Decimal.self:
      guard let json = JSONNumber(number.description) else { throw notJSON("\(number)") }
      return .number(json)
    case let number as NSDecimalNumber:
      guard let json = JSONNumber(number.stringValue) else { throw notJSON("\(number)") }
      return .number(json)
    case let number as NSNumber
    where !(type(of: object) is any BinaryInteger.Type)
      && !(type(of: object) is any BinaryFloatingPoint.Type):
      return try converting(number, notJSON)
    case let number as Int: return .number(JSONNumber(number))
    case let number as Int8: return .number(JSONNumber(number))
    case let number as Int16: return .number(JSONNumber(number))
    case let number as Int32: return .number(JSONNumber(number))
    case let number as Int64: return .number(JSONNumber(number))
    case let number as UInt: return .number(JSONNumber(number))
    case let number as UInt8: return .number(JSONNumber(number))
    case let number as UInt16: return .number(JSONNumber(number))
    case let number as UInt32: return .number(JSONNumber(number))
    case let number as UInt64: return .number(JSONNumber(number))
    case let number as Double: return try floating(number, notJSON)
    case let number as Float:
      // Its own shortest text (`0.1`), as JSONEncoder writes a Float.
      guard number.isFinite, let json = JSONNumber("\(number)") else {
        throw notJSON("the number \(number)")
      }
      return .number(json)
    case is NSNull:
      return .null
    case let optional as any OptionalObject:
      guard let wrapped = optional.wrappedObject else { return .null }
      return try converting(wrapped, path: path, depth: depth, maxDepth: maxDepth)
    case let array as [Any]:
      guard depth < maxDepth else { throw notJSON("nesting deeper than \(maxDepth) levels") }
      return .array(
        try array.enumerated().map { index, element in
          try converting(
            element, path: path + [AnyCodingKey(intValue: index)], depth: depth + 1,
            maxDepth: maxDepth)
        })
    case let dictionary as [String: Any]:
      guard depth < maxDepth else { throw notJSON("nesting deeper than \(maxDepth) levels") }
      var members = JSONObject()
      // Sorted: a dictionary's order is not stable, and the first of equal keys cannot differ.
      for key in dictionary.keys.sorted() {
        members.append(
          key,
          try converting(
            dictionary[key] as Any, path: path + [AnyCodingKey(stringValue: key)],
            depth: depth + 1, maxDepth: maxDepth))
      }
      return .object(members)
    default:
      throw notJSON("a value of type \(type(of: object))")
    }
  }

  /// An `NSNumber` as `JSONSerialization` makes them: a boolean (`objCType` `c` or `B`, as
  /// `true` and `false` are), an integer, or a floating-point number.
  private static func converting(_ number: NSNumber, _ notJSON: (String) -> DecodingError) throws
    -> JSON
  {
    let kind = String(cString: number.objCType)
    switch kind {
    case "c", "B": return .bool(number.boolValue)
    case "Q", "L", "I", "S", "C": return .number(JSONNumber(number.uint64Value))
    case "q", "l", "i", "s": return .number(JSONNumber(number.int64Value))
    default: return try floating(number.doubleValue, notJSON)
    }
  }

  private static func floating(_ number: Double, _ notJSON: (String) -> DecodingError) throws
    -> JSON
  {
    guard number.isFinite, let json = JSONNumber("\(number)") else {
      throw notJSON("the number \(number)")
    }
    return .number(json)
  }
}

/// An Optional seen through `Any`, to unwrap it.
private protocol OptionalObject {
  var wrappedObject: Any? { get }
}

extension Optional: OptionalObject {
  fileprivate var wrappedObject: Any? { self.map { $0 as Any } }
}

/// A model that wants one call after it is decoded, to derive a field or normalise a value
/// (SmartCodable's `didFinishMapping`, ObjectMapper's post-mapping).
///
/// The decoder calls `didFinishDecoding()` once for each value of the conforming type it
/// decodes, in both policies, wherever the value sits (the root, a property, an array element,
/// at a key path or inside an envelope). A value that fails to decode (and is dropped or falls
/// back in lenient policy) gets no call; nor does a declared initial value used as a fallback.
/// Other types pay one flag check per value, worked out once per type and decode.
///
/// ```swift
/// struct User: Decodable, DecodingFinishing {
///   var firstName: String
///   var lastName: String
///   var fullName = ""
///   enum CodingKeys: String, CodingKey { case firstName, lastName }
///   mutating func didFinishDecoding() { fullName = firstName + " " + lastName }
/// }
/// ```
public protocol DecodingFinishing {
  /// Called once after the value is decoded.
  mutating func didFinishDecoding()
}
