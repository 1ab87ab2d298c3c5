import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Adds the access token to every target whose `authorization` is not `.none`, and refreshes it
/// when the server says it expired: HTTP 401 (whatever its body), or an envelope code in
/// `expiredCodes`, also when the envelope format maps that code to an error of your own. The code
/// is the one the provider read once for the response (`Response.envelopeStatus`, under the
/// target's or the provider's format); the plugin never parses a body.
///
/// Any number of concurrent requests that fail on an expired token cause one refresh: the first
/// starts it, the others wait for it, and each retries once with the new token; a call whose
/// retry is refused again ends with that failure, without another refresh. A request that
/// failed with a token older than the current one (someone refreshed meanwhile) retries without
/// a new refresh: the plugin compares the `Authorization` the request carried with the current
/// one, as Alamofire's authenticator does.
///
/// A dead refresh token: the refresh fails, and every request waiting for it ends with
/// `ProviderError.authentication` (the refresh's error), without a retry. Nothing is remembered:
/// the next request that finds its token expired starts a new refresh (the failure may have been
/// the network's), so sign the user out when you catch `.authentication`. Each refresh is told to
/// every plugin (`Plugin.didRefreshToken`; `LoggingPlugin` logs its start, outcome and duration).
///
/// A hung refresh: a refresh that has not finished after `refreshTimeout` (60 s by default) is
/// cancelled, and every request waiting for it ends with
/// `ProviderError.authentication(TokenRefreshTimeoutError)`, at once, whether or not the
/// refresh heeds the cancellation. It is forgotten too: the next request that finds its token
/// expired starts a new refresh.
///
/// Login and refresh endpoints say `authorization: .none`: they get no token and are never
/// refreshed, so a dead refresh token cannot recurse.
///
/// ```swift
/// let auth = AccessTokenPlugin(expiredCodes: [1001], token: { await session.token }) {
///   try await session.refresh()
/// }
/// let provider = Provider<API>(plugins: [auth])
/// ```
public struct AccessTokenPlugin: Plugin {
  /// Gives the current token.
  public let token: @Sendable () async throws -> String
  /// Refreshes the token; called once however many requests wait for it.
  public let refresh: @Sendable () async throws -> Void
  /// Business codes that mean "token expired".
  public let expiredCodes: Set<EnvelopeCode>
  /// How long a refresh may take before every call waiting for it fails with
  /// `TokenRefreshTimeoutError` (as `ProviderError.authentication`); `defaultRefreshTimeout`
  /// unless you say.
  public let refreshTimeout: Duration
  /// 60 seconds: as long as one request may stay silent by default (`TargetType.timeout`,
  /// `URLRequest.timeoutInterval`), so a refresh that is one request is not cut short by it.
  public static let defaultRefreshTimeout: Duration = .seconds(60)
  private let refresher = TokenRefresher()
  /// Whether this call had its refresh, kept in the call: the retry carried the refreshed token,
  /// so its expired-token failure is the answer, not a reason for another refresh.
  private let refreshed = CallValueKey<Bool>()

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - expiredCodes: business codes that mean the token expired.
  ///   - refreshTimeout: how long a refresh may take (`defaultRefreshTimeout`, 60 s, by
  ///     default); past it the refresh is cancelled, every call waiting for it fails with
  ///     `ProviderError.authentication(TokenRefreshTimeoutError)`, and the next call may
  ///     refresh again. Zero or less times every refresh out at once; a limit too long for the
  ///     clock to count to (`.seconds(Int64.max)`) is none.
  ///   - token: gives the current token.
  ///   - refresh: refreshes it.
  public init(
    expiredCodes: Set<EnvelopeCode> = [], refreshTimeout: Duration = defaultRefreshTimeout,
    token: @escaping @Sendable () async throws -> String,
    refresh: @escaping @Sendable () async throws -> Void = {}
  ) {
    self.token = token
    self.refresh = refresh
    self.expiredCodes = expiredCodes
    self.refreshTimeout = refreshTimeout
  }

  /// Sets `Authorization` to `Bearer <token>` (or the target's custom scheme).
  public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    guard let header = try await header(for: target) else { return request }
    var request = request
    request.setValue(header, forHTTPHeaderField: "Authorization")
    return request
  }

  /// Refreshes the token (once for all waiting requests) after an expired-token failure; a
  /// refresh that fails becomes `ProviderError.authentication`.
  public func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    guard case .failure(let error) = result, isExpired(error, target) else { return result }
    let call = ProviderCall.current
    guard call?.value(for: refreshed) != true else { return result }
    call?.setValue(true, for: refreshed)
    let carried = error.response?.request?.value(forHTTPHeaderField: "Authorization")
    let plugins = Exchange.current?.plugins ?? []
    do {
      try await refresher.refresh(carried: carried, current: { try await header(for: target) }) {
        [refresh, refreshTimeout] in
        try await TokenRefresh.observed(by: plugins, target: target) {
          try await TokenRefresher.bounded(refresh, by: refreshTimeout)
        }
      }
      return result
    } catch is CancellationError where Task.isCancelled {
      return result  // the call was cancelled while it waited: it ends as a cancelled call
    } catch {
      return .failure(.authentication(error))
    }
  }

  /// Retries once, at once, after an expired-token failure.
  public func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration?
  {
    guard attempt == 1, let error = error as? ProviderError, isExpired(error, target) else {
      return nil
    }
    return .zero
  }

  /// The `Authorization` value for `target`, or nil for `.none`.
  private func header(for target: any TargetType) async throws -> String? {
    switch target.authorization {
    case .none: return nil
    case .bearer: return "Bearer " + (try await token())
    case .custom(let scheme): return scheme + " " + (try await token())
    }
  }

  /// A 401, or an envelope code in `expiredCodes` (as the provider read it), on a target that
  /// carries the token.
  private func isExpired(_ error: ProviderError, _ target: any TargetType) -> Bool {
    guard target.authorization != .none, let response = error.response else { return false }
    if response.statusCode == 401 { return true }
    guard let code = response.envelopeStatus?.code else { return false }
    return expiredCodes.contains(code)
  }
}

