import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `/challenge` answers with its 401 (no envelope).
struct ChallengeBody: Decodable, Equatable { var error: String; var scheme: String }

/// A 401 with `WWW-Authenticate` comes back as the 401 it is, at once, whatever the scheme and
/// the session, for calls and transfers (FoundationNetworking answers a Basic challenge itself
/// and, up to Swift 6.3.1, never ends the task).
@Suite(.serialized, .aheadOfTheBacklog) struct AuthChallengeTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var scheme: String
    var session: SessionKind
    var testDescription: String { "\(scheme), \(session)" }
  }

  static let cases = ["basic", "digest", "unknown"].flatMap { scheme in
    SessionKind.allCases.map { Case(scheme: scheme, session: $0) }
  }

  func target(_ scheme: String) -> Route {
    var route = Route("/challenge", ["scheme": scheme])
    route.timeout = 20
    return route
  }

  /// The call's 401 with its body, at once (a hang runs into the 20 s timeout). On an idle
  /// machine it takes milliseconds; the bound is ten seconds (half the timeout: a hang never
  /// passes it, a loaded machine's slow call does not reach it), or four times what a plain call
  /// through the same transport took just before when the machine is that busy (every suite of
  /// a full `swift test` runs at once on two cores, beside other builds); a first call before
  /// that starts the session. (The bound was three seconds, and the plain call had five before
  /// `timed` gave up on it.)
  func expectStatus401(
    _ test: Case, _ kind: String, transport: URLSessionTransport,
    _ call: @escaping @Sendable () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let provider = Provider<Route>(transport: transport)
    _ = try await provider.request(Route("/envelope/ok"), as: User.self)
    let (_, plain) = try await timed(limit: .seconds(60)) {
      try await provider.request(Route("/envelope/ok"), as: User.self)
    }
    // A hung call: `.transport(.timedOut)` after 20 s, or (transfers have no provider timeout)
    // `Overran` after 25.
    let (error, elapsed) = try await timed(limit: .seconds(25)) {
      do {
        try await call()
        return nil as ProviderError?
      } catch let error as ProviderError {
        return error
      }
    }
    // In the log of every run, as the redaction tests print theirs.
    print("CHALLENGE-TIME \(kind) \(test.testDescription): \(elapsed) (a plain call \(plain))")
    guard case .status(let response) = error else {
      Issue.record(
        "expected .status(401), got \(String(describing: error))", sourceLocation: sourceLocation)
      return
    }
    #expect(response.statusCode == 401, sourceLocation: sourceLocation)
    let body = ChallengeBody(error: "sign in", scheme: test.scheme)
    #expect(error?.errorBody(as: ChallengeBody.self) == body, sourceLocation: sourceLocation)
    #expect(
      elapsed < max(.seconds(10), plain * 4), "took \(elapsed) (a plain call \(plain))",
      sourceLocation: sourceLocation)
  }

  @Test(arguments: cases) func a401WithAChallengeComesBackAtOnce(_ test: Case) async throws {
    let (transport, delegate) = test.session.transport()
    let provider = Provider<Route>(transport: transport)
    let target = target(test.scheme)
    try await expectStatus401(test, "call", transport: transport) {
      _ = try await provider.request(target, as: User.self)
    }
    if let delegate, test.scheme == "basic" {
      #expect(delegate.count("challenge") >= 1, "the session's delegate was not asked")
    }
  }

  @Test(arguments: cases) func a401WithAChallengeEndsADownloadAtOnce(_ test: Case) async throws {
    let transport = test.session.transport().0
    let provider = Provider<Route>(transport: transport)
    let file = temporaryFolder().appendingPathComponent("challenge.bin")
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    let target = target(test.scheme)
    try await expectStatus401(test, "download", transport: transport) {
      for try await _ in provider.download(target, to: file) {}
    }
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test(arguments: cases) func a401WithAChallengeEndsAnUploadAtOnce(_ test: Case) async throws {
    var route = target(test.scheme)
    route.method = .post
    let upload = UploadRoute(
      route: route, task: .data(Data(count: 10_000), contentType: "application/octet-stream"))
    let transport = test.session.transport().0
    let uploads = Provider<UploadRoute>(transport: transport)
    try await expectStatus401(test, "upload", transport: transport) {
      for try await _ in uploads.upload(upload) {}
    }
  }

  @Test func theTokenPluginRefreshesOnAChallenged401AndTheRetrySucceeds() async throws {
    let tokens = Tokens()
    let plugin = AccessTokenPlugin(token: { await tokens.token }) { try await tokens.refresh() }
    var route = target("basic")
    route.authorization = .bearer
    let target = route
    let provider = Provider<Route>(plugins: [plugin])
    _ = try await provider.request(Route("/envelope/ok"), as: User.self)  // see expectStatus401
    let (_, plain) = try await timed(limit: .seconds(60)) {
      try await provider.request(Route("/envelope/ok"), as: User.self)
    }
    let (user, elapsed) = try await timed(limit: .seconds(25)) {
      try await provider.request(target, as: User.self)
    }
    #expect(user == User(id: 1, name: "Ada"))
    #expect(await tokens.refreshes == 1)
    // Two calls and a refresh that sleeps 50 ms; a hung call runs into the 20 s timeout.
    #expect(elapsed < max(.seconds(10), plain * 8), "took \(elapsed) (a plain call \(plain))")
  }
}

/// A `Route` with a request body of its own.
struct UploadRoute: TargetType {
  var route: Route
  var task: RequestTask
  var baseURL: URL { route.baseURL }
  var path: String { route.path }
  var method: HTTPMethod { route.method }
  var query: [URLQueryItem] { route.query }
  var headers: [String: String] { route.headers }
  var authorization: AuthorizationType { route.authorization }
  var timeout: TimeInterval { route.timeout }
}
