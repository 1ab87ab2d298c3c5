import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The EnvelopeNetworking contract of ../shared/API.md, spelled as it is written there, against
// the loopback server only.

private struct ContractUser: Codable, Equatable, Sendable {
  var id: Int
  var name: String
}

private struct ContractItem: Codable, Equatable, Sendable { var id: Int }

private struct ContractEcho: Codable, Sendable {
  var method: String
  var query: String
  var contentType: String
  var body: String
}

/// A target with nothing but the three requirements that have no default.
private enum Bare: TargetType {
  case one
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "/one" }
}

private enum Contract: TargetType {
  case ok, fail, error400, plain, delay, pages(envelope: Bool), ndjson, chat, feedEnvelope
  case echo(RequestTask, HTTPMethod)
  case bytes(Int), upload(URL), maxAge(String), notFound, anything, slowBytes

  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String {
    switch self {
    case .ok: "/envelope/ok"
    case .fail: "/envelope/fail"
    case .error400: "/error/400"
    case .plain: "/plain/repo"
    case .delay: "/delay"
    case .pages: "/pages"
    case .ndjson: "/feed/ndjson"
    case .chat: "/feed/chat"
    case .feedEnvelope: "/feed/envelope"
    case .echo: "/echo"
    case .bytes: "/bytes"
    case .upload: "/upload"
    case .maxAge: "/max-age"
    case .notFound: "/status/500html"
    case .anything: "/anything"
    case .slowBytes: "/bytes"
    }
  }
  var method: HTTPMethod {
    switch self {
    case .echo(_, let method): method
    case .upload: .post
    default: .get
    }
  }
  var task: RequestTask {
    if case .echo(let task, _) = self { return task }
    if case .upload(let file) = self { return .file(file, contentType: "application/octet-stream") }
    return .plain
  }
  var query: [URLQueryItem] {
    switch self {
    case .delay: [URLQueryItem(name: "seconds", value: "5")]
    case .pages(let envelope):
      [
        URLQueryItem(name: "total", value: "5"), URLQueryItem(name: "per", value: "2"),
        URLQueryItem(name: "envelope", value: envelope ? "1" : "0"),
      ]
    case .bytes(let count): [URLQueryItem(name: "n", value: "\(count)")]
    case .slowBytes:
      [URLQueryItem(name: "n", value: "6553600"), URLQueryItem(name: "pause", value: "0.05")]
    case .maxAge(let id): [URLQueryItem(name: "id", value: id)]
    default: []
    }
  }
  var envelope: EnvelopeFormat? {
    switch self {
    case .plain, .ndjson, .chat, .bytes, .slowBytes: .plain
    case .pages(let envelope): envelope ? nil : .plain
    default: nil
    }
  }
  var cachePolicy: CachePolicy {
    if case .maxAge = self { return .cacheElseLoad(maxAge: .seconds(60)) }
    return .never
  }
}

private struct Repo: Decodable, Sendable { var id: Int; var name: String; var code: Int }
private struct Chunk: Decodable, Sendable { var delta: String }
private struct Row: Decodable, Sendable { var id: Int; var price: Double }
private struct PageBody: Decodable, Sendable { var items: [ContractItem] }

/// A plugin that states no hook: every hook of API.md has a no-op default.
private struct Silent: Plugin {}

private actor Box<Value: Sendable> {
  var values: [Value] = []
  func append(_ value: Value) { values.append(value) }
}

private struct ReportPlugin: Plugin {
  let reports: Box<String>
  func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async {
    await reports.append(report.entries.map(\.path).joined(separator: ","))
  }
}

