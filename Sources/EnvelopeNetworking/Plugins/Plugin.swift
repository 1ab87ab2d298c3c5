import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Hooks around every request, each with a no-op default. The order for one attempt:
///
/// 1. `prepare` (each plugin in order) may change the request: add auth, refresh a token first.
/// 2. `willSend` sees the final request; the provider's line of transports sends it (a stub,
///    the cache or the network answers).
/// 3. The provider validates the HTTP status, then reads the envelope's status
///    (`Response.envelopeStatus`) and decodes the value in one pass: a non-success code is a
///    `.business` failure from here on, and a body whose envelope cannot be read at all (not
///    JSON, cut short) a `.decoding` failure; the value (or why it did not decode) waits.
/// 4. `didReceive` sees the result (response or error).
/// 5. `process` may change the result, e.g. turn a success into a failure.
/// 6. The value decoded in step 3 is the call's when `process` handed on the same body; a body
///    it put in place of another is decoded now. A value's decoding error is thrown here.
/// 7. On failure, `retry` is asked with the attempt count; the first plugin that returns a delay
///    wins, every plugin hears `willRetry`, and the whole sequence runs again.
/// 8. On success, `didDecode` sees the lenient report when it is not empty.
///
/// Every failure reaches `retry` as a `ProviderError`: transport, status, business, envelope,
/// decoding, a plugin's own error (`.underlying`); all but a value's decoding error (which
/// happens after `process`) also reach `didReceive` and `process`. A malformed body is not a
/// value's error: the plugins see it as `.failure(.decoding(_, response:))` and may answer for
/// it, as for a status the target does not accept.
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
  /// Hears a token refresh start and end (`AccessTokenPlugin`), once per refresh however many
  /// requests wait for it.
  ///
  /// - Parameters:
  ///   - refresh: started, or its outcome and duration.
  ///   - target: the endpoint whose expired token started it.
  func didRefreshToken(_ refresh: TokenRefresh, target: any TargetType) async
  /// Hears that a stream (`Provider.lines`, `events`, `elements`) ended: the values it
  /// yielded, how long it ran, its reconnections, and whether it finished, was stopped by its
  /// consumer or failed. The head was heard by `didReceive`.
  ///
  /// - Parameters:
  ///   - summary: the count, duration and ending.
  ///   - target: the endpoint.
  func didFinishStream(_ summary: StreamSummary, target: any TargetType) async
}

/// A token refresh as plugins hear it.
public enum TokenRefresh: Sendable {
  /// The refresh started.
  case started
  /// The refresh succeeded after this long.
  case succeeded(after: Duration)
  /// The refresh failed after this long, with this error.
  case failed(any Error, after: Duration)

  /// Runs `refresh`, telling `plugins` its start and outcome.
  static func observed(
    by plugins: [any Plugin], target: any TargetType,
    _ refresh: @Sendable () async throws -> Void
  ) async throws {
    for plugin in plugins { await plugin.didRefreshToken(.started, target: target) }
    let clock = ContinuousClock()
    let start = clock.now
    do {
      try await refresh()
    } catch {
      let outcome = TokenRefresh.failed(error, after: clock.now - start)
      for plugin in plugins { await plugin.didRefreshToken(outcome, target: target) }
      throw error
    }
    let outcome = TokenRefresh.succeeded(after: clock.now - start)
    for plugin in plugins { await plugin.didRefreshToken(outcome, target: target) }
  }
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
  /// Does nothing.
  public func didRefreshToken(_ refresh: TokenRefresh, target: any TargetType) async {}
  /// Does nothing.
  public func didFinishStream(_ summary: StreamSummary, target: any TargetType) async {}
}
