import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `/echo` saw.
struct EchoSeen: Decodable, Sendable {
  var method: String
  var body: String
  var headers: [String: String]

  func header(_ name: String) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
  }
}

/// A redirected request keeps its method and body on 307 and 308 (RFC 9110 15.4.8, 15.4.9) and
/// becomes a GET without a body on 303, on every platform (FoundationNetworking sends
/// `Content-Length: 0` after a 307 or 308 of its own).
@Suite struct RedirectBodyTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var status: Int
    var method: String
    var body: String
    var session: SessionKind
    var testDescription: String { "\(status) \(method), \(session)" }
  }

  static let cases: [Case] = SessionKind.allCases.flatMap { session in
    [
      Case(status: 307, method: "POST", body: "name=ada&n=1", session: session),
      Case(status: 308, method: "PUT", body: "name=ada&n=1", session: session),
      Case(status: 303, method: "GET", body: "", session: session),
    ]
  }

  /// A POST (PUT for the 308) with `body` to `/redirect`, answered `status` to `to`.
  func redirected(
    _ status: Int, to target: String, method: String = "POST", body: String = "name=ada&n=1"
  ) -> UploadRoute {
    var route = Route("/redirect", ["status": "\(status)", "to": target])
    route.method = HTTPMethod(rawValue: method)
    route.headers = ["Authorization": "Bearer planted-token", "X-Trace": "kept"]
    // Only a hang's bound: the transport sends a 307 or 308's hop itself, a turn of the
    // concurrency pool each, and a loaded full run held the pool past the 10 s this was
    // (`.timedOut` in three tests of this suite).
    route.timeout = 60
    return UploadRoute(
      route: route, task: .data(Data(body.utf8), contentType: "application/x-www-form-urlencoded"))
  }

  @Test(arguments: cases) func aRedirectedRequestKeepsOrDropsItsBodyByStatus(_ test: Case)
    async throws
  {
    let provider = Provider<UploadRoute>(transport: test.session.transport().0)
    let sent = test.status == 308 ? "PUT" : "POST"
    let echo = try await provider.request(
      redirected(test.status, to: "/echo", method: sent), as: EchoSeen.self)
    #expect(echo.method == test.method)
    #expect(echo.body == test.body)
    #expect(echo.header("Content-Length") == (test.body.isEmpty ? nil : "\(test.body.utf8.count)"))
    #expect(echo.header("Authorization") == "Bearer planted-token")  // same origin
    #expect(echo.header("X-Trace") == "kept")
  }

  @Test(arguments: [307, 308]) func aCrossOriginRedirectKeepsTheBodyButDropsCredentials(
    _ status: Int
  ) async throws {
    let provider = Provider<UploadRoute>()
    let echo = try await provider.request(
      redirected(status, to: "http://localhost:\(server.port)/echo"), as: EchoSeen.self)
    #expect(echo.method == "POST")
    #expect(echo.body == "name=ada&n=1")
    #expect(echo.header("Host") == "localhost:\(server.port)")
    #expect(echo.header("Authorization") == nil, "Authorization reached the other origin")
    #expect(echo.header("X-Trace") == "kept")
  }

  static let secretBodies = [
    "grant_type=refresh_token&refresh_token=planted-body-secret",
    #"{"user":"ada","password":"planted-body-secret"}"#,
  ]

  /// A body that holds a credential is not sent to another origin: the call ends with the
  /// redirect itself, and the other origin never sees the request.
  @Test(arguments: [307, 308], secretBodies)
  func aCrossOriginRedirectOfABodyThatHoldsACredentialIsNotFollowed(_ status: Int, body: String)
    async throws
  {
    let provider = Provider<UploadRoute>()
    do {
      let response = try await provider.response(
        redirected(status, to: "http://localhost:\(server.port)/echo", body: body))
      Issue.record("the redirect was followed: \(response.statusCode)")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == status)
      #expect(!String(decoding: response.data, as: UTF8.self).contains("planted-body-secret"))
    }
  }

  /// The same origin gets the body (a token endpoint that moved on its own server).
  @Test(arguments: secretBodies) func aSameOriginRedirectKeepsABodyThatHoldsACredential(
    _ body: String
  ) async throws {
    let echo = try await Provider<UploadRoute>().request(
      redirected(307, to: "/echo", body: body), as: EchoSeen.self)
    #expect(echo.body == body)
  }

  @Test func aRelativeLocationResolvesAgainstTheRedirectingURL() async throws {
    // "echo" (no slash) from /redirect resolves to /echo.
    let echo = try await Provider<UploadRoute>().request(
      redirected(307, to: "echo"), as: EchoSeen.self)
    #expect(echo.method == "POST")
    #expect(echo.body == "name=ada&n=1")
  }

  @Test func aRedirectLoopEndsWithTooManyRedirects() async throws {
    var route = Route("/loop", ["status": "307"])
    route.method = .post
    // 21 round trips: the route's 10 s ran out first in a full run on a loaded machine
    // (`.timedOut`, not `.httpTooManyRedirects`).
    route.timeout = 60
    let loop = UploadRoute(route: route, task: .data(Data("x".utf8), contentType: "text/plain"))
    do {
      let response = try await Provider<UploadRoute>().response(loop)
      Issue.record("a redirect loop ended with \(response.statusCode)")
    } catch ProviderError.transport(let error) {
      #expect(error.code == .httpTooManyRedirects)
    }
  }

  @Test(arguments: [307, 308]) func aRedirectedFileUploadSendsTheFileAgain(_ status: Int)
    async throws
  {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("upload.bin")
    try Data(repeating: 7, count: 300_000).write(to: file)
    var route = Route("/redirect", ["status": "\(status)", "to": "/upload"])
    route.method = .post
    let target = UploadRoute(
      route: route, task: .file(file, contentType: "application/octet-stream"))
    var finished: Response?
    var sent: [Int64] = []
    for try await event in Provider<UploadRoute>().upload(target) {
      switch event {
      case .progress(let done, _): sent.append(done)
      case .finished(let response): finished = response
      }
    }
    let response = try #require(finished)
    let received = try LenientDecoder().decodeEnvelope(Received.self, from: response.data)
    #expect(received == Received(received: 300_000, contentType: "application/octet-stream"))
    #expect(zip(sent, sent.dropFirst()).allSatisfy { $0 <= $1 })
  }
}