@Suite(.serialized) struct APIContractNetworkingTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available to start the loopback server")
  }

  // MARK: - Names and defaults

  @Test func targetDefaults() {
    let target = Bare.one
    #expect(target.method == .get)
    if case .plain = target.task {} else { Issue.record("task defaults to .plain") }
    #expect(target.headers.isEmpty)
    #expect(target.envelope == nil)
    #expect(target.query.isEmpty)
    #expect(target.authorization == .bearer)
    #expect(target.cacheKey == .default)
    #expect(
      target.error(for: Response(statusCode: 500, headers: [:], data: Data(), request: nil)) == nil)
  }

  @Test func methodsAndEnums() {
    let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, "OPTIONS"]
    #expect(
      methods.map(\.rawValue) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
    #expect(HTTPMethod(rawValue: "GET") == .get)
    let behaviors: [StubBehavior] = [.never, .immediate, .delayed(.milliseconds(5))]
    #expect(behaviors.count == 3)
    let auth: [AuthorizationType] = [.none, .bearer, .custom("Token")]
    #expect(Set(auth).count == 3)
    let keys: [CacheKey] = [.default, .base, .custom("v2")]
    #expect(Set(keys).count == 3)
    let levels: [LogLevel] = [.debug, .info, .warning, .error]
    #expect(levels == levels.sorted())
    #expect(LogLevel.debug < .error)
    #expect(LogLevel.error.rawValue > LogLevel.debug.rawValue)
    let policies: [CachePolicy] = [
      .never, .cacheElseLoad(maxAge: .seconds(1)), .loadElseCache,
      .loadElseCache(onServerError: true), .http,
    ]
    #expect(policies.count == 5)
    #expect(RetryPolicy.idempotentMethods == ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"])
    _ = RetryPolicy(
      maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(30),
      methods: RetryPolicy.idempotentMethods, statusCodes: [408, 429, 500, 502, 503, 504],
      retriesTransportErrors: true)
    let encodings: [ParameterEncoding] = [
      .url, .queryString, .json, .url.arrays(.brackets), .url.arrays(.noBrackets),
      .url.arrays(.indexInBrackets), .url.bools(.numeric), .url.bools(.literal),
    ]
    #expect(encodings.count == 8)
    let drifts: [Sourced<Int>.Source] = [.cache(storedAt: Date()), .network]
    #expect(drifts.count == 2)
    let events: [TransferEvent] = [.progress(completed: 1, total: nil)]
    #expect(events.count == 1)
    let metrics: TransferMetrics? = nil
    _ = metrics.map { ($0.duration, $0.bytesSent, $0.bytesReceived, $0.redirects) }
  }

  @Test func requestTaskCases() throws {
    let tasks: [RequestTask] = [
      .plain, .query(["a": "1"]), .json(ContractUser(id: 1, name: "a")), .form(["a": "1"]),
      .data(Data(), contentType: "text/plain"),
      .multipart([MultipartPart(name: "f", data: Data("x".utf8))]),
      .json(ContractUser(id: 1, name: "a"), encoder: JSONEncoder()),
      .file(URL(fileURLWithPath: "/tmp/x"), contentType: "text/plain"),
      .parameters(["q": "pen"], encoding: .url),
    ]
    #expect(tasks.count == 9)
  }

  @Test func stubResponses() async throws {
    let body = StubResponse.body(
      Data(#"{"code":0,"data":{"id":3,"name":"s"}}"#.utf8), status: 200, headers: [:])
    let fixture = StubResponse.fixture("users/18", status: 200, headers: [:])
    let failure = StubResponse.failure(URLError(.notConnectedToInternet))
    _ = (fixture, failure)
    let transport = StubOnly(answer: body)
    let provider = Provider<Bare>(transport: transport)
    #expect(
      try await provider.request(.one, as: ContractUser.self) == ContractUser(id: 3, name: "s"))
    // A target's sample: default 200 with an empty body.
    let stubbed = Provider<Bare>(stub: .immediate)
    let response = try await stubbed.response(.one)
    #expect(response.statusCode == 200)
    #expect(response.data.isEmpty)
    #expect(response.metrics == nil)
    let failing = Provider<Failing>(stub: .immediate)
    await #expect {
      try await failing.response(.one)
    } throws: { error in
      if case ProviderError.transport(let urlError) = error {
        return urlError.code == .notConnectedToInternet
      }
      return false
    }
  }

  // MARK: - Calls against the loopback server

  @Test func providerInitAndRequests() async throws {
    let provider = Provider<Contract>(
      transport: URLSessionTransport(session: .shared), decoder: .init(), plugins: [Silent()],
      stub: .never,
      fixtures: nil)
    let user = try await provider.request(.ok, as: ContractUser.self)
    #expect(user == ContractUser(id: 1, name: "Ada"))
    let inferred: ContractUser = try await provider.request(.ok)
    #expect(inferred == user)
    #expect(try await provider.request(.ok, as: String.self, at: "data.name") == "Ada")
    #expect(try await provider.request(.ok, as: String.self, inData: "name") == "Ada")
    let response: Response = try await provider.response(.ok)
    #expect(response.statusCode == 200)
    #expect(response.request?.url?.path == "/envelope/ok")
    #expect(!response.data.isEmpty)
    #expect(response.headers.keys.contains { $0.lowercased() == "content-type" })
    let metrics = try #require(response.metrics)
    #expect(metrics.bytesReceived > 0)
    #expect(metrics.redirects == 0)
  }

  @Test func providerInitWithEveryNamedParameter() async throws {
    let cache = MemoryCache(countLimit: 100, byteLimit: 10 << 20)
    let provider = Provider<Contract>(
      transport: URLSessionTransport(session: .shared, sensitiveHeaders: ["X-Secret"]),
      decoder: LenientDecoder(), plugins: [], stub: .never, fixtures: nil, scenario: nil,
      cache: cache, baseURL: nil, stubbing: { _ in .never }, cacheScope: { "user-1" },
      deduplicatesRequests: false)
    #expect(try await provider.request(.ok, as: ContractUser.self).id == 1)
  }

  @Test func businessFailureCarriesCodeMessageAndResponse() async throws {
    let provider = Provider<Contract>()
    do {
      _ = try await provider.request(.fail, as: ContractUser.self)
      Issue.record("expected .business")
    } catch ProviderError.business(let code, let message, let response) {
      #expect(code == 1001)
      #expect(message == "token expired")
      #expect(response.statusCode == 200)
    }
    // A non-2xx envelope with a non-success code is .business with its status kept.
    do {
      _ = try await provider.request(.error400, as: ContractUser.self)
      Issue.record("expected .business")
    } catch let error as ProviderError {
      guard case .business(40001, "phone invalid", let response) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(response.statusCode == 400)
      #expect(error.response?.statusCode == 400)
      struct Body: Decodable { var code: Int; var msg: String }
      #expect(error.errorBody(as: Body.self)?.msg == "phone invalid")
    }
  }

  @Test func statusErrorKeepsTheResponse() async throws {
    do {
      _ = try await Provider<Contract>().request(.notFound, as: ContractUser.self)
      Issue.record("expected .status")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 500)
    }
  }

  @Test func envelopeErrorsAreWrapped() async throws {
    let provider = Provider<Contract>()
    // A plain target: the body is the value, its `code` member is data.
    let repo = try await provider.request(.plain, as: Repo.self)
    #expect(repo.code == 99)
    // An envelope target whose body has no code: .envelope(.missingCode, response:).
    do {
      _ = try await provider.request(.anything, as: ContractEcho.self)
      Issue.record("expected .envelope(.missingCode)")
    } catch ProviderError.envelope(let error, let response) {
      #expect(error == .missingCode)
      #expect(response.statusCode == 200)
    }
    // A value that does not decode: .decoding(_, response:).
    do {
      _ = try await Provider<Contract>(decoder: LenientDecoder(policy: .strict))
        .request(.ok, as: [ContractUser].self)
      Issue.record("expected .decoding")
    } catch ProviderError.decoding(let error, let response) {
      guard case .typeMismatch = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(response.statusCode == 200)
    }
  }

  @Test func decodedResponseCarriesTheReport() async throws {
    let reports = Box<String>()
    let provider = Provider<Contract>(plugins: [ReportPlugin(reports: reports)])
    let decoded: DecodedResponse<ContractUser> = try await provider.decodedResponse(
      .ok, as: ContractUser.self)
    #expect(decoded.value.id == 1)
    #expect(decoded.report.isEmpty)
    #expect(decoded.response.statusCode == 200)
    let atPath = try await provider.decodedResponse(.ok, as: String.self, at: "data.name")
    #expect(atPath.value == "Ada")
    let drifted = try await Provider<Drift>(plugins: [ReportPlugin(reports: reports)])
      .decodedResponse(.one, as: ContractUser.self)
    #expect(drifted.report.entries.map(\.path) == ["data.id"])
    #expect(await reports.values.contains("data.id"))
  }

  @Test func cancellingTheTaskThrowsCancellationError() async throws {
    let provider = Provider<Contract>()
    let task = Task { try await provider.request(.delay, as: ContractUser.self) }
    try await Task.sleep(for: .milliseconds(200))
    task.cancel()
    let result = await task.result
    guard case .failure(let error) = result else {
      Issue.record("expected a failure")
      return
    }
    #expect(error is CancellationError, "\(error)")
  }

  @Test func queryCombinesWithATask() async throws {
    let provider = Provider<Contract>()
    let echo = try await provider.request(
      .echo(.json(["a": 1]), .post), as: ContractEcho.self)
    #expect(echo.method == "POST")
    #expect(echo.body == #"{"a":1}"#)
    #expect(echo.contentType.hasPrefix("application/json"))
    let form = try await provider.request(.echo(.form(["a": "1 2"]), .post), as: ContractEcho.self)
    #expect(form.contentType.hasPrefix("application/x-www-form-urlencoded"))
    let query = try await provider.request(.echo(.query(["q": "x"]), .get), as: ContractEcho.self)
    #expect(query.query == "q=x")
    let parameters = try await provider.request(
      .echo(.parameters(["q": "pen", "tags": ["a", "b"], "page": 2], encoding: .url), .get),
      as: ContractEcho.self)
    #expect(parameters.query == "page=2&q=pen&tags%5B%5D=a&tags%5B%5D=b")
  }

  @Test func cacheThenNetworkAndRemoval() async throws {
    let cache = MemoryCache()
    let provider = Provider<Contract>(cache: cache)
    let id = UUID().uuidString
    struct ContractCount: Decodable, Sendable { var count: Int }
    let first = try await provider.request(.maxAge(id), as: ContractCount.self)
    var sources: [Sourced<ContractCount>.Source] = []
    for try await sourced in provider.cachedThenNetwork(.maxAge(id), as: ContractCount.self) {
      sources.append(sourced.source)
      if case .cache = sourced.source { #expect(sourced.value.count == first.count) }
    }
    #expect(sources.count == 2)
    #expect(sources.last == .network)
    try await provider.removeCachedResponse(for: .maxAge(id))
    let anyCache: any ResponseCache = cache  // API.md's spelling is the protocol's
    try await anyCache.removeAll()
    try await cache.set(ContractUser(id: 1, name: "a"), forKey: "me")
    try await cache.removeValue(forKey: "me")
    #expect(await cache.value(ContractUser.self, forKey: "me") == nil)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api45-\(id)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let disk = try DiskCache(directory: folder, byteLimit: 50 << 20)
    _ = try DiskCache(directory: folder)
    _ = HybridCache(memory: MemoryCache(countLimit: 1, byteLimit: 1 << 20), disk: disk)
    try await (disk as any ResponseCache).removeResponse(forKey: "nothing")
  }

  @Test func downloadAndUpload() async throws {
    let provider = Provider<Contract>()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "api45-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("body")
    var finished: Response?
    for try await event in provider.download(.bytes(200_000), to: file) {
      if case .finished(let response) = event { finished = response }
    }
    #expect(finished?.statusCode == 200)
    #expect(try Data(contentsOf: file).count == 200_000)
    var uploaded: Response?
    for try await event in provider.upload(.upload(file)) {
      if case .finished(let response) = event { uploaded = response }
    }
    let body = try #require(uploaded?.data)
    #expect(String(decoding: body, as: UTF8.self).contains(#""received": 200000"#))
  }

  @Test func pagesFollowLinks() async throws {
    let provider = Provider<Contract>()
    var ids: [Int] = []
    for try await page in provider.pages(.pages(envelope: false), as: PageBody.self) {
      ids += page.items.map(\.id)
    }
    #expect(ids == [1, 2, 3, 4, 5])
    var inEnvelope: [Int] = []
    for try await items in provider.pages(
      .pages(envelope: true), as: [ContractItem].self, at: "items")
    {
      inEnvelope += items.map(\.id)
    }
    #expect(inEnvelope == [1, 2, 3, 4, 5])
    let response = try await provider.response(.pages(envelope: false))
    #expect(response.links["next"] != nil)
    #expect(response.links["last"] != nil)
  }

  @Test func streams() async throws {
    let provider = Provider<Contract>()
    var rows: [Int] = []
    for try await row in provider.lines(.ndjson, as: Row.self) { rows.append(row.id) }
    #expect(rows == [0, 1, 2, 3, 4])
    var text = ""
    var ids: [String?] = []
    for try await event in provider.events(.chat, as: Chunk.self) {
      let typed: ServerSentEvent<Chunk> = event
      text += typed.data.delta
      ids.append(typed.id)
      _ = (typed.event, typed.retry)
    }
    #expect(text == "Hello!")
    var elements: [Int] = []
    for try await row in provider.elements(.feedEnvelope, as: Row.self, at: "list") {
      elements.append(row.id)
    }
    #expect(elements == [0, 1, 2])
  }

  @Test func loggingAndTokenPlugins() async throws {
    let lines = Box<String>()
    let logger = LoggingPlugin(
      level: .info, redactedHeaders: ["X-Secret"], redactedQueryItems: ["sig"],
      log: { _, line in Task { await lines.append(line) } })
    let token = AccessTokenPlugin(expiredCodes: [1001], token: { "fresh" }, refresh: {})
    let provider = Provider<Contract>(plugins: [logger, token])
    _ = try await provider.request(.ok, as: ContractUser.self)
    try await Task.sleep(for: .milliseconds(100))
    #expect(await lines.values.contains { $0.contains("/envelope/ok") })
  }

  @Test func curlDescriptionRedacts() throws {
    var request = URLRequest(url: try #require(URL(string: "https://x.test/a")))
    request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
    request.setValue("v", forHTTPHeaderField: "X-Custom")
    let text = request.cURLDescription(redacting: ["X-Custom"])
    #expect(!text.contains("secret"))
    #expect(!text.contains(": v"))
    #expect(text.contains("curl"))
    #expect(!request.cURLDescription().contains("Bearer secret"))
  }
}

/// A transport that answers every request with one stub response's body.
private struct StubOnly: HTTPTransport {
  let answer: StubResponse
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let url = request.url ?? URL(fileURLWithPath: "/")
    guard
      let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:])
    else { throw URLError(.badServerResponse) }
    return (Data(#"{"code":0,"data":{"id":3,"name":"s"}}"#.utf8), response)
  }
}

