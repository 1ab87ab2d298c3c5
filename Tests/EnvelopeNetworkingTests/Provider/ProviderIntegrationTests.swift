import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct User: Codable, Equatable, Sendable { var id: Int; var name: String }
struct Echo: Codable, Sendable {
  var method: String
  var query: String
  var contentType: String
  var body: String
  var form: [String: String]
}

/// Endpoints of the loopback server in Support/server.py.
enum LoopbackAPI: TargetType {
  case ok, drift, fail, auth, notFound, serverError, noContent, slow, reset, big
  case echo(RequestTask, HTTPMethod)

  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var path: String {
    switch self {
    case .ok: "/envelope/ok"
    case .drift: "/envelope/drift"
    case .fail: "/envelope/fail"
    case .auth: "/auth"
    case .notFound: "/status/404json"
    case .serverError: "/status/500html"
    case .noContent: "/nocontent"
    case .slow: "/slow"
    case .reset: "/reset"
    case .big: "/big"
    case .echo: "/echo"
    }
  }
  var method: HTTPMethod {
    if case .echo(_, let method) = self { return method }
    return .get
  }
  var task: RequestTask {
    if case .echo(let task, _) = self { return task }
    return .plain
  }
  var timeout: TimeInterval { self == .slow || self == .reset ? 1 : 30 }
}

extension LoopbackAPI: Equatable {
  static func == (lhs: LoopbackAPI, rhs: LoopbackAPI) -> Bool { lhs.path == rhs.path }
}

@Suite(.serialized) struct ProviderIntegrationTests {
  let provider = Provider<LoopbackAPI>()

  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available to start the loopback server")
  }

  @Test func successEnvelopeDecodes() async throws {
    #expect(try await provider.request(.ok, as: User.self) == User(id: 1, name: "Ada"))
    #expect(try await provider.request(.drift, as: User.self) == User(id: 1, name: "Ada"))
    #expect(try await provider.request(.ok, as: String.self, at: "data.name") == "Ada")
  }

  @Test func businessFailureKeepsTheResponse() async throws {
    do {
      _ = try await provider.request(.fail, as: User.self)
      Issue.record("expected a business error")
    } catch ProviderError.business(let code, let message, let response) {
      #expect(code == 1001 && message == "token expired" && response.statusCode == 200)
      #expect(response.bodyPreview.contains("token expired"))
    }
  }

  @Test(arguments: [(LoopbackAPI.notFound, 404, "not found"), (.serverError, 500, "<h1>500")])
  func httpErrorsKeepStatusAndBody(_ target: LoopbackAPI, _ status: Int, _ snippet: String)
    async throws
  {
    do {
      _ = try await provider.request(target, as: User.self)
      Issue.record("expected a status error")
    } catch let error as ProviderError {
      // The 404's body is an error envelope (a business failure); the HTML 500 is a status.
      switch error {
      case .business(404, "not found", _) where status == 404: break
      case .status where status == 500: break
      default: Issue.record("\(error)")
      }
      #expect(error.response?.statusCode == status)
      #expect(error.response?.bodyPreview.contains(snippet) == true)
    }
  }

  @Test func noContentSucceedsForEmptyAndOptional() async throws {
    #expect(try await provider.request(.noContent, as: Empty.self) == Empty())
    #expect(try await provider.request(.noContent, as: User?.self) == nil)
    await #expect(throws: ProviderError.self) {
      try await provider.request(.noContent, as: User.self)
    }
  }

  @Test func slowResponseHitsTheTimeout() async throws {
    do {
      _ = try await provider.response(.slow)
      Issue.record("expected a timeout")
    } catch ProviderError.transport(let error) {
      #expect(error.code == .timedOut)
    }
  }

  @Test func connectionResetIsATransportError() async throws {
    await #expect(throws: ProviderError.self) { try await provider.response(.reset) }
  }

  @Test func tenMegabyteBodyDecodes() async throws {
    struct Blob: Decodable { var blob: String }
    let blob = try await provider.request(.big, as: Blob.self)
    #expect(blob.blob.utf8.count == 10 * 1024 * 1024)
  }

  @Test func bodiesArriveAsSent() async throws {
    let query = try await provider.request(
      .echo(.query(["b": "x y", "a": "é&"]), .get), as: Echo.self)
    #expect(query.query == "a=%C3%A9%26&b=x%20y")
    let json = try await provider.request(
      .echo(.json(User(id: 2, name: "Bo")), .post), as: Echo.self)
    #expect(json.contentType == "application/json")
    #expect(
      try JSONDecoder().decode(User.self, from: Data(json.body.utf8)) == User(id: 2, name: "Bo"))
    let form = try await provider.request(
      .echo(.form(["k": "v w", "z": "1"]), .put), as: Echo.self)
    #expect(form.method == "PUT" && form.form == ["k": "v w", "z": "1"])
    let parts: [MultipartPart] = [
      .text("title", "hello"),
      MultipartPart(
        name: "file", data: Data("abc".utf8), fileName: "a.txt", contentType: "text/plain"),
    ]
    let multipart = try await provider.request(.echo(.multipart(parts), .post), as: Echo.self)
    #expect(multipart.contentType.hasPrefix("multipart/form-data; boundary="))
    #expect(multipart.body.contains("name=\"title\"\r\n\r\nhello\r\n"))
    #expect(
      multipart.body.contains("filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nabc\r\n"))
  }

  @Test func twoHundredConcurrentRequestsAllSucceed() async throws {
    let provider = self.provider
    let count = try await withThrowingTaskGroup(of: User.self) { group in
      for _ in 0..<200 { group.addTask { try await provider.request(.ok, as: User.self) } }
      var count = 0
      for try await user in group where user.id == 1 { count += 1 }
      return count
    }
    #expect(count == 200)
  }

  @Test func expiredTokenRefreshesAndRetriesOnce() async throws {
    let store = TokenStore()
    let plugin = AccessTokenPlugin(
      expiredCodes: [1001], token: { await store.token }, refresh: { await store.refresh() })
    let provider = Provider<LoopbackAPI>(plugins: [plugin])
    #expect(try await provider.request(.auth, as: User.self) == User(id: 1, name: "Ada"))
    #expect(await store.refreshes == 1)
  }

  /// The server holds its answer until the test lets it, so the call ends by its cancellation
  /// only, however late a loaded machine gets to it. (It used `/slow` with a 1 s timeout and
  /// cancelled after 100 ms: a cancellation more than a second late met the timeout instead.)
  @Test func cancellingTheTaskCancelsTheRequest() async throws {
    let id = uniqueID()
    let task = Task { try await Provider<Route>(transport: wideTransport).response(heldRoute(id)) }
    try await waitForHits("shared" + id, 1)  // the request is at the server
    task.cancel()
    // The request itself went: the server sees its connection close, which nothing but the
    // cancellation does before the server answers (see heldRoute). Asked before the call's
    // end is awaited: a call that ended only when its request did would end when that closed.
    let hangUps = try await hits(of: "shared-aborted" + id, reaching: 1)
    try await releaseShared(id)
    #expect(hangUps == 1)
    await #expect(throws: CancellationError.self) { try await task.value }
  }
}

actor TokenStore {
  var token = "stale"
  var refreshes = 0
  func refresh() {
    refreshes += 1
    token = "fresh"
  }
}
