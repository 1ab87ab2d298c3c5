import EnvelopeKit
import Foundation

/// The Swift type for the booleans, numbers and strings seen at one key, chosen by asking the
/// library itself: a date is what `ValueTransform`'s date transforms read, a URL what the strict
/// decoder reads as one, and for samples that disagree in kind (`"18"` and `18`), the first type
/// the lenient decoder reads every sample as.
struct ScalarType: Equatable {
  /// `Int`, `Date`, `URL`, …
  var name: String
  /// The built-in transform that reads it (`.iso8601`), when the type needs one.
  var transform: String?
  /// Set when the samples disagree in kind: what they were and how they are read.
  var disagreement: String?
  /// Why a type was not the obvious one, for a comment.
  var note: String?

  /// Dates read from numbers in this range of seconds (2000 to 2100) count as dates.
  static let plausibleSeconds: ClosedRange<Double> = 946_684_800...4_102_444_800

  /// Last words of a key that name a point in time: `created_at`, `updateTime`, `ts`.
  static let timeWords: Set<String> = ["at", "time", "timestamp", "date", "datetime", "ts"]

  /// The type for `values` (at least one) found at `key` (nil at the top level); `direct` when
  /// they are the key's own
  /// values (not an array's elements), where a date transform can apply.
  static func choose(for values: [JSON], key: String?, direct: Bool) -> ScalarType {
    if direct, let key, let transform = epochTransform(values, key: key) {
      return ScalarType(name: "Date", transform: transform)
    }
    var kinds: [String] = []
    for value in values where !kinds.contains(value.kindName) { kinds.append(value.kindName) }
    if kinds.count == 1 {
      switch values[0] {
      case .bool: return ScalarType(name: "Bool")
      case .number: return number(values)
      default: return string(values, direct: direct)
      }
    }
    // Samples disagree: the first type the lenient decoder reads each of them as.
    var examples: [String] = []
    for kind in kinds {
      if let value = values.first(where: { $0.kindName == kind }) {
        examples.append(value.snippet(limit: 24))
      }
    }
    let candidates: [(String, (JSON) -> Bool)] =
      (kinds.contains("bool") ? [("Bool", { reads(Bool.self, $0) })] : [])
      + [
        ("Int", { reads(Int.self, $0) }), ("Double", { reads(Double.self, $0) }),
        ("String", { reads(String.self, $0) }),
      ]
    let list = examples.joined(separator: ", ")
    for (name, readsValue) in candidates where values.allSatisfy(readsValue) {
      return ScalarType(
        name: name,
        disagreement: "\(samples(of: key)) disagree: \(list). Read as \(name): the "
          + "lenient policy coerces and reports each; the strict one rejects them.")
    }
    return ScalarType(
      name: "JSON",
      disagreement: "\(samples(of: key)) disagree: \(list). Kept as JSON.")
  }

  /// `Samples of "user_id"`, or `Samples at the top level`: how a comment names them (the
  /// model check reads it).
  private static func samples(of key: String?) -> String {
    key.map { "Samples of \(Names.literal($0))" } ?? "Samples at the top level"
  }

  /// `Int` when every number is an integer that fits, `UInt64` for larger ones, else `Double`.
  private static func number(_ values: [JSON]) -> ScalarType {
    let numbers = values.compactMap(\.numberValue)
    if numbers.allSatisfy({ $0.int64Value != nil }) { return ScalarType(name: "Int") }
    if numbers.allSatisfy({ $0.uint64Value != nil }) { return ScalarType(name: "UInt64") }
    if let huge = numbers.first(where: { !($0.doubleValue?.isFinite ?? false) }) {
      return ScalarType(
        name: "JSON", note: "\(huge.text) is beyond Double: kept as JSON, which keeps its text.")
    }
    return ScalarType(name: "Double")
  }

  /// `Date` for ISO 8601 dates, `URL` for web addresses, else `String`.
  private static func string(_ values: [JSON], direct: Bool) -> ScalarType {
    if direct, values.allSatisfy({ (try? ValueTransform<Date>.iso8601.read($0)) != nil }) {
      return ScalarType(name: "Date", transform: ".iso8601")
    }
    if values.allSatisfy(isWebAddress) { return ScalarType(name: "URL") }
    return ScalarType(name: "String")
  }

  /// `.secondsSince1970` or `.millisecondsSince1970` when the key names a time and every value
  /// is a number (or a string holding one) in the plausible range for that unit.
  private static func epochTransform(_ values: [JSON], key: String) -> String? {
    guard timeWords.contains(Names.lastWord(key).lowercased()) else {
      return nil
    }
    let numbers = values.map { value -> Double? in
      switch value {
      case .number(let number): return number.doubleValue
      case .string(let text): return JSONNumber(text)?.doubleValue
      default: return nil
      }
    }
    if numbers.allSatisfy({ $0.map(plausibleSeconds.contains) ?? false }) {
      return ".secondsSince1970"
    }
    if numbers.allSatisfy({ $0.map { plausibleSeconds.contains($0 / 1000) } ?? false }) {
      return ".millisecondsSince1970"
    }
    return nil
  }

  /// An absolute http(s) address that the strict decoder reads as a `URL`.
  private static func isWebAddress(_ value: JSON) -> Bool {
    guard let url = try? LenientDecoder(policy: .strict).decode(URL.self, from: value),
      let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      url.host?.isEmpty == false
    else { return false }
    return true
  }

  /// Whether the lenient decoder reads `value` as `type`, as it is or by a coercion without
  /// loss (not by falling back to a default).
  private static func reads<T: Decodable>(_ type: T.Type, _ value: JSON) -> Bool {
    guard let decoded = try? LenientDecoder().decodeWithReport(T.self, from: value) else {
      return false
    }
    return decoded.report.entries.allSatisfy { $0.kind == .coerced }
  }
}