private enum Failing: TargetType {
  case one
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "/one" }
  var sample: StubResponse { .failure(URLError(.notConnectedToInternet)) }
}

private enum Drift: TargetType {
  case one
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String { "/envelope/drift" }
}

// MARK: - Behaviours API.md states, on the loopback server

private enum Behaviour: TargetType {
  case once(String), flaky(String), auth, chat, bytes
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String {
    switch self {
    case .once: "/once"
    case .flaky: "/flaky"
    case .auth: "/auth"
    case .chat: "/feed/chat"
    case .bytes: "/bytes"
    }
  }
  var query: [URLQueryItem] {
    switch self {
    case .once(let id): [URLQueryItem(name: "id", value: id)]
    case .flaky(let id):
      [URLQueryItem(name: "id", value: id), URLQueryItem(name: "fails", value: "1")]
    case .bytes: [URLQueryItem(name: "n", value: "300000")]
    default: []
    }
  }
  var envelope: EnvelopeFormat? { self == .chat || self == .bytes ? .plain : nil }
  var cachePolicy: CachePolicy {
    if case .once = self { return .loadElseCache(onServerError: true) }
    return .never
  }
}

extension Behaviour: Equatable {}

private actor ContractTokenStore {
  var token = "stale"
  var refreshes = 0
  func refresh() {
    refreshes += 1
    token = "fresh"
  }
}

