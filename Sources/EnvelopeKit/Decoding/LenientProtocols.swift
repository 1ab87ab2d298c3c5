/// A model whose declared initial values are its lenient fallbacks.
///
/// When a property of such a type is missing or unusable, the lenient decoder takes the value
/// that `init()` gives it instead of the type's empty value, and reports `defaulted`.
///
/// ```swift
/// struct Settings: Codable, LenientDecodable {
///   var pageSize = 20
///   var theme = "light"
/// }
/// // {"pageSize": "lots"} decodes as pageSize 20, theme "light", with two report entries.
/// ```
public protocol LenientDecodable: Decodable {
  /// The value whose properties are the fallbacks.
  init()
}

/// An enum that names the case to use for an unknown, missing or unusable raw value.
///
/// ```swift
/// enum Role: String, Codable, CaseDefaultable {
///   case admin, member, unknown
///   static let defaultCase = Role.unknown
/// }
/// ```
///
/// To keep the raw value a lenient decode replaced, so that encoding writes back what the
/// server sent, give the type a case that carries it and return it from
/// ``defaultCase(for:)``:
///
/// ```swift
/// enum Plan: Codable, Hashable, CaseDefaultable {
///   case free, pro, other(String)
///   init?(rawValue: String) {
///     switch rawValue {
///     case "free": self = .free
///     case "pro": self = .pro
///     default: return nil
///     }
///   }
///   var rawValue: String {
///     switch self {
///     case .free: "free"
///     case .pro: "pro"
///     case .other(let raw): raw
///     }
///   }
///   static let defaultCase = Plan.other("")
///   static func defaultCase(for rawValue: String) -> Plan { .other(rawValue) }
/// }
/// // {"plan": "team"} decodes as .other("team"), reported `defaulted`; encoding writes "team".
/// ```
public protocol CaseDefaultable: RawRepresentable, Decodable {
  /// The case a lenient decode falls back to.
  static var defaultCase: Self { get }

  /// The case a lenient decode falls back to when the JSON held a raw value of the right type
  /// that names no case (`"team"` for a plan of `free` or `pro`). The default is
  /// ``defaultCase``; a type with a case that carries its raw value keeps it here.
  ///
  /// A raw value read with a coercion (`3` for a `String` raw value) is passed as coerced
  /// (`"3"`). The replacement is reported `defaulted` either way, with the raw value found.
  static func defaultCase(for rawValue: RawValue) -> Self
}

extension CaseDefaultable {
  /// ``defaultCase``, whatever the raw value.
  public static func defaultCase(for rawValue: RawValue) -> Self { defaultCase }
}
