import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Routes that accept only `Bearer fresh`: `/auth401` answers 401, `/auth` business code 1001.
struct AuthTarget: TargetType {
  var path = "/auth401"
  var authorization: AuthorizationType = .bearer
  var envelope: EnvelopeFormat? = nil
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var timeout: TimeInterval { 10 }
}

/// A token that refreshes to "fresh", counting refreshes; `dead` makes refreshing fail.
actor Tokens {
  var token = "stale"
  var refreshes = 0
  let dead: Bool

  init(dead: Bool = false) { self.dead = dead }

  func refresh() async throws {
    refreshes += 1
    try await Task.sleep(for: .milliseconds(50))  // long enough for every request to pile up
    if dead { throw URLError(.userAuthenticationRequired) }
    token = "fresh"
  }
}

struct TokenExpired: Error, Equatable {}

@Suite(.serialized) struct AuthRefreshTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  func plugin(_ tokens: Tokens, codes: Set<EnvelopeCode> = []) -> AccessTokenPlugin {
    AccessTokenPlugin(expiredCodes: codes, token: { await tokens.token }) {
      try await tokens.refresh()
    }
  }

  @Test func fiftyConcurrentRequestsOnAnExpiredTokenRefreshOnce() async throws {
    let tokens = Tokens()
    let provider = Provider<AuthTarget>(plugins: [plugin(tokens)])
    let users = try await withThrowingTaskGroup(of: User.self) { group in
      for _ in 0..<50 { group.addTask { try await provider.request(AuthTarget(), as: User.self) } }
      return try await group.reduce(into: [User]()) { $0.append($1) }
    }
    #expect(users.count == 50)
    #expect(users.allSatisfy { $0 == User(id: 1, name: "Ada") })
    #expect(await tokens.refreshes == 1)
  }

  @Test func anExpiredBusinessCodeRefreshesOnceEvenWhenTheFormatMapsIt() async throws {
    let tokens = Tokens()
    let mapped = EnvelopeFormat.default.mappingErrors { $0.code == 1001 ? TokenExpired() : nil }
    let provider = Provider<AuthTarget>(plugins: [plugin(tokens, codes: [1001])])
    let target = AuthTarget(path: "/auth", envelope: mapped)
    let users = try await withThrowingTaskGroup(of: User.self) { group in
      for _ in 0..<20 { group.addTask { try await provider.request(target, as: User.self) } }
      return try await group.reduce(into: [User]()) { $0.append($1) }
    }
    #expect(users.count == 20)
    #expect(await tokens.refreshes == 1)
  }

  @Test func aDeadRefreshTokenIsAnAuthenticationErrorAfterOneRefresh() async throws {
    let tokens = Tokens(dead: true)
    let provider = Provider<AuthTarget>(plugins: [plugin(tokens)])
    for call in 1...2 {
      do {
        _ = try await provider.request(AuthTarget(), as: User.self)
        Issue.record("a dead refresh token succeeded")
      } catch ProviderError.authentication(let error) {
        #expect((error as? URLError)?.code == .userAuthenticationRequired)
      }
      // One refresh per call, no loop; a later call may try again (the failure may have been
      // the network's), so a transient failure never locks the user out.
      #expect(await tokens.refreshes == call)
    }
  }

  @Test func loginEndpointsCarryNoTokenAndAreNeverRefreshed() async throws {
    let tokens = Tokens()
    let provider = Provider<AuthTarget>(plugins: [plugin(tokens)])
    do {
      _ = try await provider.response(AuthTarget(authorization: .none))
      Issue.record("401 expected")
    } catch ProviderError.business(401, _, let response) {  // the 401's error envelope
      #expect(response.statusCode == 401)
      #expect(response.request?.value(forHTTPHeaderField: "Authorization") == nil)
    }
    #expect(await tokens.refreshes == 0)
  }

  @Test func aCustomSchemeIsSent() async throws {
    let plugin = AccessTokenPlugin(token: { "t1" })
    let request = try await plugin.prepare(
      URLRequest(url: URL(fileURLWithPath: "/")),
      target: AuthTarget(authorization: .custom("Token")))
    #expect(request.value(forHTTPHeaderField: "Authorization") == "Token t1")
  }

  @Test func aRequestThatCarriedAnOlderTokenRetriesWithoutARefresh() async throws {
    let tokens = Tokens()
    try await tokens.refresh()  // the current token is now "fresh"
    let plugin = self.plugin(tokens)
    var old = URLRequest(url: URL(fileURLWithPath: "/"))
    old.setValue("Bearer stale", forHTTPHeaderField: "Authorization")
    let failure = ProviderError.status(Response(statusCode: 401, data: Data(), request: old))
    let processed = await plugin.process(.failure(failure), target: AuthTarget())
    guard case .failure(.status) = processed else {
      Issue.record("the 401 is handed on for the retry, got \(processed)")
      return
    }
    #expect(await plugin.retry(after: failure, target: AuthTarget(), attempt: 1) == .zero)
    #expect(await plugin.retry(after: failure, target: AuthTarget(), attempt: 2) == nil)
    #expect(await tokens.refreshes == 1)  // only the one made above
  }
}