/// One refresh at a time, shared by every request that waits for it.
private actor TokenRefresher {
  /// The refresh in flight and its number (`started`).
  private var inFlight: (number: Int, task: Task<Void, any Error>)?
  private var started = 0

  /// Refreshes unless the credential changed since `carried` was sent; joins a refresh in
  /// flight. A caller cancelled while it waits stops waiting at once; the refresh goes on for
  /// the others. It is forgotten when it ends (not when its first caller stops waiting), before
  /// any caller hears its outcome: a call made after that starts a new refresh.
  func refresh(
    carried: String?, current: @Sendable () async throws -> String?,
    run: @escaping @Sendable () async throws -> Void
  ) async throws {
    if let inFlight { return try await Self.wait(for: inFlight.task) }
    let now = try await current()
    // Another request may have started a refresh while `current` ran.
    if let inFlight { return try await Self.wait(for: inFlight.task) }
    guard now == carried else { return }  // refreshed meanwhile: retry with the new token
    started += 1
    let number = started
    let task = Task {
      defer { forget(number) }  // on the actor: before any waiter hears the outcome
      try await run()
    }
    inFlight = (number, task)
    try await Self.wait(for: task)
  }

  /// Forgets refresh `number` if it is still the one in flight.
  private func forget(_ number: Int) {
    if inFlight?.number == number { inFlight = nil }
  }

  /// The longest limit a timer is set for: about 73 billion years, far from the end of the
  /// clock (its deadline is now plus the limit, in 64-bit seconds).
  static let longestLimit: Duration = .seconds(Int64.max / 4)

  /// Runs `work`, for `limit` at most: past it `work` is cancelled and this throws
  /// `TokenRefreshTimeoutError` at once, whether or not `work` heeds the cancellation (a
  /// refresh that never ends runs on, with no one waiting for it).
  ///
  /// A limit of zero or less times `work` out before it starts (whichever task the pool ran
  /// first decided it); a limit past `longestLimit` (`.seconds(Int64.max)`, "never") is no
  /// limit: the clock cannot count to its deadline (`Task.sleep` stops the process).
  static func bounded(_ work: @escaping @Sendable () async throws -> Void, by limit: Duration)
    async throws
  {
    guard limit > .zero else { throw TokenRefreshTimeoutError(timeout: limit) }
    let worker = Task { try await work() }
    let waiter = RefreshWaiter()
    let timer = Task {
      guard limit <= longestLimit else { return }  // no limit: `work`'s outcome alone
      try await Task.sleep(for: limit)  // cancelled (and silent) when `work` ends first
      waiter.resume(with: .failure(TokenRefreshTimeoutError(timeout: limit)))
    }
    Task {
      waiter.resume(with: await worker.result)
      timer.cancel()
    }
    do {
      try await withCheckedThrowingContinuation { waiter.install($0) }
    } catch let error as TokenRefreshTimeoutError {
      worker.cancel()
      throw error
    }
  }

  /// The outcome of `task`, or `CancellationError` as soon as the waiting task is cancelled
  /// (`Task.value` would wait for the refresh to end).
  private static func wait(for task: Task<Void, any Error>) async throws {
    let waiter = RefreshWaiter()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiter.install(continuation)
        Task { waiter.resume(with: await task.result) }
      }
    } onCancel: {
      waiter.resume(with: .failure(CancellationError()))
    }
  }
}

/// One wait for a refresh, resumed once: by the refresh's outcome or by cancellation, whichever
/// comes first.
private final class RefreshWaiter: @unchecked Sendable {
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Void, any Error>?
  private var outcome: Result<Void, any Error>?

  func install(_ continuation: CheckedContinuation<Void, any Error>) {
    lock.lock()
    if let outcome {
      lock.unlock()
      continuation.resume(with: outcome)
      return
    }
    self.continuation = continuation
    lock.unlock()
  }

  func resume(with result: Result<Void, any Error>) {
    lock.lock()
    guard outcome == nil else {
      lock.unlock()
      return
    }
    outcome = result
    let continuation = self.continuation
    self.continuation = nil
    lock.unlock()
    continuation?.resume(with: result)
  }
}
