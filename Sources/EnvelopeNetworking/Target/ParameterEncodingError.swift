import Foundation

/// A parameter of ``RequestTask/parameters(_:encoding:)`` whose value cannot be encoded: the
/// request fails before anything is sent (the provider throws it as
/// `ProviderError.underlying(_:response: nil)`).
///
/// ```swift
/// .parameters(["since": Date()], encoding: .url)
/// // Cannot encode the parameter "since": a Date has no single text form;
/// // pass a String (e.g. ISO 8601) or a number of seconds instead.
/// ```
public struct ParameterEncodingError: Error, Sendable, Hashable, CustomStringConvertible,
  LocalizedError
{
  /// The parameter, as its key is written: `since`, `filter[since]`, `dates[0]`.
  public var key: String
  /// The type of the value, e.g. `Date`.
  public var valueType: String
  /// Why it cannot be encoded, and what to pass instead.
  public var reason: String

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - key: the parameter, as its key is written.
  ///   - valueType: the value's type.
  ///   - reason: why it cannot be encoded.
  public init(key: String, valueType: String, reason: String) {
    self.key = key
    self.valueType = valueType
    self.reason = reason
  }

  /// `Cannot encode the parameter "since": …`.
  public var description: String { "Cannot encode the parameter \"\(key)\": \(reason)" }

  /// The same text as ``description``.
  public var errorDescription: String? { description }
}
