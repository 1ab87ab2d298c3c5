import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A loopback route sent with a secret in every header, the query and the body.
struct PlantedTarget: TargetType {
  static let secrets = [
    "rec-bearer", "rec-cookie", "rec-api-key", "rec-session", "rec-query", "rec-password",
    // Written by the server: /profile, /login/form, /login.
    "planted-password", "planted-refresh", "planted-set-cookie", "plain-secret", "secret-ada",
  ]
  var baseURL: URL
  var path: String
  var method: HTTPMethod = .get
  var task: RequestTask = .plain
  var query: [URLQueryItem] { [URLQueryItem(name: "access_token", value: "rec-query")] }
  var headers: [String: String] {
    [
      "Authorization": "Bearer rec-bearer", "Cookie": "sid=rec-cookie", "X-Api-Key": "rec-api-key",
      "X-Session": "rec-session",
    ]
  }
  // Only a hang's bound: a call waits in the default session's queue (six connections to a
  // host) behind the calls of every suite running beside it, which on a loaded machine can take
  // longer than the 5 s this was.
  var timeout: TimeInterval { 30 }
}

/// Answers every request with the same small JSON body, to test file naming without a network.
struct FixedTransport: HTTPTransport {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let url = request.url ?? URL(fileURLWithPath: "/")
    guard
      let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:])
    else { throw URLError(.badServerResponse) }
    return (Data(#"{"code":0,"data":{}}"#.utf8), response)
  }
}

/// Collects recording failures.
final class FailureLog: @unchecked Sendable {
  private let lock = NSLock()
  private var errors: [RecordingWriteError] = []
  func add(_ error: RecordingWriteError) { lock.withLock { errors.append(error) } }
  var all: [RecordingWriteError] { lock.withLock { errors } }
}

@Suite(.serialized) struct RecordingSecurityTests {
  @Test func noPlantedSecretReachesARecordingFile() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try #require(TestServer.shared, "python3 must be available")
    let recorder = try RecordingTransport(
      folder: folder, mode: .all, redactingHeaders: ["X-Session"])
    let provider = Provider<PlantedTarget>(transport: recorder)
    let base = server.baseURL
    let targets = [
      PlantedTarget(baseURL: base, path: "/profile"),
      PlantedTarget(baseURL: base, path: "/login/form"),
      PlantedTarget(baseURL: base, path: "/headers"),
      PlantedTarget(
        baseURL: base, path: "/login", method: .post,
        task: .json(["name": "ada", "password": "rec-password"])),
      PlantedTarget(
        baseURL: base, path: "/echo", method: .post, task: .form(["password": "rec-password"])),
    ]
    for target in targets { _ = try await provider.response(target) }
    let manager = FileManager.default
    let names = try manager.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == targets.count)
    for name in names {
      let contents = try text(folder, name)
      let leaked = PlantedTarget.secrets.filter { contents.contains($0) || name.contains($0) }
      #expect(leaked.isEmpty, "\(name) holds \(leaked)")
    }
    // The recordings still replay: matching uses the same redaction.
    let replay = Provider<PlantedTarget>(
      transport: ReplayTransport(folder: folder, redacting: recorder.redaction))
    let replayed = try await replay.response(PlantedTarget(baseURL: base, path: "/profile"))
    #expect(replayed.statusCode == 200)
  }

  @Test func fileNamesAreDistinctValidAndBounded() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let failures = FailureLog()
    let recorder = try RecordingTransport(
      wrapping: FixedTransport(), folder: folder, mode: .all, onWriteFailure: failures.add)
    let paths = [
      "/users/a b", "/users/a-20b", "/users/a_b", "/users/a/b", "/users//a", "/users/a/",
      "/" + String(repeating: "x", count: 250), "/" + String(repeating: "x", count: 251),
      "/ünï/%2F/..", "/users/~7E",
    ]
    for path in paths {
      var components = URLComponents(string: "http://127.0.0.1:9")
      components?.path = path
      let url = try #require(components?.url, "\(path)")
      _ = try await recorder.send(URLRequest(url: url))
    }
    #expect(failures.all.isEmpty, "\(failures.all)")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == paths.count)
    for name in names {
      #expect(name.utf8.count <= 130)
      #expect(!name.contains("/") && !name.hasPrefix("."))
    }
  }

  struct NameCase: Sendable, CustomTestStringConvertible {
    var url: String
    var name: String?
    var hashed: Bool
    var testDescription: String { url }
  }

  /// A short query of safe characters stays readable in the file name; a long or unsafe one (a
  /// redacted secret, a space, an encoded byte) is hashed, and no secret reaches a name.
  @Test(arguments: [
    NameCase(url: "/repos/o/r/issues?page=1", name: "GET_repos_o_r_issues_page-1", hashed: false),
    NameCase(
      url: "/repos/o/r/issues?per_page=20&page=1", name: "GET_repos_o_r_issues_page-1_per_page-20",
      hashed: false),
    NameCase(url: "/search?q=a%20b", name: nil, hashed: true),
    NameCase(url: "/search?q=" + String(repeating: "a", count: 60), name: nil, hashed: true),
    NameCase(url: "/me?access_token=S3CR3T&page=1", name: nil, hashed: true),
    NameCase(url: "/users/ada", name: "GET_users_ada", hashed: false),
  ])
  func fileNamesKeepAShortQueryReadableAndHashTheRest(_ test: NameCase) async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try RecordingTransport(wrapping: FixedTransport(), folder: folder, mode: .all)
    let url = try #require(URL(string: "http://127.0.0.1:9" + test.url))
    _ = try await recorder.send(URLRequest(url: url))
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == 1)
    let name = try #require(names.first)
    if let expected = test.name { #expect(name == expected + ".json") }
    if test.hashed {
      let hash = name.dropLast(".json".count).split(separator: "_").last ?? ""
      #expect(hash.count == 8 && hash.allSatisfy(\.isHexDigit), "\(name)")
    }
    #expect(!name.contains("S3CR3T") && !name.contains("token"), "\(name)")
  }

  /// `/a/b-c` and `/a?b=c` read alike (`GET_a_b-c`): the second gets the hashed name, and both
  /// replay.
  @Test func twoRequestsWhoseReadableNamesClashGetDistinctFiles() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try RecordingTransport(wrapping: FixedTransport(), folder: folder, mode: .all)
    let urls = ["http://127.0.0.1:9/a/b-c", "http://127.0.0.1:9/a?b=c"].compactMap(URL.init)
    for url in urls { _ = try await recorder.send(URLRequest(url: url)) }
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names.count == 2 && names.contains("GET_a_b-c.json"), "\(names)")
    let replay = ReplayTransport(folder: folder)
    for url in urls {
      let (_, response) = try await replay.send(URLRequest(url: url))
      #expect(response.statusCode == 200)
    }
  }

  @Test func aRecordingThatCannotBeWrittenIsReportedAndTheRequestSucceeds() async throws {
    let blocker = makeFolder()
    defer { try? FileManager.default.removeItem(at: blocker) }
    try Data("a file where the folder should be".utf8).write(to: blocker)
    let failures = FailureLog()
    let recorder = try RecordingTransport(
      wrapping: FixedTransport(), folder: blocker.appendingPathComponent("recorded"), mode: .all,
      onWriteFailure: failures.add)
    let url = try #require(URL(string: "http://127.0.0.1:9/users/ada"))
    let (data, response) = try await recorder.send(URLRequest(url: url))
    #expect(response.statusCode == 200 && !data.isEmpty)
    #expect(failures.all.count == 1)
    #expect(failures.all.first?.request.path == "/users/ada")
  }
}
