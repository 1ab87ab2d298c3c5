import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Hooks around every request, each with a no-op default. The order for one attempt:
///
/// 1. `prepare` (each plugin in order) may change the request: add auth, refresh a token first.
/// 2. `willSend` sees the final request.
/// 3. `didReceive` sees the raw result (response or error).
/// 4. `process` may change the result, e.g. turn a success into a failure.
/// 5. On failure, `retry` is asked with the attempt count; the first plugin that returns a delay
///    wins and the whole sequence runs again.
public protocol Plugin: Sendable {
  /// Changes the request before it is sent.
  ///
  /// - Parameters:
  ///   - request: the request so far.
  ///   - target: the endpoint.
  /// - Returns: the request to send.
  /// - Throws: any error, which fails the call.
  func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest
  /// Sees the request about to be sent.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - target: the endpoint.
  func willSend(_ request: URLRequest, target: any TargetType) async
  /// Sees the raw result.
  ///
  /// - Parameters:
  ///   - result: the response or the error.
  ///   - target: the endpoint.
  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async
  /// Changes the result.
  ///
  /// - Parameters:
  ///   - result: the result so far.
  ///   - target: the endpoint.
  /// - Returns: the result to hand on.
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  /// Decides whether to try again after a failure.
  ///
  /// - Parameters:
  ///   - error: the failure (transport, status, business or decoding).
  ///   - target: the endpoint.
  ///   - attempt: 1 for the first attempt.
  /// - Returns: the delay before the next attempt, or nil for no retry.
  func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration?
}

extension Plugin {
  /// Returns the request unchanged.
  public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    request
  }
  /// Does nothing.
  public func willSend(_ request: URLRequest, target: any TargetType) async {}
  /// Does nothing.
  public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {}
  /// Returns the result unchanged.
  public func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  { result }
  /// Never retries.
  public func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration?
  {
    nil
  }
}

/// Adds `Authorization: Bearer <token>` and, when the server says the token expired (HTTP 401 or
/// a business code you name), refreshes it and retries once.
public struct AccessTokenPlugin: Plugin {
  /// Gives the current token.
  public let token: @Sendable () async throws -> String
  /// Refreshes the token; called before the single retry.
  public let refresh: @Sendable () async throws -> Void
  /// Business codes that mean "token expired".
  public let expiredCodes: Set<EnvelopeCode>

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - expiredCodes: business codes that mean the token expired.
  ///   - token: gives the current token.
  ///   - refresh: refreshes it.
  public init(
    expiredCodes: Set<EnvelopeCode> = [],
    token: @escaping @Sendable () async throws -> String,
    refresh: @escaping @Sendable () async throws -> Void = {}
  ) {
    self.token = token
    self.refresh = refresh
    self.expiredCodes = expiredCodes
  }

  /// Sets the Authorization header.
  public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    var request = request
    request.setValue("Bearer \(try await token())", forHTTPHeaderField: "Authorization")
    return request
  }

  /// Refreshes and retries once after a 401 or an expired-token code.
  public func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration?
  {
    guard attempt == 1 else { return nil }
    switch error {
    case ProviderError.status(let response) where response.statusCode == 401: break
    case ProviderError.business(let code, _, _) where expiredCodes.contains(code): break
    default: return nil
    }
    do {
      try await refresh()
      return .zero
    } catch {
      return nil
    }
  }
}
