import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A token that refreshes to a new value the server still rejects (`/auth401` takes only
/// `Bearer fresh`), counting refreshes. The refresh ends once `sent` has seen `calls` requests
/// go out (`poll`'s rounds at most): every call's first request then carries the token the refresh
/// replaces, however late a loaded machine starts a call. (With a fixed 20 ms, a call whose
/// first request went out after the refresh carried the new token, got its 401 and rightly
/// refreshed again: two refreshes, the test failed.)
actor RejectedTokens {
  var token = "stale-0"
  var refreshes = 0
  let calls: Int
  let sent: SentRequests

  init(calls: Int, sent: SentRequests) {
    self.calls = calls
    self.sent = sent
  }

  func refresh() async throws {
    refreshes += 1
    // Rounds, as `poll` counts them (a held concurrency pool spends none).
    for _ in 0..<3000 where sent.count < calls { try? await Task.sleep(for: .milliseconds(10)) }
    token = "stale-\(refreshes)"
  }
}

/// Counts the requests that go out (`willSend`, after every `prepare`).
final class SentRequests: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var sent = 0
  var count: Int { lock.withLock { sent } }

  func willSend(_ request: URLRequest, target: any TargetType) async {
    lock.withLock { sent += 1 }
  }
}

@Suite(.serialized) struct RefreshStillRejectedTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  /// A refresh that succeeds but whose token gets a 401 again: the call ends with that 401
  /// after one refresh, not a second one for the retry's 401 (each call refreshes at most once).
  @Test(arguments: [1, 8])
  func aTokenStillRejectedAfterItsRefreshIsRefreshedOncePerCall(_ calls: Int) async throws {
    let sent = SentRequests()
    let tokens = RejectedTokens(calls: calls, sent: sent)
    let plugin = AccessTokenPlugin(token: { await tokens.token }) { try await tokens.refresh() }
    let provider = Provider<AuthTarget>(plugins: [plugin, sent])
    let statuses = await withTaskGroup(of: Int?.self) { group in
      for _ in 0..<calls {
        group.addTask {
          do {
            _ = try await provider.response(AuthTarget())
            return nil
          } catch let error as ProviderError {
            return error.response?.statusCode
          } catch {
            return nil
          }
        }
      }
      return await group.reduce(into: [Int?]()) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: 401, count: calls))
    // Concurrent calls share the refresh: one for all of them.
    let refreshes = await tokens.refreshes
    #expect(refreshes == 1, "\(refreshes) refreshes for \(calls) calls")
  }
}