private struct ContractCount: Decodable, Sendable { var count: Int }

private func sendableAndHashable<T: Sendable & Hashable>(_: T.Type) {}
private func sendable<T: Sendable>(_: T.Type) {}

extension APIContractNetworkingTests {
  @Test func declaredConformancesHold() {
    sendableAndHashable(HTTPMethod.self)
    sendableAndHashable(AuthorizationType.self)
    sendableAndHashable(CacheKey.self)
    sendableAndHashable(Sourced<Int>.Source.self)
    sendable(RequestTask.self)
    sendable(StubBehavior.self)
    sendable(StubResponse.self)
    sendable(Response.self)
    sendable(URLSessionTransport.self)
    sendable(Provider<Bare>.self)
    sendable(ProviderError.self)
    sendable(DecodedResponse<Int>.self)
    sendable(TransferEvent.self)
    sendable(LogLevel.self)
    sendable(ParameterEncoding.self)
    sendable(TransferMetrics.self)
    sendable(ServerSentEvent<Int>.self)
    let transport: any HTTPTransport = URLSessionTransport()
    let plugins: [any Plugin] = [
      RetryPolicy(), Silent(), LoggingPlugin(), AccessTokenPlugin(token: { "t" }),
    ]
    let caches: [any ResponseCache] = [MemoryCache()]
    #expect(plugins.count == 4 && caches.count == 1)
    _ = transport
    let raw: Int = LogLevel.warning.rawValue
    #expect(LogLevel(rawValue: raw) == .warning)
  }

