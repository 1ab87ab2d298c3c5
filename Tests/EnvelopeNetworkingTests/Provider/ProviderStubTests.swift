import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The package's `Fixtures/` folder, found from this file.
let packageFixtures = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()
  .appendingPathComponent("Fixtures")

struct DemoUser: Decodable, Equatable, Sendable {
  var id: Int
  var name: String
}

/// Endpoints answered only by stubs.
enum StubAPI: TargetType {
  case me, missingFixture, offline, notFound, interactionError, inline

  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/\(self)" }
  var headers: [String: String] { ["Authorization": "Bearer secret", "X-Api-Key": "k-123"] }
  var sample: StubResponse {
    switch self {
    case .me: .fixture("demo/user")
    case .missingFixture: .fixture("demo/no-such-file")
    case .offline: .failure(URLError(.notConnectedToInternet))
    case .notFound: .body(Data(#"{"code":404,"msg":"nope"}"#.utf8), status: 404)
    case .interactionError: .fixture("demo/expired")
    case .inline: .body(Data(#"{"code":0,"msg":"ok","data":{"id":7,"name":"Inline"}}"#.utf8))
    }
  }
  var scenarios: [String: StubResponse] {
    switch self {
    case .me: ["expired": .fixture("demo/expired"), "offline": .failure(URLError(.timedOut))]
    default: [:]
    }
  }
}

/// Records every hook call as `name:hook`.
final class HookLog: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [String] = []
  func add(_ entry: String) { lock.withLock { entries.append(entry) } }
  var all: [String] { lock.withLock { entries } }
}

struct RecordingPlugin: Plugin {
  let name: String
  let log: HookLog
  var failSuccesses = false
  var retries = 0

  func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    log.add("\(name):prepare")
    var request = request
    request.setValue(name, forHTTPHeaderField: "X-Plugin-\(name)")
    return request
  }
  func willSend(_ request: URLRequest, target: any TargetType) async {
    log.add("\(name):willSend:\(request.value(forHTTPHeaderField: "X-Plugin-A") ?? "-")")
  }
  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    log.add("\(name):didReceive")
  }
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    log.add("\(name):process")
    guard failSuccesses, case .success(let response) = result else { return result }
    return .failure(.status(response))
  }
  func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration? {
    log.add("\(name):retry:\(attempt)")
    return attempt <= retries ? .milliseconds(1) : nil
  }
}

/// A target whose body is given per test, answered by an empty stub.
struct BodyTarget: TargetType {
  var task: RequestTask
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "/upload" }
  var method: HTTPMethod { .post }
}

@Suite struct ProviderStubTests {
  let provider = Provider<StubAPI>(stub: .immediate, fixtures: packageFixtures)

  @Test func fixtureStubDecodesThroughTheEnvelope() async throws {
    let user = try await provider.request(.me, as: DemoUser.self)
    #expect(user == DemoUser(id: 18, name: "Ada Lovelace"))
  }

