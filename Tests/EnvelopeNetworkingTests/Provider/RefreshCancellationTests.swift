import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A refresh that hangs until `finish()` (or `seconds`), counting its starts.
actor SlowTokens {
  var token = "stale"
  var refreshes = 0
  private var finished = false
  let seconds: Double

  init(seconds: Double) { self.seconds = seconds }

  func refresh() async throws {
    refreshes += 1
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !finished, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
    token = "fresh"
  }

  /// Lets the refresh end.
  func finish() { finished = true }
}

/// Counts the responses the calls received (`didReceive`, before the token plugin's `process`).
final class ReceivedResponses: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var received = 0
  var count: Int { lock.withLock { received } }

  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    lock.withLock { received += 1 }
  }
}

@Suite(.serialized, .aheadOfTheBacklog) struct RefreshCancellationTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  /// Cancelling a call that waits for a refresh (its own or another call's) ends it at once with
  /// `CancellationError`, not when the refresh is done.
  @Test(arguments: [1, 4])
  func aCallCancelledWhileWaitingForTheRefreshEndsAtOnce(_ calls: Int) async throws {
    let tokens = SlowTokens(seconds: 300)
    let plugin = AccessTokenPlugin(token: { await tokens.token }) { try await tokens.refresh() }
    let received = ReceivedResponses()
    let provider = Provider<AuthTarget>(plugins: [received, plugin])
    let tasks = (0..<calls).map { _ in
      Task { try await provider.request(AuthTarget(), as: User.self) }
    }
    // Every call has had its 401 (`poll`'s rounds at most) and waits for the refresh. (A fixed 200 ms after
    // the refresh started let a loaded machine cancel calls still sending their first request:
    // the test passed without a call cancelled while it waited.) The 200 ms left are for the
    // last one to get from its 401 to the wait; a call cancelled just before ends the same way.
    _ = await poll { await tokens.refreshes > 0 && received.count == calls }
    let refreshes = await tokens.refreshes
    try #require(received.count == calls && refreshes == 1)
    try await Task.sleep(for: .milliseconds(200))
    for task in tasks { task.cancel() }
    // Before the refresh ends: it goes on until the test lets it (five minutes at most), so a
    // call that waited for it would run into `Overran`. (The check was "within 10 s of the
    // cancel" against a 30 s refresh, a clock a full run that holds every thread of the
    // concurrency pool for a minute can push past either.)
    let (results, _) = try await timed(limit: .seconds(100)) {
      var results: [Result<User, any Error>] = []
      for task in tasks { results.append(await task.result) }
      return results
    }
    for result in results {
      #expect(throws: CancellationError.self) { try result.get() }
    }
    #expect(await tokens.token == "stale", "the cancelled calls ended when the refresh was done")
    await tokens.finish()
  }
}
