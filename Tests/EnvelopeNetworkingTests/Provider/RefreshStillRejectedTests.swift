import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A token that refreshes to a new value the server still rejects (`/auth401` takes only
/// `Bearer fresh`), counting refreshes.
actor RejectedTokens {
  var token = "stale-0"
  var refreshes = 0

  func refresh() async throws {
    refreshes += 1
    try await Task.sleep(for: .milliseconds(20))
    token = "stale-\(refreshes)"
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
    let tokens = RejectedTokens()
    let plugin = AccessTokenPlugin(token: { await tokens.token }) { try await tokens.refresh() }
    let provider = Provider<AuthTarget>(plugins: [plugin])
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
