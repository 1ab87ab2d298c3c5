import Foundation

/// The directives of a `Cache-Control` header that the provider's cache follows.
struct CacheControl {
  /// `no-store`: never stored, under any policy.
  var noStore = false
  /// `no-cache` (or `must-revalidate` past its age): revalidated before every use.
  var noCache = false
  /// `max-age=N` in seconds.
  var maxAge: TimeInterval?

  /// Parses `value`; directives are compared without case, unknown ones are ignored.
  init(_ value: String?) {
    guard let value else { return }
    for directive in value.split(separator: ",") {
      let parts = directive.split(separator: "=", maxSplits: 1)
      let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
      let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
      switch name {
      case "no-store": noStore = true
      case "no-cache": noCache = true
      case "max-age":
        // A malformed or negative age is stale, as RFC 9111 §4.2.1 asks.
        let text = argument?.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        maxAge = text.flatMap { DeltaSeconds.parse($0, cap: DeltaSeconds.cacheCap) } ?? 0
      default: continue
      }
    }
  }
}

/// `delta-seconds` (RFC 9110 §10.2.3, RFC 9111 §1.2.2): `1*DIGIT`, any number of digits, for
/// `Retry-After` and `max-age`. A value past `cap` (or past what an integer holds) is `cap`: a
/// very long time, never no value (RFC 9111 §1.2.2 asks 2³¹ of a cache).
enum DeltaSeconds {
  /// The cap of a cache's ages: 2³¹ seconds (RFC 9111 §1.2.2).
  static let cacheCap: TimeInterval = 2_147_483_648

  /// The seconds, at most `cap`; nil unless `text` is digits only.
  static func parse(_ text: some StringProtocol, cap: TimeInterval) -> TimeInterval? {
    guard !text.isEmpty,
      text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
    else { return nil }
    return Int64(text).map { min(TimeInterval($0), cap) } ?? cap
  }
}

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7) for `Expires`, `Date`,
/// `Last-Modified` and `Retry-After`.
enum HTTPDate {
  /// The date, or nil when `text` is none of the three forms HTTP allows.
  ///
  /// The obsolete RFC 850 form's two-digit year is the one within 50 years after `now` or
  /// less than 50 years before it (RFC 9110 §5.6.7: a year that "appears to be more than 50
  /// years in the future" is in the past), not Foundation's default window of 80 years back.
  static func parse(_ text: String, now: Date = Date()) -> Date? {
    let formats = [
      "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "GMT") ?? calendar.timeZone
    let twoDigitStart = calendar.date(byAdding: .year, value: -50, to: now)
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    for format in formats {
      let formatter = DateFormatter()
      formatter.calendar = calendar
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = calendar.timeZone
      formatter.dateFormat = format
      formatter.twoDigitStartDate = twoDigitStart
      if let date = formatter.date(from: trimmed) { return date }
    }
    return nil
  }
}

/// The one splitter for header values that hold lists (`Link`, `RateLimit`): `separator`s inside
/// a quoted string (with `\` escapes) or inside `<…>` do not split; parts are trimmed and empty
/// parts dropped.
enum HeaderList {
  static func split(_ value: Substring, on separator: Character) -> [Substring] {
    var parts: [Substring] = []
    var start = value.startIndex
    var index = value.startIndex
    var quoted = false
    var bracketed = false
    while index < value.endIndex {
      let character = value[index]
      if quoted {
        if character == "\\" {
          index = value.index(after: index)
          if index == value.endIndex { break }
        } else if character == "\"" {
          quoted = false
        }
      } else if character == "\"" {
        quoted = true
      } else if character == "<" {
        bracketed = true
      } else if character == ">" {
        bracketed = false
      } else if character == separator && !bracketed {
        parts.append(value[start..<index])
        start = value.index(after: index)
      }
      index = value.index(after: index)
    }
    parts.append(value[start..<value.endIndex])
    return parts.map { $0.trimmingCharacters(in: .whitespaces)[...] }.filter { !$0.isEmpty }
  }

  /// A parameter's value without its quotes and escapes (`"a\"b"` is `a"b`); a token as it is.
  static func unquoted(_ value: Substring) -> String {
    let value = value.trimmingCharacters(in: .whitespaces)
    guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
    var text = ""
    var escaped = false
    for character in value.dropFirst().dropLast() {
      if escaped || character != "\\" {
        text.append(character)
        escaped = false
      } else {
        escaped = true
      }
    }
    return text
  }

  /// `name=value` (`value` unquoted), or `name` alone with a nil value; the name lower-cased.
  static func parameter(_ part: Substring) -> (name: String, value: String?) {
    guard let equals = part.firstIndex(of: "=") else {
      return (part.trimmingCharacters(in: .whitespaces).lowercased(), nil)
    }
    let name = part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
    return (name, unquoted(part[part.index(after: equals)...]))
  }
}
