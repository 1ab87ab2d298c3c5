/// The answers to "what happens to a value that does not fit": one instance per policy, so the
/// decoding code asks questions instead of branching on the policy.
///
/// Every answer that is `true` for `.lenient` produces a report entry where it applies; `.strict`
/// answers `false` to all of them and so behaves like Foundation's `JSONDecoder`.
struct Leniency: Sendable {
  /// A value of another JSON kind converts when nothing is lost (`"18"` → 18); also strings that
  /// hold JSON containers, and a single value where an array is expected. Reported `coerced`.
  let coercesKinds: Bool
  /// An unusable or missing scalar or container where a fallback is allowed takes the declared
  /// initial value or the type's empty value. Reported `defaulted`.
  let fallsBack: Bool
  /// An unusable array element or dictionary value is left out. Reported `dropped`.
  let dropsElements: Bool
  /// A present but unusable value of an Optional becomes nil. Reported `nulled`.
  let nullsOptionals: Bool
  /// An unknown raw value of a `CaseDefaultable` enum takes its default case. Reported `defaulted`.
  let usesDefaultCases: Bool

  static let strict = Leniency(
    coercesKinds: false, fallsBack: false, dropsElements: false, nullsOptionals: false,
    usesDefaultCases: false)
  static let lenient = Leniency(
    coercesKinds: true, fallsBack: true, dropsElements: true, nullsOptionals: true,
    usesDefaultCases: true)

  /// Whether a missing or unusable value at `position` takes a fallback: never a required
  /// value that is missing or null.
  func fallsBack(at position: DecodingPosition) -> Bool {
    fallsBack && position.allowsFallback && (!position.requiresValue || !position.isMissingOrNull)
  }
}

extension Leniency {
  init(_ policy: DecodingPolicy) {
    self = policy == .lenient ? .lenient : .strict
  }
}