  @Test func loadElseCacheOnServerErrorAnswersA5xxFromTheCache() async throws {
    let provider = Provider<Behaviour>(cache: MemoryCache())
    let id = UUID().uuidString
    let first = try await provider.request(.once(id), as: ContractCount.self)
    // The server answers 500 now.
    let second = try await provider.request(.once(id), as: ContractCount.self)
    #expect(second.count == first.count)
  }

  @Test func retryPolicyRetriesA503() async throws {
    let provider = Provider<Behaviour>(plugins: [RetryPolicy(baseDelay: .milliseconds(1))])
    let value = try await provider.request(.flaky(UUID().uuidString), as: ContractCount.self)
    #expect(value.count == 2)
  }

  @Test func accessTokenPluginRefreshesOnAnExpiredCode() async throws {
    let store = ContractTokenStore()
    let plugin = AccessTokenPlugin(
      expiredCodes: [1001], token: { await store.token }, refresh: { await store.refresh() })
    let provider = Provider<Behaviour>(plugins: [plugin])
    let user = try await provider.request(.auth, as: ContractUser.self)
    #expect(user == ContractUser(id: 1, name: "Ada"))
    #expect(await store.refreshes == 1)
  }

  @Test func serverSentEventFields() async throws {
    var events: [ServerSentEvent<Chunk>] = []
    for try await event in Provider<Behaviour>().events(.chat, as: Chunk.self) {
      events.append(event)
    }
    #expect(events.map(\.data.delta) == ["Hel", "lo", "!"])
    #expect(events[1].event == "message")
    #expect(events[1].id == "7")
    #expect(events[2].retry == .milliseconds(1500))
  }