  @Test func inlineStubDecodes() async throws {
    #expect(
      try await provider.request(.inline, as: DemoUser.self) == DemoUser(id: 7, name: "Inline"))
  }

  @Test func namedScenarioReplacesTheSample() async throws {
    let expired = provider.scenario("expired")
    #expect(expired.scenario == "expired")
    do {
      _ = try await expired.request(.me, as: DemoUser.self)
      Issue.record("expected a business failure")
    } catch ProviderError.business(let code, let message, let response) {
      #expect(code == 1001)
      #expect(message == "token expired")
      #expect(response.statusCode == 200)
    }
    let timedOut = provider.scenario("offline")
    await #expect(throws: ProviderError.self) { try await timedOut.request(.me, as: DemoUser.self) }
  }

  @Test func targetWithoutTheScenarioAnswersItsSample() async throws {
    let expired = provider.scenario("expired")
    #expect(
      try await expired.request(.inline, as: DemoUser.self) == DemoUser(id: 7, name: "Inline"))
    #expect(try await expired.scenario(nil).request(.me, as: DemoUser.self).id == 18)
  }

  @Test func missingFixtureNamesTheSearchedPath() async throws {
    do {
      _ = try await provider.response(.missingFixture)
      Issue.record("expected fixtureNotFound")
    } catch ProviderError.fixtureNotFound(let path) {
      #expect(path == packageFixtures.appendingPathComponent("demo/no-such-file.json").path)
    }
  }

  @Test func fixturesAreFoundFromTheCallersSourceFileNotTheWorkingDirectory() async throws {
    // No `fixtures:`: the nearest Fixtures/ above this source file, wherever the process runs.
    let found = Provider<StubAPI>(stub: .immediate)
    #expect(found.fixtures?.standardizedFileURL == packageFixtures.standardizedFileURL)
    #expect(try await found.request(.me, as: DemoUser.self).id == 18)
    // A scenario keeps the rule.
    #expect(found.scenario("expired").fixtures?.path == found.fixtures?.path)
    // From a source file with no Fixtures/ above it: a clear error naming where it looked.
    let nowhere = "/nonexistent-\(UUID().uuidString)/Sources/App/API.swift"
    let lost = Provider<StubAPI>(stub: .immediate, filePath: nowhere)
    #expect(lost.fixtures == nil)
    do {
      _ = try await lost.response(.me)
      Issue.record("a fixture was read from nowhere")
    } catch ProviderError.fixtureNotFound(let message) {
      #expect(message.hasPrefix("demo/user: no Fixtures/ folder"))
      #expect(message.contains("no folder above \(nowhere) has a Fixtures/ child"))
      #expect(message.contains("ENVELOPEKIT_FIXTURES is unset"))
      #expect(message.contains("Bundle.main.url(forResource: \"Fixtures\""))
    }
    // A folder given in code (e.g. an app's bundle resources) wins.
    let given = Provider<StubAPI>(stub: .immediate, fixtures: packageFixtures, filePath: nowhere)
    #expect(try await given.request(.me, as: DemoUser.self).id == 18)
  }

  @Test func stubbedTransportFailureUnwrapsTheURLError() async throws {
    do {
      _ = try await provider.response(.offline)
      Issue.record("expected a transport error")
    } catch ProviderError.transport(let error) {
      #expect(error.code == .notConnectedToInternet)
    }
  }

  @Test func stubbedStatusIsValidatedLikeTheNetwork() async throws {
    do {
      _ = try await provider.request(.notFound, as: DemoUser.self)
      Issue.record("expected a status error")
    } catch ProviderError.business(let code, let message, let response) {
      // An error envelope on a 404: the business failure, with the HTTP status kept.
      #expect(code == 404 && message == "nope")
      #expect(response.statusCode == 404)
      #expect(response.bodyPreview == #"{"code":404,"msg":"nope"}"#)
      #expect(response.request?.url?.absoluteString == "https://api.example.com/notFound")
    }
  }

  @Test func interactionFixtureKeepsStatusAndHeaders() async throws {
    let response = try await provider.response(.interactionError)
    #expect(response.statusCode == 200)
    #expect(response.headers["Content-Type"] == "application/json")
    let status = try LenientDecoder().envelopeStatus(from: response.data)
    #expect(status.code == 1001)
  }

  @Test func delayedStubWaitsAndCanBeCancelled() async throws {
    let slow = Provider<StubAPI>(stub: .delayed(.milliseconds(300)), fixtures: packageFixtures)
    let clock = ContinuousClock()
    let started = clock.now
    _ = try await slow.response(.inline)
    #expect(clock.now - started >= .milliseconds(300))

    let task = Task { try await slow.response(.inline) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test func pluginsRunInTheDocumentedOrder() async throws {
    let log = HookLog()
    let plugins = [RecordingPlugin(name: "A", log: log), RecordingPlugin(name: "B", log: log)]
    let provider = Provider<StubAPI>(plugins: plugins, stub: .immediate, fixtures: packageFixtures)
    let response = try await provider.response(.inline)
    #expect(response.request?.value(forHTTPHeaderField: "X-Plugin-B") == "B")
    #expect(
      log.all == [
        "A:prepare", "B:prepare", "A:willSend:A", "B:willSend:A", "A:didReceive", "B:didReceive",
        "A:process", "B:process",
      ])
  }

  @Test func processCanTurnASuccessIntoAFailureAndRetryCountsAttempts() async throws {
    let log = HookLog()
    let plugin = RecordingPlugin(name: "P", log: log, failSuccesses: true, retries: 2)
    let provider = Provider<StubAPI>(plugins: [plugin], stub: .immediate, fixtures: packageFixtures)
    await #expect(throws: ProviderError.self) { try await provider.response(.inline) }
    #expect(log.all.filter { $0.hasPrefix("P:retry") } == ["P:retry:1", "P:retry:2", "P:retry:3"])
    #expect(log.all.filter { $0 == "P:prepare" }.count == 3)
  }

  @Test func loggingPluginRedactsSecretsAndReportsTheResponse() async throws {
    let lines = HookLog()
    let logging = LoggingPlugin(level: .debug, redactedHeaders: ["x-api-key"]) { lines.add($1) }
    let provider = Provider<StubAPI>(
      plugins: [logging], stub: .immediate, fixtures: packageFixtures)
    _ = try await provider.response(.inline)
    let id = try #require(lines.all.first?.split(separator: " ").first)
    #expect(id.hasPrefix("#") && Int(id.dropFirst()) != nil)
    #expect(lines.all.first == "\(id) → GET https://api.example.com/inline")
    #expect(
      lines.all.dropFirst().first == "\(id)   Authorization: <redacted>, X-Api-Key: <redacted>")
    let received = try #require(lines.all.first { $0.hasPrefix("\(id) ←") })
    #expect(received.hasPrefix("\(id) ← 200 GET https://api.example.com/inline ("))
    #expect(received.hasSuffix(" ms, 53 bytes)"))
    #expect(!lines.all.joined().contains("secret") && !lines.all.joined().contains("k-123"))

    _ = try? await provider.response(.offline)
    #expect(lines.all.last?.contains("← failed after ") == true)
    #expect(lines.all.last?.contains("(GET https://api.example.com/offline)") == true)
    #expect(
      lines.all.last?.hasSuffix(
        ": transport error \(URLError.Code.notConnectedToInternet.rawValue)") == true)
  }

  @Test func requestBodiesAreDeterministicSoRecordingsReplay() async throws {
    let provider = Provider<BodyTarget>(stub: .immediate)
    func body(_ task: RequestTask) async throws -> (Data?, String?) {
      let request = try await provider.response(BodyTarget(task: task)).request
      return (request?.httpBody, request?.value(forHTTPHeaderField: "Content-Type"))
    }
    let parts = [
      MultipartPart(name: "note", data: Data("hi".utf8)),
      MultipartPart(
        name: "file", data: Data([0, 1, 2]), fileName: "a.bin",
        contentType: "application/octet-stream"),
    ]
    let (first, type) = try await body(.multipart(parts))
    let (second, _) = try await body(.multipart(parts))
    #expect(first == second)
    let boundary = try #require(type?.components(separatedBy: "boundary=").last)
    #expect(boundary.hasPrefix("EnvelopeKit-") && boundary.count == 44)
    let (other, _) = try await body(
      .multipart([MultipartPart(name: "note", data: Data("ho".utf8))]))
    #expect(other != first)

    let dictionary = ["b": 2, "a": 1, "c": 3, "d": 4, "e": 5]
    let (json, _) = try await body(.json(dictionary))
    #expect(json.map { String(decoding: $0, as: UTF8.self) } == #"{"a":1,"b":2,"c":3,"d":4,"e":5}"#)
  }
}

/// A target that is a class: a subclass's instance, stored as the base type, is still stubbed
/// (the stub transport finds the provider's target type by identity first, then by a cast).
class ClassTarget: TargetType, @unchecked Sendable {
  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/class" }
  var sample: StubResponse {
    .body(Data(#"{"code":0,"msg":"ok","data":{"id":\#(id),"name":"Class"}}"#.utf8))
  }
  var id: Int { 1 }
}

final class SubclassTarget: ClassTarget, @unchecked Sendable {
  override var id: Int { 2 }
}

@Suite struct ClassTargetStubTests {
  @Test func aSubclassInstanceOfAClassTargetIsStubbed() async throws {
    let provider = Provider<ClassTarget>(stub: .immediate)
    let base = try await provider.request(ClassTarget(), as: DemoUser.self)
    let sub = try await provider.request(SubclassTarget(), as: DemoUser.self)
    #expect(base == DemoUser(id: 1, name: "Class"))
    #expect(sub == DemoUser(id: 2, name: "Class"))
  }
}
