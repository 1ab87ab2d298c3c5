import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Fifteen Int fields that arrive as strings.
struct Wide: Decodable, Sendable {
  var f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14: Int
}

@Suite struct ProductionLogTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func driftIsOneEntryPerLineCappedWithTheRestCounted() async throws {
    let fields = (0..<15).map { "\"f\($0)\":\"\($0)\"" }.joined(separator: ",")
    let lines = HookLog()
    let provider = Provider<BodyStub>(
      plugins: [LoggingPlugin(level: .warning) { lines.add($1) }], stub: .immediate)
    _ = try await provider.request(
      BodyStub(body: #"{"code":0,"data":{"# + fields + "}}"), as: Wide.self)
    let drift = lines.all.filter {
      $0.contains("⚠ drift in GET https://unreachable.invalid/stub: ")
    }
    #expect(drift.count == 11, "\(lines.all)")
    #expect(drift.prefix(10).allSatisfy { $0.contains(": data.f") && $0.contains("coerced") })
    #expect(drift.last?.hasSuffix(": … and 5 more") == true)
  }

  @Test func aCacheHitLogsItsSourceNotItsDriftAgain() async throws {
    let lines = HookLog()
    let provider = Provider<Route>(
      plugins: [LoggingPlugin(level: .info) { lines.add($1) }], cache: MemoryCache())
    var target = Route("/envelope/drift")
    target.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    _ = try await provider.request(target, as: User.self)
    let first = lines.all.filter { $0.contains("⚠ drift") }.count
    #expect(first == 1)
    _ = try await provider.request(target, as: User.self)
    #expect(lines.all.filter { $0.contains("⚠ drift") }.count == first)
    #expect(lines.all.last?.contains("(cached, ") == true)
    #expect(lines.all.last?.contains(": fresh") == true)
  }

  @Test func aMappedBusinessErrorLogsItsCodeAndMessage() async throws {
    let lines = HookLog()
    var decoder = LenientDecoder()
    decoder.envelope = .default.mappingErrors { SessionExpired(message: $0.message) }
    let provider = Provider<Route>(
      decoder: decoder, plugins: [LoggingPlugin(level: .warning) { lines.add($1) }])
    await #expect(throws: SessionExpired(message: "token expired")) {
      try await provider.request(Route("/envelope/fail"), as: User.self)
    }
    let line = try #require(lines.all.first)
    #expect(line.contains(#"business 1001 "token expired" (mapped to SessionExpired)"#), "\(line)")
  }

  @Test func aTransportFailureNamesTheURL() async throws {
    let server = try TestServer()
    server.stop()
    var target = Route("/envelope/ok")
    target.server = server
    let lines = HookLog()
    let provider = Provider<Route>(plugins: [LoggingPlugin { lines.add($1) }])
    await #expect(throws: ProviderError.self) { try await provider.response(target) }
    let line = try #require(lines.all.last)
    #expect(line.contains("(GET http://127.0.0.1:\(server.port)/envelope/ok): transport error"))
  }

  @Test func aTokenRefreshIsALineOfItsOwn() async throws {
    let lines = HookLog()
    let tokens = Tokens()
    let auth = AccessTokenPlugin(expiredCodes: [1001], token: { await tokens.token }) {
      try await tokens.refresh()
    }
    var target = Route("/auth")
    target.authorization = .bearer
    let provider = Provider<Route>(plugins: [auth, LoggingPlugin { lines.add($1) }])
    _ = try await provider.request(target, as: User.self)
    let refresh = lines.all.filter { $0.contains("⟳ token refresh") }
    #expect(refresh.count == 2)
    #expect(refresh.first?.hasSuffix("⟳ token refresh started") == true)
    #expect(refresh.last?.contains("⟳ token refresh succeeded in ") == true)
    #expect(refresh.last?.hasSuffix(" ms") == true)
  }
}
