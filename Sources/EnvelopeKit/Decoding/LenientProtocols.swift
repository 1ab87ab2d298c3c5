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
public protocol CaseDefaultable: RawRepresentable, Decodable {
  /// The case a lenient decode falls back to.
  static var defaultCase: Self { get }
}
