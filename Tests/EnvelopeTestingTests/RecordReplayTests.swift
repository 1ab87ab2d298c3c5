import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct LoopUser: Decodable, Equatable { var id: Int; var name: String }
struct Login: Encodable, Sendable { var name: String }
struct Session: Decodable, Equatable { var name: String; var token: String }
struct EchoQuery: Decodable, Equatable { var method: String; var query: String }

/// A route of a loopback server, sent with a secret Authorization header.
struct LoopTarget: TargetType {
  var baseURL: URL
  var path: String
  var method: HTTPMethod = .get
  var task: RequestTask = .plain
  var headers: [String: String] { ["Authorization": "Bearer s3cret"] }
  // Only a hang's bound: a call waits in the default session's queue (six connections to a
  // host) behind the calls of every suite running beside it, which on a loaded machine can take
  // longer than the 5 s this was.
  var timeout: TimeInterval { 30 }
}

/// The values the round trip decodes, recorded and replayed.
struct RoundTrip: Equatable {
  var user: LoopUser
  var session: Session
  var echo: EchoQuery

  static func run(_ provider: Provider<LoopTarget>, base: URL) async throws -> RoundTrip {
    let user = try await provider.request(
      LoopTarget(baseURL: base, path: "/envelope/ok"), as: LoopUser.self)
    let session = try await provider.request(
      LoopTarget(baseURL: base, path: "/login", method: .post, task: .json(Login(name: "ada"))),
      as: Session.self)
    let echo = try await provider.request(
      LoopTarget(baseURL: base, path: "/echo", task: .query(["b": "2", "a": "x y"])),
      as: EchoQuery.self)
    return RoundTrip(user: user, session: session, echo: echo)
  }
}

func makeFolder() -> URL {
  FileManager.default.temporaryDirectory.appendingPathComponent(
    "EnvelopeKitRecordings-\(UUID().uuidString)")
}

func text(_ folder: URL, _ name: String) throws -> String {
  String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
}

@Suite(.serialized) struct RecordReplayTests {
  @Test func recordThenReplayWithTheServerStopped() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try TestServer()
    let recorder = try RecordingTransport(
      folder: folder, mode: .all, redactingHeaders: ["x-request-id"], redactingFields: ["token"])
    let recorded = try await RoundTrip.run(Provider(transport: recorder), base: server.baseURL)
    #expect(recorded.session == Session(name: "ada", token: "secret-ada"))
    #expect(recorded.echo == EchoQuery(method: "GET", query: "a=x%20y&b=2"))
    server.stop()

