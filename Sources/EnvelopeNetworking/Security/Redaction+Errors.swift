import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// MARK: - Errors inside other errors' text

extension Redaction {
  /// An error as another error's description or a log line may write it: the one rule for an
  /// error of any type that EnvelopeKit did not write itself (a token refresh's error, a
  /// plugin's, a decoding error).
  ///
  /// Any error's text goes through `scrubbed(_:)`: a `URLError` or `NSError` prints its
  /// `userInfo`, and with it the failing URL (`NSErrorFailingURLKey=https://…?refresh_token=…`,
  /// `https://user:password@…`), whose secrets are then replaced. A `DecodingError` whose coding
  /// path holds a secret field (`token`, `data.password`) is written without its debug
  /// description and underlying error, which may quote the value found there (a
  /// `ValueTransformError`'s `found "…"`), as a report entry on such a path is
  /// (`entry(_:)`).
  ///
  /// - Parameter error: the error.
  /// - Returns: its text, without the secrets.
  func text(of error: any Error) -> String {
    guard let decoding = error as? DecodingError else { return scrubbed("\(error)") }
    let (name, context): (String, DecodingError.Context?)
    switch decoding {
    case .typeMismatch(let type, let found): (name, context) = ("typeMismatch(\(type))", found)
    case .valueNotFound(let type, let found): (name, context) = ("valueNotFound(\(type))", found)
    case .keyNotFound(let key, let found):
      (name, context) = ("keyNotFound(\(key.stringValue))", found)
    case .dataCorrupted(let found): (name, context) = ("dataCorrupted", found)
    @unknown default: (name, context) = ("DecodingError", nil)
    }
    guard let context,
      context.codingPath.contains(where: { $0.intValue == nil && isSecret(field: $0.stringValue) })
    else { return scrubbed("\(error)") }
    let path = context.codingPath.map(\.stringValue).joined(separator: ".")
    return "DecodingError.\(name) at \(path): \(Self.placeholder)"
  }
}
