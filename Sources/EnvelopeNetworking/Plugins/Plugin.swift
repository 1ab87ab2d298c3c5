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
///    wins, every plugin hears `willRetry`, and the whole sequence runs again.
/// 6. On success, `didDecode` sees the lenient report when it is not empty.
///
/// Every failure of an attempt reaches `didReceive`, `process` and `retry` as a `ProviderError`:
/// transport, status, business, envelope, decoding, a plugin's own error (`.underlying`).
/// `ProviderCall.current` tells which call and attempt a hook runs for.
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
  /// Hears that a plugin asked for another attempt.
  ///
  /// - Parameters:
  ///   - error: the failure.
  ///   - target: the endpoint.
  ///   - attempt: the attempt about to start (2 for the first retry).
  ///   - delay: the wait before it.
  func willRetry(after error: ProviderError, target: any TargetType, attempt: Int, delay: Duration)
    async
  /// Sees the lenient report of a decoded response when it is not empty, so drift in a
  /// production API is observable.
  ///
  /// - Parameters:
  ///   - report: the coercions and fallbacks.
  ///   - target: the endpoint.
  ///   - response: the response decoded.
  func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async
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
  /// Does nothing.
  public func willRetry(
    after error: ProviderError, target: any TargetType, attempt: Int, delay: Duration
  ) async {}
  /// Does nothing.
  public func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async
  {}
}