  @Test func downloadReportsProgress() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "api45-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    var progress: [Int64] = []
    for try await event in Provider<Behaviour>().download(.bytes, to: file) {
      if case .progress(let completed, let total) = event {
        progress.append(completed)
        #expect(total == nil || total == 300_000)
      }
    }
    #expect(progress.last == 300_000)
    #expect(progress == progress.sorted())
  }

  @Test func responseIsNilForTransportErrors() async throws {
    let provider = Provider<Failing>(stub: .immediate)
    do {
      _ = try await provider.request(.one, as: ContractUser.self)
      Issue.record("expected .transport")
    } catch let error as ProviderError {
      guard case .transport = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(error.response == nil)
    }
  }

  @Test func stubFixtureWithStatus() async throws {
    let provider = Provider<Fixtured>(stub: .immediate)
    let user = try await provider.request(.ok, as: ContractUser.self)
    #expect(user.id == 18)
    await #expect {
      try await provider.request(.missing, as: ContractUser.self)
    } throws: { error in
      guard case ProviderError.status(let response) = error else { return false }
      return response.statusCode == 503
    }
    let decoded = try await provider.decodedResponse(.ok) as DecodedResponse<ContractUser>
    #expect(decoded.value.name == "Ada")
  }
}

private enum Fixtured: TargetType {
  case ok, missing
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "/x" }
  var sample: StubResponse {
    switch self {
    case .ok: .fixture("contracts/users/ada")
    case .missing: .fixture("contracts/users/ada", status: 503, headers: ["Retry-After": "1"])
    }
  }
}

