import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A target answered by an inline stub body (or the loopback server when not stubbed).
struct BodyStub: TargetType {
  var body = #"{"code":0,"msg":"ok","data":{"id":7,"name":"Inline"}}"#
  var path = "/stub"
  var envelope: EnvelopeFormat? = nil
  var baseURL: URL { URL(string: "https://unreachable.invalid") ?? URL(fileURLWithPath: "/") }
  var sample: StubResponse { .body(Data(body.utf8)) }
  var timeout: TimeInterval { 10 }
}

/// Remembers every result a plugin hook saw.
final class SeenResults: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var received: [Result<Response, ProviderError>] = []
  private var retried: [ProviderError] = []
  private var reports: [DecodingReport] = []

  var receivedAll: [Result<Response, ProviderError>] { lock.withLock { received } }
  var retriedAll: [ProviderError] { lock.withLock { retried } }
  var reportsAll: [DecodingReport] { lock.withLock { reports } }

  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    lock.withLock { received.append(result) }
  }
  func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration? {
    if let error = error as? ProviderError { lock.withLock { retried.append(error) } }
    return nil
  }
  func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async {
    lock.withLock { reports.append(report) }
  }
}

/// A transport whose own error is not a `URLError`.
struct BrokenTransport: HTTPTransport {
  struct Broken: Error {}
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) { throw Broken() }
}

struct MappedFailure: Error, Equatable { var code: String }

/// Answers an envelope and remembers the `ProviderCall.current` it ran under.
final class CallRecordingTransport: HTTPTransport, @unchecked Sendable {
  private let lock = NSLock()
  private var calls: [ProviderCall?] = []
  var seen: [ProviderCall?] { lock.withLock { calls } }

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let call = ProviderCall.current
    lock.withLock { calls.append(call) }
    let body = Data(#"{"code":0,"msg":"ok","data":{"id":7,"name":"Inline"}}"#.utf8)
    guard let url = request.url,
      let http = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:])
    else { throw URLError(.badURL) }
    return (body, http)
  }
}

/// Remembers the `ProviderCall.current` each `willSend` ran under.
final class CallRecordingPlugin: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var calls: [ProviderCall?] = []
  var seen: [ProviderCall?] { lock.withLock { calls } }

  func willSend(_ request: URLRequest, target: any TargetType) async {
    let call = ProviderCall.current
    lock.withLock { calls.append(call) }
  }
}

@Suite struct ProviderPipelineTests {
  @Test func aTransportErrorThatIsNotAURLErrorReachesThePluginsAsUnderlying() async throws {
    let seen = SeenResults()
    let provider = Provider<BodyStub>(transport: BrokenTransport(), plugins: [seen])
    do {
      _ = try await provider.response(BodyStub())
      Issue.record("the broken transport succeeded")
    } catch ProviderError.underlying(let error, let response) {
      #expect(error is BrokenTransport.Broken)
      #expect(response == nil)
    }
    guard case .failure(.underlying(let error, nil)) = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
    #expect(error is BrokenTransport.Broken)
    #expect(seen.retriedAll.count == 1)
  }

