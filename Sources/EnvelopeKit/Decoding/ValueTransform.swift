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
/// A transform made with `init(read:write:)` (and every built-in one) also writes: a
/// `ModelEncoder` made with `ModelEncoder(matching:)` writes the property with it, so a model
/// goes back to the server in the form it came in. A read-only transform (`init(_:)`) leaves
/// the encoder to write the property's own `Encodable` value.
///
/// A transform that throws is a lenient fallback (reported; the declared initial value of a
/// `LenientDecodable`, or nil for an Optional) or, in strict policy, a `DecodingError` with the
/// full path. Transforms apply in both policies: they are the model's contract.
public struct ValueTransform<Value>: Sendable {
  /// Reads the value from the key's JSON.
  package let read: @Sendable (JSON) throws -> Value
  /// Writes the value as JSON; nil for a read-only transform.
  let write: (@Sendable (Value) throws -> JSON)?

  /// A read-only transform from a closure over the key's JSON.
  ///
  /// - Parameter read: produces the value; throws when the JSON cannot be read.
  public init(_ read: @escaping @Sendable (JSON) throws -> Value) {
    self.read = read
    write = nil
  }

  /// A transform that reads and writes (ObjectMapper's `transformFromJSON` and
  /// `transformToJSON`).
  ///
  /// ```swift
  /// let cents = ValueTransform<Decimal>(
  ///   read: { json in
  ///     guard let text = json.stringValue, let cents = Int(text) else {
  ///       throw ValueTransformError(expected: "cents", found: json)
  ///     }
  ///     return Decimal(cents) / 100
  ///   },
  ///   write: { price in .string("\(price * 100)") })
  /// ```
  ///
  /// - Parameters:
  ///   - read: produces the value from the key's JSON; throws when it cannot.
  ///   - write: the JSON written for a value; a thrown error is the encode's error.
  public init(
    read: @escaping @Sendable (JSON) throws -> Value,
    write: @escaping @Sendable (Value) throws -> JSON
  ) {
    self.read = read
    self.write = write
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
    ValueTransform(
      read: { json in Date(timeIntervalSince1970: try number(json, "seconds since 1970")) },
      write: { date in try number(date, unitsPerSecond: 1) })
  }

  /// A number (or a string holding one) of milliseconds since 1970.
  public static var millisecondsSince1970: ValueTransform<Date> {
    ValueTransform(
      read: { json in
        Date(timeIntervalSince1970: try number(json, "milliseconds since 1970") / 1000)
      },
      write: { date in try number(date, unitsPerSecond: 1000) })
  }

  /// An ISO 8601 date and time, with or without fractional seconds
  /// (`2026-11-22T10:00:00Z`, `2026-11-22T10:00:00.250+01:00`). Writes UTC, with milliseconds
  /// when the date has a fraction of a second.
  public static var iso8601: ValueTransform<Date> {
    ValueTransform(
      read: { json in
        guard let text = json.stringValue, let date = ISO8601.parse(text) else {
          throw ValueTransformError(expected: "an ISO 8601 date", found: json)
        }
        return date
      },
      write: { date in .string(ISO8601.format(date)) })
  }

  /// A date in a `DateFormatter` format, read in `en_US_POSIX` and UTC.
  ///
  /// - Parameter format: e.g. `yyyy-MM-dd HH:mm:ss`.
  /// - Returns: the transform.
  public static func formatted(_ format: String) -> ValueTransform<Date> {
    let formatter = LockedFormatter(format)
    return ValueTransform(
      read: { json in
        guard let text = json.stringValue, let date = formatter.date(from: text) else {
          throw ValueTransformError(expected: "a date formatted \(format)", found: json)
        }
        return date
      },
      write: { date in .string(formatter.string(from: date)) })
  }