// MARK: - ProviderError's cases, each from the failure API.md names

private struct Refusal: Error, Equatable { var status: Int }
private struct PrepareFailure: Error {}

private enum Errors: TargetType {
  case serverError, ok, missingFixture, empty, plainRepo, noContent
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String {
    switch self {
    case .serverError: "/status/500html"
    case .ok: "/envelope/ok"
    case .missingFixture, .empty: "/none"
    case .plainRepo: "/plain/repo"
    case .noContent: "/nocontent"
    }
  }
  var envelope: EnvelopeFormat? { self == .plainRepo ? .plain : nil }
  var sample: StubResponse {
    switch self {
    case .missingFixture: .fixture("contracts/no/such/fixture")
    default: .body(Data())
    }
  }
  func error(for response: Response) -> (any Error)? {
    self == .serverError ? Refusal(status: response.statusCode) : nil
  }
}

private struct FailingPrepare: Plugin {
  func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    throw PrepareFailure()
  }
}

private struct AuthFailure: Error {}

extension APIContractNetworkingTests {
  @Test func targetErrorReplacesProviderError() async throws {
    await #expect(throws: Refusal(status: 500)) {
      try await Provider<Errors>().request(.serverError, as: ContractUser.self)
    }
  }

  @Test func fixtureNotFoundNamesTheFixture() async throws {
    do {
      _ = try await Provider<Errors>(stub: .immediate).request(
        .missingFixture, as: ContractUser.self)
      Issue.record("expected .fixtureNotFound")
    } catch ProviderError.fixtureNotFound(let name) {
      #expect(name.contains("contracts/no/such/fixture"))
    }
  }

  @Test func emptyBodyForANonOptionalValue() async throws {
    let provider = Provider<Errors>(stub: .immediate)
    do {
      _ = try await provider.request(.empty, as: ContractUser.self)
      Issue.record("expected .emptyBody")
    } catch ProviderError.emptyBody(let response) {
      #expect(response.statusCode == 200)
    }
    // An empty 200 is .emptyBody whatever T (Moya's failsOnEmptyData); a 204 gives an Optional nil.
    await #expect(throws: ProviderError.self) {
      try await provider.request(.empty, as: ContractUser?.self)
    }
    #expect(try await Provider<Errors>().request(.noContent, as: ContractUser?.self) == nil)
  }

  @Test func aPluginsErrorIsUnderlying() async throws {
    do {
      _ = try await Provider<Errors>(plugins: [FailingPrepare()]).request(
        .ok, as: ContractUser.self)
      Issue.record("expected .underlying")
    } catch ProviderError.underlying(let error, let response) {
      #expect(error is PrepareFailure)
      #expect(response == nil)
    }
  }

  @Test func aFailedRefreshIsAuthentication() async throws {
    let plugin = AccessTokenPlugin(
      expiredCodes: [1001], token: { "stale" }, refresh: { throw AuthFailure() })
    do {
      _ = try await Provider<Behaviour>(plugins: [plugin]).request(.auth, as: ContractUser.self)
      Issue.record("expected .authentication")
    } catch let error as ProviderError {
      guard case .authentication(let underlying) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(underlying is AuthFailure)
      #expect(error.response == nil)
    }
  }

  @Test func inDataUnderPlainReadsTheBody() async throws {
    struct Owner: Decodable { var login: String }
    let owner = try await Provider<Errors>().request(.plainRepo, as: Owner.self, inData: "owner")
    #expect(owner.login == "ada")
  }

  @Test func jsonTaskSortsKeysAndTakesAnEncoder() async throws {
    let provider = Provider<Contract>()
    let sorted = try await provider.request(
      .echo(.json(["b": 1, "a": 2]), .post), as: ContractEcho.self)
    #expect(sorted.body == #"{"a":2,"b":1}"#)
    struct Body: Encodable, Sendable { var userName: String }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let snake = try await provider.request(
      .echo(.json(Body(userName: "a"), encoder: encoder), .post), as: ContractEcho.self)
    #expect(snake.body == #"{"user_name":"a"}"#)
  }

  @Test func targetQueryJoinsAnyTask() async throws {
    let provider = Provider<QueryTarget>()
    let echo = try await provider.request(.post, as: ContractEcho.self)
    #expect(echo.query == "v=2")
    #expect(echo.body == #"{"a":1}"#)
  }

  @Test func delayedStubWaits() async throws {
    let clock = ContinuousClock()
    let start = clock.now
    _ = try await Provider<Bare>(stub: .delayed(.milliseconds(150))).response(.one)
    #expect(clock.now - start >= .milliseconds(150))
  }
}

