import Foundation

/// A token refresh (`AccessTokenPlugin`'s `refresh`) that did not finish within the plugin's
/// `refreshTimeout`. Every call that waited for it ends with
/// `ProviderError.authentication(TokenRefreshTimeoutError)`, without a retry; the refresh is
/// cancelled and forgotten, so the next call that finds its token expired starts a new one.
public struct TokenRefreshTimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
  /// How long the refresh was given.
  public var timeout: Duration

  /// Creates the error.
  ///
  /// - Parameter timeout: how long the refresh was given.
  public init(timeout: Duration) { self.timeout = timeout }

  /// `the token refresh did not finish within 60.0 seconds (it was cancelled; the next call
  /// that finds its token expired refreshes again)`.
  public var description: String {
    "the token refresh did not finish within \(timeout) (it was cancelled; the next call that "
      + "finds its token expired refreshes again)"
  }
}
