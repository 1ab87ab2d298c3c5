import EnvelopeKit

/// `--enums`: a string key with a small closed set of values across the samples, as an enum
/// with a case per value and an `unknown` case that lenient decoding falls back to
/// (`CaseDefaultable`, reported `defaulted`); strict decoding rejects a value the samples do not
/// show.
struct StringEnum {
  struct Case: Hashable {
    /// `inProgress`.
    var name: String
    /// `"in_progress"`.
    var value: String
  }

  /// Distinct values past which the strings stay `String`.
  static let maxCases = 10
  /// Values longer than this are not names of cases.
  static let maxLength = 40

  var name: String
  var cases: [Case]
  /// How many values the samples hold.
  var seen: Int
  /// The fallback case's name: `unknown`, or the case whose value is `"unknown"`.
  var unknown: String

  /// The enum for `values` (every sample of one key), or nil when they are not a small closed
  /// set: 1 to ``maxCases`` short distinct strings, each seen twice on average.
  init?(name: String, values: [JSON]) {
    var distinct: [String] = []
    for value in values {
      guard case .string(let text) = value, text.count <= Self.maxLength else { return nil }
      if !distinct.contains(text) { distinct.append(text) }
      if distinct.count > Self.maxCases { return nil }
    }
    guard !distinct.isEmpty, values.count >= 2 * distinct.count else { return nil }
    self.name = name
    seen = distinct.count
    var names: Set<String> = []
    var cases: [Case] = []
    var unknown: String?
    for value in distinct {
      let base = Names.propertyName(value)
      var caseName = base
      var number = 2
      while !names.insert(caseName).inserted {
        caseName = base + String(number)
        number += 1
      }
      if value == "unknown" { unknown = caseName }
      cases.append(Case(name: caseName, value: value))
    }
    if unknown == nil {
      var caseName = "unknown"
      var number = 2
      while names.contains(caseName) {
        caseName = "unknown" + String(number)
        number += 1
      }
      cases.append(Case(name: caseName, value: caseName))
      unknown = caseName
    }
    self.cases = cases
    self.unknown = unknown ?? "unknown"
  }

  /// The enum's lines at most `width` long where they can be broken.
  func lines(options: ModelWriter.Options, origin: String, width: Int) -> [String] {
    let access = options.isPublic ? "public " : ""
    var lines = ModelWriter.wrap(
      "\(origin) hold \(seen) "
        + "values (--enums): any other is `\(unknown)` in the lenient policy (reported "
        + "`defaulted`) and an error in the strict one.",
      prefix: "// ", width: width)
    if options.isPublic { lines.append("/// A closed set of values (--enums).") }
    lines.append(
      contentsOf: ModelWriter.fitted(
        width: width, "\(access)enum \(name): String, Codable, Sendable, CaseDefaultable {"))
    for item in cases {
      if options.isPublic { lines.append("  /// \(Names.literal(item.value)).") }
      lines.append(
        contentsOf: ModelWriter.rawCase(item.name, raw: item.value, indent: "  ", width: width))
    }
    lines.append("")
    if options.isPublic { lines.append("  /// The case for a value the samples do not show.") }
    lines.append("  \(access)static let defaultCase = \(name).\(Names.escaped(unknown))")
    lines.append("}")
    return lines
  }
}