private enum QueryTarget: TargetType {
  case post
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String { "/echo" }
  var method: HTTPMethod { .post }
  var task: RequestTask { .json(["a": 1]) }
  var query: [URLQueryItem] { [URLQueryItem(name: "v", value: "2")] }
}

// MARK: - Return types as API.md writes them (compiled, not run: a stream may start on creation)

private func yields<S: AsyncSequence<Element, any Error>, Element>(_: S, _: Element.Type) {}

private func returnTypesAsWritten(_ provider: Provider<Contract>, file: URL) {
  let cached: AsyncThrowingStream<Sourced<ContractUser>, any Error> = provider.cachedThenNetwork(
    .ok, as: ContractUser.self)
  let inferred: AsyncThrowingStream<Sourced<ContractUser>, any Error> = provider.cachedThenNetwork(
    .ok)
  let download: AsyncThrowingStream<TransferEvent, any Error> = provider.download(.ok, to: file)
  let upload: AsyncThrowingStream<TransferEvent, any Error> = provider.upload(.ok)
  _ = (cached, inferred, download, upload)
  yields(provider.pages(.ok, as: PageBody.self), PageBody.self)
  yields(provider.pages(.ok, as: PageBody.self, at: nil, next: nil), PageBody.self)
  yields(provider.lines(.ok, as: Row.self), Row.self)
  yields(provider.events(.ok, as: Chunk.self), ServerSentEvent<Chunk>.self)
  yields(provider.elements(.ok, as: Row.self, at: "list"), Row.self)
}

extension APIContractNetworkingTests {
  /// API.md: `download(_:to:)` and `upload(_:)` return `AsyncThrowingStream<TransferEvent, any
  /// Error>`; that spelling did not compile (they returned only `TransferEvents`).
  @Test func transfersAsTheStreamAPIMdNames() async throws {
    let provider = Provider<Contract>()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "api45-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("body")
    let download: AsyncThrowingStream<TransferEvent, any Error> = provider.download(
      .bytes(100_000), to: file)
    var finished: Response?
    for try await event in download {
      if case .finished(let response) = event { finished = response }
    }
    #expect(finished?.statusCode == 200)
    #expect(try Data(contentsOf: file).count == 100_000)
    let upload: AsyncThrowingStream<TransferEvent, any Error> = provider.upload(.upload(file))
    var uploaded: Response?
    for try await event in upload {
      if case .finished(let response) = event { uploaded = response }
    }
    let body = try #require(uploaded?.data)
    #expect(String(decoding: body, as: UTF8.self).contains("100000"))
  }

  @Test func leavingTheStreamStopsTheDownloadAndLeavesNoFile() async throws {
    let provider = Provider<Contract>()
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "api45-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    do {
      let download: AsyncThrowingStream<TransferEvent, any Error> = provider.download(
        .slowBytes, to: file)
      for try await event in download {
        if case .progress = event { break }
      }
    }
    // The relay and the transfer stop soon after; the partial file goes with them.
    var gone = false
    for _ in 0..<50 where !gone {
      try await Task.sleep(for: .milliseconds(100))
      gone = !FileManager.default.fileExists(atPath: file.path)
    }
    #expect(gone)
  }
}
