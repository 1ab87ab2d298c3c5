import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Retries failed attempts with exponential backoff and jitter (Alamofire's `RetryPolicy`, Get's
/// `shouldRetry`).
///
/// By default it retries idempotent methods only (GET, HEAD, PUT, DELETE, OPTIONS, TRACE), after
/// a transport error (timed out, connection lost, cannot connect) or a 408, 429, 500, 502, 503 or
/// 504, at most `maxAttempts` attempts in all, waiting `baseDelay × 2ⁿ` with jitter (between half
/// and all of it) and never more than `maxDelay` in total for one call. A `Retry-After` on a 429
/// or 503 (seconds or an HTTP date) is the wait instead; when it is longer than what is left of
/// `maxDelay`, the call fails at once with the server's answer. A business failure is never
/// retried unless its code is in `businessCodes`. Every retry is heard by each plugin's
/// `willRetry` (and logged by `LoggingPlugin`).
///
/// Rate limits are honoured with no setting: a rate-limited answer (``Response/isRateLimited``:
/// a 429, or a 403 whose quota is spent, `X-RateLimit-Remaining: 0`; any other 403 is not
/// retried) is retried when the server says it may be (``Response/retryAfter``: `Retry-After`,
/// the IETF `RateLimit` field's `t=` or `reset=`, `X-RateLimit-Reset` in epoch seconds), or
/// after the backoff when it does not say. A reset further away than what is left of `maxDelay`
/// fails the call at once; its error's ``ProviderError/retryAfter`` tells your app when to try
/// again.
///
/// ```swift
/// let provider = Provider<API>(plugins: [RetryPolicy(maxAttempts: 4), LoggingPlugin()])
/// ```
public struct RetryPolicy: Plugin {
  /// GET, HEAD, PUT, DELETE, OPTIONS and TRACE: the methods a retry cannot repeat the effect of.
  public static let idempotentMethods: Set<String> = [
    "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE",
  ]
  /// The transport errors retried when `retriesTransportErrors` is set.
  public static let retriedTransportErrors: Set<URLError.Code> = [
    .timedOut, .networkConnectionLost, .cannotConnectToHost,
  ]

  /// The most attempts of one call, the first included.
  public let maxAttempts: Int
  /// The wait before the first retry; doubled for each one after.
  public let baseDelay: Duration
  /// The most waiting for one call, all retries together.
  public let maxDelay: Duration
  /// The methods retried (upper-case).
  public let methods: Set<String>
  /// The HTTP statuses retried.
  public let statusCodes: Set<Int>
  /// Whether transport errors in `retriedTransportErrors` are retried.
  public let retriesTransportErrors: Bool
  /// Business codes retried (none by default: a business failure is the server's answer).
  public let businessCodes: Set<EnvelopeCode>
  /// Whether a rate-limited answer (``Response/isRateLimited``) is retried when its reset comes,
  /// whatever `statusCodes` holds.
  public let retriesRateLimits: Bool
  /// The waiting this policy asked for so far, kept in the call (gone when the call ends).
  private let waited = CallValueKey<Duration>()

  /// Creates a policy. Values out of range are clamped: fewer than one attempt is one, a
  /// negative delay is zero.
  ///
  /// - Parameters:
  ///   - maxAttempts: the most attempts, the first included.
  ///   - baseDelay: the wait before the first retry.
  ///   - maxDelay: the most waiting for one call.
  ///   - methods: the methods retried.
  ///   - statusCodes: the statuses retried.
  ///   - retriesTransportErrors: whether transport errors are retried.
  ///   - businessCodes: business codes retried.
  ///   - retriesRateLimits: whether rate-limited answers are retried at their reset.
  public init(
    maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200),
    maxDelay: Duration = .seconds(30), methods: Set<String> = RetryPolicy.idempotentMethods,
    statusCodes: Set<Int> = [408, 429, 500, 502, 503, 504], retriesTransportErrors: Bool = true,
    businessCodes: Set<EnvelopeCode> = [], retriesRateLimits: Bool = true
  ) {
    self.maxAttempts = max(1, maxAttempts)
    self.baseDelay = max(.zero, baseDelay)
    self.maxDelay = max(.zero, maxDelay)
    self.methods = Set(methods.map { $0.uppercased() })
    self.statusCodes = statusCodes
    self.retriesTransportErrors = retriesTransportErrors
    self.businessCodes = businessCodes
    self.retriesRateLimits = retriesRateLimits
  }

  /// The wait before the next attempt, or nil when this failure is not retried.
  public func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration?
  {
    guard attempt < maxAttempts, methods.contains(target.method.rawValue),
      let error = error as? ProviderError, let wanted = delay(after: error, attempt: attempt)
    else { return nil }
    let call = ProviderCall.current
    let total = call?.value(for: waited) ?? .zero
    guard wanted <= maxDelay - total else { return nil }
    call?.setValue(total + wanted, for: waited)
    return wanted
  }

  /// The wait this failure asks for (before `maxAttempts`, the method and `maxDelay` are
  /// considered), or nil when its kind is not retried.
  ///
  /// - Parameters:
  ///   - error: the failure.
  ///   - attempt: 1 for the first attempt.
  ///   - now: the time a `Retry-After` date or a rate limit's reset is measured from.
  /// - Returns: the backoff with jitter, the time until a rate limit's reset, the `Retry-After`
  ///   of a 429 or 503, or nil.
  public func delay(after error: ProviderError, attempt: Int, now: Date = Date()) -> Duration? {
    if retriesRateLimits, let response = Self.rateLimited(error) {
      guard let date = response.retryAfter(now: now) else { return backoff(attempt: attempt) }
      return Self.wait(until: date, now: now)
    }
    switch error {
    case .transport(let error):
      guard retriesTransportErrors, Self.retriedTransportErrors.contains(error.code) else {
        return nil
      }
    case .business(let code, _, _):
      guard businessCodes.contains(code) else { return nil }
    case .status(let response):
      guard statusCodes.contains(response.statusCode) else { return nil }
      if [429, 503].contains(response.statusCode),
        let date = response.header("Retry-After").flatMap({
          RateLimitFields.retryAfter($0, now: now)
        })
      {
        return Self.wait(until: date, now: now)
      }
    default:
      return nil
    }
    return backoff(attempt: attempt)
  }

  /// `baseDelay × 2^(attempt - 1)`, between half and all of it, at most `maxDelay`.
  private func backoff(attempt: Int) -> Duration {
    let full = min(maxDelay.seconds, baseDelay.seconds * pow(2, Double(min(attempt - 1, 62))))
    let jittered = full / 2 + Double.random(in: 0...1) * full / 2
    return .milliseconds(Int64(jittered * 1000))
  }

  /// The response of a failure refused for a rate limit (an HTTP status, or a business failure
  /// sent with a 429), else nil.
  private static func rateLimited(_ error: ProviderError) -> Response? {
    switch error {
    case .status(let response), .business(_, _, let response):
      return response.isRateLimited ? response : nil
    default:
      return nil
    }
  }

  /// The time from `now` until `date` (zero for a date passed), in whole milliseconds rounded
  /// up, so that a retry never comes before the server's time.
  static func wait(until date: Date, now: Date) -> Duration {
    let seconds = max(0, min(date.timeIntervalSince(now), Timeout.longest))
    return .milliseconds(Int64((seconds * 1000).rounded(.up)))
  }
}