  @Test(arguments: [
    (#"{"msg":"no code","data":{}}"#, EnvelopeError.missingCode),
    (#"{"code":0,"msg":"ok"}"#, EnvelopeError.missingData(code: 0)),
  ])
  func envelopeProblemsAreEnvelopeErrors(body: String, expected: EnvelopeError) async throws {
    let seen = SeenResults()
    let provider = Provider<BodyStub>(plugins: [seen], stub: .immediate)
    do {
      _ = try await provider.request(BodyStub(body: body), as: DemoUser.self)
      Issue.record("decoded without an envelope")
    } catch ProviderError.envelope(let error, let response) {
      #expect(error == expected)
      #expect(String(decoding: response.data, as: UTF8.self) == body)
    }
    guard case .failure(.envelope) = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
  }

  @Test func businessFailuresGoThroughDidReceiveAndRetry() async throws {
    let seen = SeenResults()
    let provider = Provider<BodyStub>(plugins: [seen], stub: .immediate)
    let target = BodyStub(body: #"{"code":1001,"msg":"expired"}"#)
    await #expect(throws: ProviderError.self) {
      try await provider.request(target, as: DemoUser.self)
    }
    guard case .failure(.business(let code, let message, _)) = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
    #expect(code == 1001 && message == "expired")
    #expect(seen.retriedAll.count == 1)
  }

  @Test func aMappedErrorReachesTheCallerAsItselfAndThePluginsAsUnderlying() async throws {
    let seen = SeenResults()
    let format = EnvelopeFormat.default.mappingErrors { MappedFailure(code: "\($0.code ?? 0)") }
    let provider = Provider<BodyStub>(plugins: [seen], stub: .immediate)
    let target = BodyStub(body: #"{"code":7,"msg":"no"}"#, envelope: format)
    await #expect(throws: MappedFailure(code: "7")) {
      try await provider.request(target, as: DemoUser.self)
    }
    guard case .failure(.underlying(let error, let response?)) = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
    #expect(error as? MappedFailure == MappedFailure(code: "7"))
    #expect(response.statusCode == 200)
  }

  @Test func decodedResponseKeepsTheReportAndPluginsSeeIt() async throws {
    let seen = SeenResults()
    let lines = HookLog()
    let logging = LoggingPlugin(level: .warning) { lines.add("\($0): \($1)") }
    let provider = Provider<BodyStub>(plugins: [seen, logging], stub: .immediate)
    let drifted = BodyStub(body: #"{"code":"0","data":{"id":"7","name":"Inline","token":99}}"#)
    let decoded = try await provider.decodedResponse(drifted, as: DemoUser.self)
    #expect(decoded.value == DemoUser(id: 7, name: "Inline"))
    #expect(decoded.response.statusCode == 200)
    #expect(decoded.report.entries.map(\.path) == ["data.id"])
    #expect(seen.reportsAll.map(\.entries) == [decoded.report.entries])
    #expect(lines.all.count == 1)
    #expect(lines.all.first?.hasPrefix("warning: #") == true)
    #expect(
      lines.all.first?.contains("⚠ drift in GET https://unreachable.invalid/stub: data.id") == true)
    // A clean response makes no report and calls no didDecode.
    _ = try await provider.decodedResponse(BodyStub(), as: DemoUser.self)
    #expect(seen.reportsAll.count == 1)
  }

  @Test func requestInDataChecksTheCodeThenDecodesThePath() async throws {
    let provider = Provider<BodyStub>(stub: .immediate)
    let page = BodyStub(body: #"{"code":0,"data":{"list":[{"id":1,"name":"a"}],"total":1}}"#)
    #expect(try await provider.request(page, as: [DemoUser].self, inData: "list").count == 1)
    #expect(try await provider.request(page, as: Int.self, inData: "total") == 1)
    let failed = BodyStub(body: #"{"code":5,"msg":"no","data":{"list":"garbage"}}"#)
    do {
      _ = try await provider.request(failed, as: [DemoUser].self, inData: "list")
      Issue.record("a business failure decoded")
    } catch ProviderError.business(let code, _, _) {
      #expect(code == 5)
    }
    do {
      _ = try await provider.request(page, as: [DemoUser].self, inData: "missing")
      Issue.record("a missing path decoded")
    } catch ProviderError.decoding(let error, _) {
      guard case .keyNotFound(let key, let context) = error else {
        Issue.record("\(error)")
        return
      }
      #expect((context.codingPath + [key]).map(\.stringValue) == ["data", "missing"])
    }
  }

  // The provider hands the attempt to its line directly, and sets `ProviderCall.current` only
  // around your code: your transport always, the hooks when there are plugins.
  @Test func yourTransportAndYourHooksSeeTheCall() async throws {
    let bare = CallRecordingTransport()
    let alone = Provider<BodyStub>(transport: bare)
    _ = try await alone.request(BodyStub(), as: DemoUser.self)
    _ = try await alone.request(BodyStub(), as: DemoUser.self)
    let ids = bare.seen.map { $0?.id }
    #expect(bare.seen.count == 2 && ids.allSatisfy { $0 != nil } && ids[0] != ids[1])
    #expect(bare.seen.map { $0?.attempt } == [1, 1])

    let transport = CallRecordingTransport()
    let plugin = CallRecordingPlugin()
    let hooked = Provider<BodyStub>(transport: transport, plugins: [plugin])
    _ = try await hooked.request(BodyStub(), as: DemoUser.self)
    #expect(plugin.seen.count == 1 && plugin.seen.first??.id != nil)
    #expect(transport.seen.map { $0?.id } == plugin.seen.map { $0?.id })
    #expect(ProviderCall.current == nil)
  }

  @Test func stubbingPicksTheBehaviourPerTarget() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    // Everything goes to the loopback server's base URL, except the target stubbed by name.
    let provider = Provider<BodyStub>(
      baseURL: server.baseURL, stubbing: { $0.path == "/stub" ? .immediate : .never })
    #expect(try await provider.request(BodyStub(), as: DemoUser.self).name == "Inline")
    let live = try await provider.request(BodyStub(path: "/envelope/ok"), as: User.self)
    #expect(live == User(id: 1, name: "Ada"))
  }
}

/// `/echo` with a query on the target and any task.
struct QueryEcho: TargetType {
  var task: RequestTask
  var method: HTTPMethod = .post
  var query: [URLQueryItem] = [
    URLQueryItem(name: "a", value: "1"), URLQueryItem(name: "a", value: "2"),
    URLQueryItem(name: "q", value: "x+y&z"),
  ]
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String { "/echo" }
}

@Suite struct RequestShapeTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func aPostHasTheTargetQueryAndAJSONBody() async throws {
    let provider = Provider<QueryEcho>()
    let echo = try await provider.request(QueryEcho(task: .json(["b": 1])), as: Echo.self)
    #expect(echo.method == "POST")
    #expect(echo.query == "a=1&a=2&q=x%2By%26z")
    #expect(echo.body == #"{"b":1}"#)
    #expect(echo.contentType == "application/json")
  }

  @Test func theTaskQueryComesBeforeTheTargetQuery() async throws {
    let provider = Provider<QueryEcho>()
    let echo = try await provider.request(
      QueryEcho(
        task: .query(["z": "0"]), method: .get, query: [URLQueryItem(name: "a", value: nil)]),
      as: Echo.self)
    #expect(echo.query == "z=0&a=")
  }

  @Test func aCustomEncoderShapesTheJSONBody() async throws {
    struct Payload: Encodable, Sendable { var userName: String }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let provider = Provider<QueryEcho>()
    let echo = try await provider.request(
      QueryEcho(task: .json(Payload(userName: "ada"), encoder: encoder), query: []), as: Echo.self)
    #expect(echo.body == #"{"user_name":"ada"}"#)
    #expect(echo.query == "")
  }

  @Test func logLinesOfConcurrentCallsToOneURLCarryTheirOwnIds() async throws {
    let lines = HookLog()
    let logging = LoggingPlugin { lines.add($1) }
    let provider = Provider<LoopbackAPI>(plugins: [logging])
    async let first = provider.response(.ok)
    async let second = provider.response(.ok)
    _ = try await (first, second)
    let ids = Set(lines.all.compactMap { $0.split(separator: " ").first.map(String.init) })
    #expect(ids.count == 2)
    for id in ids {
      let mine = lines.all.filter { $0.hasPrefix(id + " ") }
      #expect(mine.count == 2)
      #expect(mine.first?.hasPrefix("\(id) → GET ") == true)
      #expect(mine.last?.contains(" ms, ") == true && mine.last?.contains("? ms") == false)
    }
  }

  @Test func businessFailuresAndRetriesAreLoggedAsSuch() async throws {
    let lines = HookLog()
    let logging = LoggingPlugin(level: .warning) { lines.add("\($0) \($1)") }
    let tokens = Tokens()
    let auth = AccessTokenPlugin(expiredCodes: [1001], token: { await tokens.token }) {
      try await tokens.refresh()
    }
    let provider = Provider<LoopbackAPI>(plugins: [auth, logging])
    _ = try await provider.request(.auth, as: User.self)
    #expect(lines.all.count == 2, "\(lines.all)")
    #expect(lines.all.first?.contains("← 200 business 1001 \"token expired\" GET ") == true)
    #expect(lines.all.last?.contains("↻ attempt 2 in 0 ms after business 1001") == true)
  }
}
