import Foundation

/// Turns a key's raw JSON into a property's value, for plain `Codable` models (ObjectMapper's
/// `TransformType`, SmartCodable's `mappingForValue`), set on the decoder with
/// `LenientDecoder.transform(_:key:_:)`.
///
/// ```swift
/// var decoder = LenientDecoder()
/// decoder.transform(Event.self, key: "at", .millisecondsSince1970)
/// decoder.transform(Event.self, key: "tags", .separated(by: ","))
/// decoder.transform(Event.self, key: "price", ValueTransform { json in
///   guard let text = json.stringValue, let cents = Int(text) else {
///     throw ValueTransformError(expected: "cents", found: json)
///   }
///   return Decimal(cents) / 100
/// })
/// ```
///
/// A transform that throws is a lenient fallback (reported; the declared initial value of a
/// `LenientDecodable`, or nil for an Optional) or, in strict policy, a `DecodingError` with the
/// full path. Transforms apply in both policies: they are the model's contract.
public struct ValueTransform<Value>: Sendable {
  /// Reads the value from the key's JSON.
  let read: @Sendable (JSON) throws -> Value

  /// A transform from a closure over the key's JSON.
  ///
  /// - Parameter read: produces the value; throws when the JSON cannot be read.
  public init(_ read: @escaping @Sendable (JSON) throws -> Value) {
    self.read = read
  }
}

/// A transform could not read the JSON it was given.
public struct ValueTransformError: Error, Sendable, CustomStringConvertible {
  /// What the transform reads, e.g. `milliseconds since 1970`.
  public var expected: String
  /// The JSON it was given, cut to 40 characters.
  public var found: String

  /// Creates the error.
  ///
  /// - Parameters:
  ///   - expected: what the transform reads.
  ///   - found: the JSON it was given.
  public init(expected: String, found: JSON) {
    self.expected = expected
    self.found = found.snippet()
  }

  /// `expected milliseconds since 1970, found "soon"`.
  public var description: String { "expected \(expected), found \(found)" }
}

// MARK: - Built-in transforms

extension ValueTransform where Value == Date {
  /// A number (or a string holding one) of seconds since 1970.
  public static var secondsSince1970: ValueTransform<Date> {
    ValueTransform { json in
      Date(timeIntervalSince1970: try number(json, "seconds since 1970"))
    }
  }

  /// A number (or a string holding one) of milliseconds since 1970.
  public static var millisecondsSince1970: ValueTransform<Date> {
    ValueTransform { json in
      Date(timeIntervalSince1970: try number(json, "milliseconds since 1970") / 1000)
    }
  }

  /// An ISO 8601 date and time, with or without fractional seconds
  /// (`2026-11-22T10:00:00Z`, `2026-11-22T10:00:00.250+01:00`).
  public static var iso8601: ValueTransform<Date> {
    ValueTransform { json in
      guard let text = json.stringValue, let date = ISO8601.parse(text) else {
        throw ValueTransformError(expected: "an ISO 8601 date", found: json)
      }
      return date
    }
  }

  /// A date in a `DateFormatter` format, read in `en_US_POSIX` and UTC.
  ///
  /// - Parameter format: e.g. `yyyy-MM-dd HH:mm:ss`.
  /// - Returns: the transform.
  public static func formatted(_ format: String) -> ValueTransform<Date> {
    let formatter = LockedFormatter(format)
    return ValueTransform { json in
      guard let text = json.stringValue, let date = formatter.date(from: text) else {
        throw ValueTransformError(expected: "a date formatted \(format)", found: json)
      }
      return date
    }
  }

  private static func number(_ json: JSON, _ expected: String) throws -> Double {
    switch json {
    case .number(let number):
      if let value = number.doubleValue { return value }
    case .string(let text):
      if let number = JSONNumber(text.trimmingCharacters(in: .whitespaces)),
        let value = number.doubleValue
      {
        return value
      }
    default: break
    }
    throw ValueTransformError(expected: expected, found: json)
  }
}

extension ValueTransform where Value == URL {
  /// A string holding an absolute or relative URL; an empty or invalid string throws.
  public static var url: ValueTransform<URL> {
    ValueTransform { json in
      guard let text = json.stringValue, !text.isEmpty, let url = URL(string: text) else {
        throw ValueTransformError(expected: "a URL", found: json)
      }
      return url
    }
  }
}

extension ValueTransform where Value == [String] {
  /// A string of items with a separator (`"a,b,c"` → `["a", "b", "c"]`; items trimmed, an empty
  /// string is `[]`); an array of strings is taken as it is.
  ///
  /// - Parameter separator: e.g. `","`.
  /// - Returns: the transform.
  public static func separated(by separator: String) -> ValueTransform<[String]> {
    ValueTransform { json in
      switch json {
      case .string(let text):
        guard !text.isEmpty, !separator.isEmpty else { return text.isEmpty ? [] : [text] }
        return text.components(separatedBy: separator).map {
          $0.trimmingCharacters(in: .whitespaces)
        }
      case .array(let elements):
        return try elements.map { element in
          guard case .string(let text) = element else {
            throw ValueTransformError(expected: "strings", found: element)
          }
          return text
        }
      default:
        throw ValueTransformError(expected: "items separated by \(separator)", found: json)
      }
    }
  }
}

extension ValueTransform where Value == Bool {
  /// A flag: `true`/`false`, `1`/`0` (numbers or strings), `"Y"`/`"N"`, `"yes"`/`"no"`,
  /// `"true"`/`"false"` (any case). Anything else throws.
  public static var flag: ValueTransform<Bool> {
    ValueTransform { json in
      switch json {
      case .bool(let flag): return flag
      case .number(let number) where number.text == "1": return true
      case .number(let number) where number.text == "0": return false
      case .string(let text):
        switch text.lowercased() {
        case "1", "y", "yes", "true": return true
        case "0", "n", "no", "false": return false
        default: break
        }
      default: break
      }
      throw ValueTransformError(expected: "a flag (0/1, Y/N, true/false)", found: json)
    }
  }
}

/// ISO 8601 with and without fractional seconds.
private enum ISO8601 {
  static func parse(_ text: String) -> Date? {
    if let date = try? Date(text, strategy: .iso8601) { return date }
    let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    return try? Date(text, strategy: fractional)
  }
}

/// A `DateFormatter` shared by every call of one transform.
///
/// `@unchecked Sendable`: the formatter is only used with `lock` held.
private final class LockedFormatter: @unchecked Sendable {
  private let lock = NSLock()
  private let formatter: DateFormatter

  init(_ format: String) {
    formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = format
  }

  func date(from text: String) -> Date? {
    lock.withLock { formatter.date(from: text) }
  }
}