  /// The shortest number of units (`unitsPerSecond` a second) that the read side turns back
  /// into `date`: whole units when they do. `Date` keeps its time from 2001 as a `Double`, so a
  /// date read from `1700000000123` milliseconds is `1700000000122.9999` of them; written so,
  /// it changed the text and sent a fraction to servers that expect an integer.
  private static func number(_ date: Date, unitsPerSecond unit: Double) throws -> JSON {
    let units = date.timeIntervalSince1970 * unit
    var scale = 1.0
    for _ in 0...6 where units.isFinite {
      let rounded = (units * scale).rounded() / scale
      // What the read side makes of the text of `rounded` (its shortest text reads back as it).
      if Date(timeIntervalSince1970: rounded / unit) == date {
        return .number(try JSONNumber(encoding: rounded))
      }
      scale *= 10
    }
    return .number(try JSONNumber(encoding: units))
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
  /// A string holding an absolute or relative URL; an empty or invalid string throws. Writes
  /// the URL's absolute string.
  public static var url: ValueTransform<URL> {
    ValueTransform(
      read: { json in
        guard let text = json.stringValue, !text.isEmpty, let url = URL(string: text) else {
          throw ValueTransformError(expected: "a URL", found: json)
        }
        return url
      },
      write: { url in .string(url.absoluteString) })
  }
}

extension ValueTransform where Value == [String] {
  /// A string of items with a separator (`"a,b,c"` → `["a", "b", "c"]`; items trimmed, an empty
  /// string is `[]`); an array of strings is taken as it is. Writes the items joined with the
  /// separator, or as an array of strings when the joined text would not read back as the same
  /// items (an item with the separator or surrounding spaces in it, `[""]`).
  ///
  /// - Parameter separator: e.g. `","`.
  /// - Returns: the transform.
  public static func separated(by separator: String) -> ValueTransform<[String]> {
    @Sendable func read(_ json: JSON) throws -> [String] {
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
    return ValueTransform(
      read: read,
      write: { items in
        let joined = JSON.string(items.joined(separator: separator))
        return try read(joined) == items ? joined : .array(items.map(JSON.string))
      })
  }
}

extension ValueTransform where Value == Bool {
  /// A flag: `true`/`false`, `1`/`0` (numbers or strings), `"Y"`/`"N"`, `"yes"`/`"no"`,
  /// `"true"`/`"false"` (any case). Anything else throws. Writes `1` or `0`; to write what
  /// your server sends, use `flag(true:false:)`.
  public static var flag: ValueTransform<Bool> {
    flag(true: .number(JSONNumber(1)), false: .number(JSONNumber(0)))
  }

  /// A flag read as `flag` reads it, written as `whenTrue` or `whenFalse`:
  /// `.flag(true: .string("Y"), false: .string("N"))`.
  ///
  /// - Parameters:
  ///   - whenTrue: the JSON written for `true`.
  ///   - whenFalse: the JSON written for `false`.
  /// - Returns: the transform.
  public static func flag(true whenTrue: JSON, false whenFalse: JSON) -> ValueTransform<Bool> {
    ValueTransform(
      read: { json in
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
      }, write: { flag in flag ? whenTrue : whenFalse })
  }
}

/// ISO 8601 with and without fractional seconds.
enum ISO8601 {
  static func parse(_ text: String) -> Date? {
    if let date = utcSeconds(text) { return date }
    if let date = try? Date(text, strategy: .iso8601) { return date }
    let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    return try? Date(text, strategy: fractional)
  }

  /// The fast path of `parse` for what APIs send most, `2013-01-12T04:56:32Z`, read straight
  /// from the bytes; nil for anything else, which Foundation's parser reads. Only dates whose
  /// fields are valid in every reading (years 1900-2399, days up to the month's length, no leap
  /// second) take it; the result is Foundation's, held by `ISO8601Tests` over generated dates.
  static func utcSeconds(_ text: String) -> Date? {
    var text = text
    return text.withUTF8 { bytes -> Date? in
      guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
        bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
        bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
      else { return nil }
      func number(_ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<start + count {
          let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
          guard (0...9).contains(digit) else { return nil }
          value = value * 10 + digit
        }
        return value
      }
      guard let year = number(0, 4), (1900...2399).contains(year), let month = number(5, 2),
        (1...12).contains(month), let day = number(8, 2), let hour = number(11, 2), hour < 24,
        let minute = number(14, 2), minute < 60, let second = number(17, 2), second < 60
      else { return nil }
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
      guard day >= 1, day <= lengths[month - 1] else { return nil }
      // Days from 1970-01-01 in the proleptic Gregorian calendar (civil-from-days, inverted).
      let y = month <= 2 ? year - 1 : year
      let era = y / 400
      let yearOfEra = y - era * 400
      let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
      let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
      let days = era * 146_097 + dayOfEra - 719_468
      let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
      return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
  }

  /// UTC, with milliseconds unless the date is a whole second once rounded to the millisecond.
  /// Rounded, not cut as Foundation's fractional style cuts: `Date` keeps its time from 2001 as
  /// a `Double`, so a date read from `…:49.369Z` is a hair under it, and was written `.368`.
  static func format(_ date: Date) -> String {
    let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    // Past 2^53 ms (285,000 years) there are no milliseconds left to write.
    guard abs(milliseconds) < 0x1p53 else { return date.formatted(.iso8601) }
    var (seconds, fraction) = Int64(milliseconds).quotientAndRemainder(dividingBy: 1000)
    if fraction < 0 { (seconds, fraction) = (seconds - 1, fraction + 1000) }
    let text = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    guard fraction != 0, text.hasSuffix("Z") else { return text }
    return text.dropLast() + "." + String(fraction + 1000).dropFirst() + "Z"
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

  func string(from date: Date) -> String {
    lock.withLock { formatter.string(from: date) }
  }
}
