import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A refresh that asks the loopback server's refresh endpoint (`/shared` with a gate: it holds
/// its answer until released, five minutes at most) while `hangs`, and hands out "fresh" at
/// once when not.
actor HeldRefresh {
  var token = "stale"
  var refreshes = 0
  var hangs = true
  let id = uniqueID()

  func refresh() async throws {
    refreshes += 1
    if hangs {
      var endpoint = Route("/shared", ["id": id, "gate": "1", "seconds": "300"])
      endpoint.timeout = 300  // silent for as long as the server holds: no idle timeout first
      _ = try await Provider<Route>().response(endpoint)
    }
    token = "fresh"
  }

  func stopHanging() { hangs = false }
}

@Suite(.serialized, .aheadOfTheBacklog) struct RefreshTimeoutTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  /// Whether `result` is the failure of a refresh that timed out after `timeout`.
  static func timedOut(_ result: Result<User, any Error>, _ timeout: Duration) -> Bool {
    guard case .failure(ProviderError.authentication(let error)) = result else { return false }
    return (error as? TokenRefreshTimeoutError) == TokenRefreshTimeoutError(timeout: timeout)
  }

  /// Calls waiting on a refresh whose endpoint never answers all end with
  /// `.authentication(TokenRefreshTimeoutError)` (while the endpoint still holds: the server is
  /// never released), the hung refresh is cancelled (its request hung up on), and the next call
  /// refreshes again and succeeds. Every refresh of the first round hangs, so a call whose 401
  /// comes after the first refresh timed out (a loaded machine) starts one that times out too:
  /// the outcome does not depend on timing.
  @Test(arguments: [1, 4])
  func aHungRefreshEndsEveryWaitingCallAndTheNextCallRefreshesAgain(_ calls: Int) async throws {
    let held = HeldRefresh()
    let timeout = Duration.seconds(2)
    let plugin = AccessTokenPlugin(refreshTimeout: timeout, token: { await held.token }) {
      try await held.refresh()
    }
    let provider = Provider<AuthTarget>(plugins: [plugin])
    let tasks = (0..<calls).map { _ in
      Task { try await provider.request(AuthTarget(), as: User.self) }
    }
    // Without a timeout of its own the refresh waits for the server's five minutes.
    let (results, _) = try await timed(limit: .seconds(120)) {
      var results: [Result<User, any Error>] = []
      for task in tasks { results.append(await task.result) }
      return results
    }
    for result in results {
      #expect(Self.timedOut(result, timeout), "\(result)")
    }
    let started = await held.refreshes
    #expect(started >= 1 && started <= calls)
    #expect(await held.token == "stale", "a refresh finished: the calls did not time out")
    // Each hung refresh was cancelled: the client hung up on every request the server held
    // (a refresh cancelled before its request went out asked nothing).
    let hungUpOn = try await poll {
      let asked = try await hits("shared" + held.id).count
      let aborted = try await hits("shared-aborted" + held.id).count
      return asked <= started && asked == aborted
    }
    #expect(hungUpOn, "a timed-out refresh's request was left running")
    // Nothing is remembered: the next call refreshes again, and succeeds.
    await held.stopHanging()
    let user = try await provider.request(AuthTarget(), as: User.self)
    #expect(user == User(id: 1, name: "Ada"))
    #expect(await held.refreshes == started + 1)
  }

  /// A refresh that ignores cancellation (it never looks) still ends the waiting call at the
  /// timeout; the refresh itself may run on, without anyone waiting for it.
  @Test func aRefreshThatIgnoresCancellationStillEndsTheWaitingCalls() async throws {
    let tokens = SlowTokens(seconds: 300)
    let timeout = Duration.milliseconds(500)
    let plugin = AccessTokenPlugin(refreshTimeout: timeout, token: { await tokens.token }) {
      try await tokens.refresh()
    }
    let provider = Provider<AuthTarget>(plugins: [plugin])
    let (result, _) = try await timed(limit: .seconds(120)) {
      await Result { try await provider.request(AuthTarget(), as: User.self) }
    }
    #expect(Self.timedOut(result, timeout), "\(result)")
    #expect(await tokens.token == "stale")
    await tokens.finish()
  }

  /// A limit too long for the clock (`.seconds(Int64.max)`, as one writes "never") is no
  /// limit: the refresh runs and the call succeeds. The timer's deadline overflowed the clock
  /// and stopped the process.
  @Test func aLimitTooLongForTheClockLetsTheRefreshFinish() async throws {
    let held = HeldRefresh()
    await held.stopHanging()
    let plugin = AccessTokenPlugin(refreshTimeout: .seconds(Int64.max), token: { await held.token })
    {
      try await held.refresh()
    }
    let provider = Provider<AuthTarget>(plugins: [plugin])
    let user = try await provider.request(AuthTarget(), as: User.self)
    #expect(user == User(id: 1, name: "Ada"))
    #expect(await held.refreshes == 1)
  }

  /// A limit of zero or less times every refresh out at once, as documented, however fast the
  /// refresh would be: the outcome does not depend on which task the pool runs first.
  @Test(arguments: [Duration.zero, .seconds(-1)])
  func aLimitOfZeroOrLessTimesEveryRefreshOut(_ timeout: Duration) async throws {
    for _ in 0..<5 {
      let held = HeldRefresh()
      await held.stopHanging()
      let plugin = AccessTokenPlugin(refreshTimeout: timeout, token: { await held.token }) {
        try await held.refresh()
      }
      let provider = Provider<AuthTarget>(plugins: [plugin])
      let result = await Result { try await provider.request(AuthTarget(), as: User.self) }
      #expect(Self.timedOut(result, timeout), "\(result)")
      #expect(await held.token == "stale")
    }
  }

  /// The default bounds a refresh as one request is bounded, and the error says what happened.
  @Test func theDefaultTimeoutIsSixtySecondsAndTheErrorSaysSo() {
    let plugin = AccessTokenPlugin(token: { "t" })
    #expect(plugin.refreshTimeout == .seconds(60))
    #expect(AccessTokenPlugin.defaultRefreshTimeout == .seconds(60))
    let error = ProviderError.authentication(TokenRefreshTimeoutError(timeout: .seconds(60)))
    #expect("\(error)".contains("token refresh did not finish within 60.0 seconds"), "\(error)")
  }
}
