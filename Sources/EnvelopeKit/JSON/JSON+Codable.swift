import Foundation

extension JSON: Codable {
  /// Reads any JSON value, with any `Decoder`: a property whose samples disagree in kind (`"18"`
  /// and `18`) can be declared `JSON`.
  ///
  /// `LenientDecoder` hands over the value as it is in the document (number text exact). With
  /// another decoder the kind is found by asking in turn (null, bool, number, string, array,
  /// object); numbers are read as `Decimal` (integers exactly, others to 38 digits), and only a
  /// number past `Decimal`'s exponents (`1e200`, `1.5e-130`) as `Double` (17 digits).
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError` when the value is none of these.
  public init(from decoder: any Decoder) throws {
    if let source = decoder as? any JSONValueSource {
      self = try source.currentJSON()
      return
    }
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
      return
    }
    if let scalar = try Self.scalar(single) {
      self = scalar
      return
    }
    do {
      var unkeyed = try decoder.unkeyedContainer()
      var elements: [JSON] = []
      while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSON.self)) }
      self = .array(elements)
      return
    } catch DecodingError.typeMismatch {
      // Not an array: an object.
    }
    let keyed = try decoder.container(keyedBy: AnyCodingKey.self)
    var object = JSONObject()
    for key in keyed.allKeys {
      object.append(key.stringValue, try keyed.decode(JSON.self, forKey: key))
    }
    self = .object(object)
  }

  /// A bool, number or string; nil when the value is an array or object.
  private static func scalar(_ single: any SingleValueDecodingContainer) throws -> JSON? {
    do {
      return .bool(try single.decode(Bool.self))
    } catch DecodingError.typeMismatch {}
    do {
      // Decimal holds any JSON number Foundation reads without rounding (38 digits).
      let decimal = try single.decode(Decimal.self)
      return JSONNumber("\(decimal)").map(JSON.number)
    } catch DecodingError.typeMismatch {
      // Not a number.
    } catch {
      // A number Decimal cannot hold (1e400): as Double, or the original error.
      guard let double = try? single.decode(Double.self), let number = JSONNumber("\(double)")
      else {
        throw error
      }
      return .number(number)
    }
    do {
      return .string(try single.decode(String.self))
    } catch DecodingError.typeMismatch {}
    return nil
  }

  /// Writes the value with any `Encoder`; a number keeps its exact text where the encoder
  /// allows: `ModelEncoder` writes the text itself, another encoder gets integers exactly and
  /// others as `Decimal` (38 digits), else as `Double`.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: the encoder's errors, and `EncodingError.invalidValue` for a number that neither
  ///   `Decimal` nor `Double` holds (`1e400`, `1e-400`) with an encoder other than
  ///   `ModelEncoder`, rather than write another number.
  public func encode(to encoder: any Encoder) throws {
    if case .number(let number) = self, let exact = encoder as? any ExactNumberEncoder {
      return try exact.encodeExactly(number)
    }
    switch self {
    case .null:
      var single = encoder.singleValueContainer()
      try single.encodeNil()
    case .bool(let bool):
      var single = encoder.singleValueContainer()
      try single.encode(bool)
    case .number(let number):
      var single = encoder.singleValueContainer()
      if let integer = number.int64Value {
        try single.encode(integer)
      } else if let integer = number.uint64Value {
        try single.encode(integer)
      } else if let decimal = number.decimalValue {
        try single.encode(decimal)
      } else if let double = number.representableDoubleValue {
        try single.encode(double)
      } else {
        throw EncodingError.invalidValue(
          number.text,
          EncodingError.Context(
            codingPath: encoder.codingPath,
            debugDescription:
              "The number \(number.text) is past what Decimal and Double hold, so \(type(of: encoder)) "
              + "cannot write it (ModelEncoder writes its text)."))
      }
    case .string(let string):
      var single = encoder.singleValueContainer()
      try single.encode(string)
    case .array(let elements):
      var unkeyed = encoder.unkeyedContainer()
      for element in elements { try unkeyed.encode(element) }
    case .object(let object):
      var keyed = encoder.container(keyedBy: AnyCodingKey.self)
      for (key, value) in object { try keyed.encode(value, forKey: AnyCodingKey(stringValue: key)) }
    }
  }
}

/// An encoder that writes a number's text as it is (`ModelEncoder`'s), so `JSON` needs no
/// `Decimal` or `Double` that would round it.
protocol ExactNumberEncoder {
  /// Writes `number`'s text as the encoder's single value.
  func encodeExactly(_ number: JSONNumber) throws
}

/// A decoder that can hand over the JSON value it stands on as it is in the document, so
/// `JSON.init(from:)` needs no probing (and no lenient coercion changes its kind).
protocol JSONValueSource {
  /// The current value.
  func currentJSON() throws -> JSON
  /// Whether the current value is a JSON array.
  var currentKindIsArray: Bool { get }
  /// Whether the current value is a JSON object.
  var currentKindIsObject: Bool { get }
  /// `OneOrMany`'s single value, read as it reads every value that is not an array; nil when
  /// the value is read as the many form instead: leniently, a string holding a JSON array
  /// whose single reading strict would reject (the array is then read, to its depth).
  func oneOrManySingle<T: Decodable>(_ type: T.Type) throws -> T?
}