    // The server is really gone…
    let live = Provider<LoopTarget>()
    await #expect(throws: ProviderError.self) {
      try await live.response(LoopTarget(baseURL: server.baseURL, path: "/envelope/ok"))
    }
    // …and the recordings answer with the same values; the redacted token reads as its
    // numbered placeholder.
    let replayed = try await RoundTrip.run(
      Provider(transport: ReplayTransport(folder: folder)), base: server.baseURL)
    #expect(replayed.user == recorded.user)
    #expect(replayed.echo == recorded.echo)
    #expect(replayed.session.name == "ada")
    #expect(replayed.session.token.hasPrefix("<token ") && replayed.session.token.hasSuffix(">"))

    // A recording transport in `missing` mode replays too, without the network.
    let missing = try RecordingTransport(folder: folder, mode: .missing)
    #expect(try await RoundTrip.run(Provider(transport: missing), base: server.baseURL) == replayed)
  }

  @Test func aPlainAPIIsRecordedAndReplayed() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try #require(TestServer.shared, "python3 must be available")
    struct Repo: Decodable, Equatable { var id: Int; var code: Int }
    var decoder = LenientDecoder()
    decoder.envelope = .plain
    let target = LoopTarget(baseURL: server.baseURL, path: "/plain/repo")
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let recorded = try await Provider(transport: recorder, decoder: decoder).request(
      target, as: Repo.self)
    #expect(recorded == Repo(id: 7, code: 99))
    let replayed = try await Provider(transport: ReplayTransport(folder: folder), decoder: decoder)
      .request(target, as: Repo.self)
    #expect(replayed == recorded)
  }

  @Test func recordingsAreRedactedSortedPrettyAndStable() async throws {
    let first = makeFolder()
    let second = makeFolder()
    defer {
      try? FileManager.default.removeItem(at: first)
      try? FileManager.default.removeItem(at: second)
    }
    let server = try #require(TestServer.shared, "python3 must be available")
    for folder in [first, second] {
      let recorder = try RecordingTransport(
        folder: folder, mode: .all, redactingHeaders: ["X-Request-Id"], redactingFields: ["TOKEN"])
      _ = try await RoundTrip.run(Provider(transport: recorder), base: server.baseURL)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: first.path).sorted()
    #expect(names.count == 3)
    #expect(names.contains("GET_envelope_ok.json"))
    #expect(
      names.contains { $0.hasPrefix("POST_login_") && $0.count == "POST_login_12345678.json".count }
    )
    #expect(names.contains { $0.hasPrefix("GET_echo_") })
    for name in names {
      #expect(try text(first, name) == text(second, name), "re-recording changed \(name)")
    }
    let login = try text(first, try #require(names.first { $0.hasPrefix("POST_login_") }))
    #expect(!login.contains("s3cret") && !login.contains("secret-ada") && !login.contains("abc123"))
    #expect(!login.contains("\"Date\"") && !login.contains("Content-Length"))
    // Each distinct secret is numbered by first appearance: the header sent with every request
    // first, then the login's response headers (sorted) and body.
    #expect(login.contains(#""Authorization" : "Bearer <token 1>""#))
    #expect(login.contains(#""Set-Cookie" : "<token 2>""#))
    #expect(login.contains(#""X-Request-Id" : "<token 3>""#))
    #expect(login.contains(#""token" : "<token 4>""#))
    // The key: a secret the app sent first (not one a response issued) matches any value.
    #expect(login.contains(#""credentials" : "authorization: Bearer <redacted>""#))
    let ok = try text(first, "GET_envelope_ok.json")
    #expect(
      ok.hasPrefix(
        """
        {
          "request" : {
            "credentials" : "authorization: Bearer <redacted>",
            "headers" : {
              "Authorization" : "Bearer <token 1>"
            },
            "method" : "GET",
            "path" : "/envelope/ok"
          },
          "response" : {
            "body" : {
              "code" : 0,
              "data" : {
                "id" : 1,
                "name" : "Ada"
              },
              "msg" : "ok"
            },
        """))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: first.path).filter {
      !$0.hasSuffix(".json")
    }
    #expect(leftovers.isEmpty, "atomic writes leave no temporary files")
  }

  @Test func unmatchedRequestListsTheClosestRecordings() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try #require(TestServer.shared, "python3 must be available")
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    _ = try await RoundTrip.run(Provider(transport: recorder), base: server.baseURL)

    var request = URLRequest(url: server.baseURL.appendingPathComponent("login"))
    request.httpMethod = "POST"
    request.httpBody = Data(#"{"name":"bob"}"#.utf8)
    let error = try await #require(throws: ReplayError.self) {
      try await ReplayTransport(folder: folder).send(request)
    }
    let loginFile = try #require(error.candidates.first?.file)
    #expect(loginFile.hasPrefix("POST_login_"))
    #expect(
      error.candidates.map(\.differs) == [
        ["body", "credentials"], ["method", "path", "body", "credentials"],
        ["method", "path", "query", "body", "credentials"],
      ])
    #expect(
      error.description.hasPrefix(
        "no recorded interaction matches POST /login (body 91a73e713f3c…) in \(folder.path); the folder holds 3 recordings, none for this request; closest:\n  \(loginFile): POST /login (body "
      ))
    #expect(error.description.hasSuffix("(differs: method, path, query, body, credentials)"))

    let never = try RecordingTransport(folder: folder, mode: .never)
    await #expect(throws: ReplayError.self) { try await never.send(request) }
    let empty = ReplayError(request: error.request, folder: folder, candidates: [])
    #expect(empty.description.hasSuffix("; the folder holds no recordings"))
  }

  @Test func replayMatchesSortedQueriesAndPlaysRecordedFailures() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let search = Interaction(
      request: .init(method: "get", path: "/search", query: "b=2&a=1"), status: 200,
      body: Data(#"{"hits":3}"#.utf8))
    let offline = Interaction(
      request: .init(method: "GET", path: "/offline"), status: 0, delayMilliseconds: 50,
      error: .notConnectedToInternet)
    for interaction in [search, offline] {
      try interaction.fileContents().write(
        to: folder.appendingPathComponent(interaction.request!.fileName + ".json"))
    }
    let replay = ReplayTransport(folder: folder)
    let (body, response) = try await replay.send(
      URLRequest(url: URL(string: "https://example.com/search?a=1&b=2")!))
    #expect(String(decoding: body, as: UTF8.self) == #"{"hits":3}"#)
    #expect(response.statusCode == 200)
    do {
      _ = try await replay.send(URLRequest(url: URL(string: "https://example.com/offline")!))
      Issue.record("expected a URLError")
    } catch let error as URLError {
      #expect(error.code == .notConnectedToInternet)
    }
  }

  @Test func modeComesFromTheEnvironment() throws {
    try RecordMode.$environment.withValue([:]) { () throws in
      #expect(try RecordMode.fromEnvironment(default: .never) == .never)
      #expect(try RecordMode.fromEnvironment() == .missing)
    }
    try RecordMode.$environment.withValue([RecordMode.environmentKey: "ALL"]) { () throws in
      #expect(try RecordingTransport(folder: makeFolder()).mode == .all)
    }
    try RecordMode.$environment.withValue([RecordMode.environmentKey: "sometimes"]) {
      let error = try #require(throws: RecordModeError.self) { try RecordMode.fromEnvironment() }
      #expect(
        error.description
          == "ENVELOPEKIT_RECORD=sometimes is not one of missing, all, never, failed")
    }
  }

  @Test(arguments: [
    ("true", RecordMode.never), ("1", .never), ("yes", .never), ("TRUE", .never), ("", .missing),
    ("0", .missing), ("false", .missing), ("False", .missing),
  ])
  func onCINothingIsRecordedUnlessAsked(ci: String, mode: RecordMode) throws {
    try RecordMode.$environment.withValue(["CI": ci]) { () throws in
      #expect(try RecordMode.fromEnvironment() == mode)
      #expect(try RecordingTransport(folder: makeFolder()).mode == mode)
    }
    // ENVELOPEKIT_RECORD still decides when it is set.
    try RecordMode.$environment.withValue(["CI": ci, RecordMode.environmentKey: "all"]) {
      () throws in
      #expect(try RecordMode.fromEnvironment() == .all)
    }
  }
}
