import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The networking listings of README.md and the EnvelopeNetworking DocC articles
// (EnvelopeNetworking, CachingAndOffline, KeepingCredentialsSafe, PagesAndRateLimits,
// StreamingCalls), as a newcomer copies them, with the declarations they assume. Listings that
// name real hosts are compiled, not run (the tests never reach the internet); what they promise
// is run against the loopback server through `Provider(baseURL:)`.

// MARK: - README.md, "First look"

private enum SnippetFirstLook {
  struct Repo: Decodable, Sendable { var id: Int; var name: String }
  struct Order: Decodable, Sendable { var id: Int }
  struct ChatChunk: Decodable, Sendable { var delta: String }
  struct Row: Decodable, Sendable { var id: Int }
  static func show(_ repos: [Repo]) {}
  static func save(_ row: Row) {}

  // GitHub-style: the body is the value; a failure is the HTTP status.
  enum GitHub: TargetType {
    case repos(org: String)
    var baseURL: URL { URL(string: "https://api.github.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .repos(let org): "/orgs/\(org)/repos"
      }
    }
    var envelope: EnvelopeFormat? { .plain }
  }
  // {"code": 0, "msg": "ok", "data": {...}}: the code is checked first, a non-zero one throws.
  enum Shop: TargetType {
    case order(Int)
    var baseURL: URL { URL(string: "https://shop.example.com/api") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .order(let id): "/orders/\(id)"
      }
    }
  }
  enum Chat: TargetType {
    case completion(String)
    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "/chat" }
  }
  enum Exports: TargetType {
    case all
    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "/export" }
  }

  // Compiled only: it names real hosts.
  static func listing(chat: Provider<Chat>, exports: Provider<Exports>, prompt: String) async throws
  {
    let github = Provider<GitHub>(plugins: [RetryPolicy(), LoggingPlugin()])
    for try await repos in github.pages(.repos(org: "swiftlang"), as: [Repo].self) {  // Link: next
      show(repos)
    }
    let order = try await Provider<Shop>().request(.order(7), as: Order.self)  // data, or .business
    _ = order
    for try await chunk in chat.events(.completion(prompt), as: ChatChunk.self) {  // until [DONE]
      print(chunk.data.delta, terminator: "")
    }
    for try await row in exports.lines(.all, as: Row.self) { save(row) }  // NDJSON
  }
}

// MARK: - README.md, "Networking"

private enum SnippetReadmeNetworking {
  struct User: Decodable, Sendable { var id: Int; var name: String }

  enum API: TargetType {
    case user(Int)
    var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .user(let id): "/users/\(id)"
      }
    }
    var sample: StubResponse { .fixture("users/18") }  // Fixtures/users/18.json
    var scenarios: [String: StubResponse] { ["expired": .fixture("errors/expired")] }
    var cachePolicy: CachePolicy { .loadElseCache }  // offline: last good answer
  }

  // Compiled only: it names a real host.
  static func listing(cacheURL: URL) async throws {
    let provider = Provider<API>(
      plugins: [LoggingPlugin()], cache: try DiskCache(directory: cacheURL))
    let user = try await provider.request(.user(18), as: User.self)  // ProviderError.business(...)
    _ = user

    let stubbed = Provider<API>(stub: .immediate)  // same plugins, validation, decoding
    let expired = stubbed.scenario("expired")
    _ = expired
  }
}

// MARK: - EnvelopeNetworking.md

private enum SnippetOverview {
  struct Credentials: Encodable, Sendable { var user: String; var password: String }
  struct User: Decodable, Sendable { var id: Int; var name: String }

  enum API: TargetType {
    case user(Int), login(Credentials)
    var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .user(let id): "/users/\(id)"
      case .login: "/login"
      }
    }
    var method: HTTPMethod { if case .login = self { .post } else { .get } }
    var task: RequestTask { if case .login(let body) = self { .json(body) } else { .plain } }
    var authorization: AuthorizationType { if case .login = self { .none } else { .bearer } }
  }

  static func listing(auth: AccessTokenPlugin) async throws {
    let provider = Provider<API>(plugins: [auth, LoggingPlugin()], cache: MemoryCache())
    let user = try await provider.request(.user(18), as: User.self)
    _ = user
  }
}

// MARK: - CachingAndOffline.md

private enum SnippetCaching {
  struct Profile: Decodable, Sendable { var id: Int }
  actor Session { var userID: String? = "ada" }
  static func show(_ profile: Profile, note: String?) {}

  enum API: TargetType {
    case feed, profile, catalog, other
    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "/" }
    var cachePolicy: CachePolicy {
      switch self {
      case .feed: .cacheElseLoad(maxAge: .seconds(60))  // fresh enough: no network
      case .profile: .loadElseCache(onServerError: true)  // offline or 5xx: last good answer
      case .catalog: .http  // as the server's Cache-Control says
      default: .never
      }
    }
  }

  static func listing(cachesFolder: URL, session: Session) async throws {
    let cache = HybridCache(
      memory: MemoryCache(countLimit: 200, byteLimit: 20 << 20),
      disk: try DiskCache(directory: cachesFolder, byteLimit: 100 << 20))
    let provider = Provider<API>(cache: cache, cacheScope: { await session.userID })

    try await provider.removeCachedResponse(for: .profile)  // MoyaMapper's removeResponseCache
    try await cache.removeValue(forKey: "settings")  // removeJSONCache
    try cache.removeAll()  // removeAllResponseCache: on logout

    for try await profile in provider.cachedThenNetwork(.profile, as: Profile.self) {
      switch profile.source {
      case .cache(let storedAt): show(profile.value, note: "saved \(storedAt)")
      case .network: show(profile.value, note: nil)
      }
    }
  }
}

// MARK: - KeepingCredentialsSafe.md (the pinning delegate uses Apple's Security framework and
// is not compiled on Linux)

private enum SnippetCredentials {
  enum API: TargetType {
    case one
    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "/" }
  }

  static func listing(request: URLRequest) {
    let transport = URLSessionTransport(sensitiveHeaders: ["X-Session"])
    let provider = Provider<API>(transport: transport, sensitiveHeaders: ["X-Session"])
    let logging = LoggingPlugin(redactedHeaders: ["X-Session"], redactedFields: ["ssn"])
    print(request.cURLDescription(redacting: ["X-Session"]))
    _ = (provider, logging)
  }
}

// MARK: - PagesAndRateLimits.md and StreamingCalls.md

private enum SnippetPages {
  struct FeedPage: Decodable, Sendable { var items: [Int]; var nextCursor: String? }
  struct Results: Decodable, Sendable {}
  struct Row: Decodable, Sendable {}
  struct ChatChunk: Decodable, Sendable { var delta: String }
  struct Order: Decodable, Sendable {}
  static func showRateLimited(until: Date?) {}
  static func save(_ row: Row) {}
  static func show(_ order: Order) {}
  static func show(_ results: Results) {}

  enum API: TargetType {
    case feed(cursor: String?), search(String), export, chat(String), orders
    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "/" }
  }

  static func listing(provider: Provider<API>, query: String, prompt: String) async throws {
    let feed = provider.pages(.feed(cursor: nil), as: FeedPage.self) { page, _ in
      page.nextCursor.map { .feed(cursor: $0) }
    }
    _ = feed
    do {
      let results = try await provider.request(.search(query), as: Results.self)
      show(results)
    } catch let error as ProviderError where error.response?.isRateLimited == true {
      showRateLimited(until: error.retryAfter)  // a Date, or nil when the server did not say
    }

    // JSON Lines / NDJSON: one value per line.
    for try await row in provider.lines(.export, as: Row.self) { save(row) }

    // Server-Sent Events (an OpenAI-style chat): each event's data, until `data: [DONE]`.
    for try await chunk in provider.events(.chat(prompt), as: ChatChunk.self) {
      print(chunk.data.delta, terminator: "")
    }

    // The elements of an array inside an envelope (or a plain body), while the rest downloads.
    for try await order in provider.elements(.orders, as: Order.self, at: "list") { show(order) }
  }
}

// MARK: - What the listings promise, on the loopback server

private enum SnippetLoopback: TargetType {
  case cursor(String?), plainRepo, fail
  var baseURL: URL { URL(fileURLWithPath: "/unused") }
  var path: String {
    switch self {
    case .cursor: "/cursor"
    case .plainRepo: "/plain/repo"
    case .fail: "/envelope/fail"
    }
  }
  var query: [URLQueryItem] {
    if case .cursor(let cursor?) = self { return [URLQueryItem(name: "cursor", value: cursor)] }
    return []
  }
  var envelope: EnvelopeFormat? { self == .plainRepo ? .plain : nil }
}

extension SnippetLoopback: Equatable {}

@Suite(.serialized) struct DocSnippetNetworkingTests {
  let server: URL

  init() throws {
    server = try #require(TestServer.shared?.baseURL, "python3 must be available")
  }

  @Test func baseURLOverridesTheTargets() async throws {
    struct Repo: Decodable { var id: Int; var code: Int }
    let provider = Provider<SnippetLoopback>(baseURL: server)
    let repo = try await provider.request(.plainRepo, as: Repo.self)
    #expect(repo.code == 99)  // a plain body's `code` is data
  }

  @Test func pagesWithACursorStopWhenNextIsNil() async throws {
    struct Page: Decodable, Sendable { var items: [Item]; var next: String? }
    struct Item: Decodable, Sendable { var id: Int }
    let provider = Provider<SnippetLoopback>(baseURL: server)
    var ids: [Int] = []
    for try await page in provider.pages(
      .cursor(nil), as: Page.self,
      next: { page, _ in
        page.next.map { .cursor($0) }
      })
    {
      ids += page.items.map(\.id)
    }
    #expect(ids == Array(1...12))
  }

  @Test func aNonZeroCodeIsBusiness() async throws {
    struct User: Decodable { var id: Int }
    await #expect {
      try await Provider<SnippetLoopback>(baseURL: server).request(.fail, as: User.self)
    } throws: { error in
      guard case ProviderError.business(1001, "token expired", _) = error else { return false }
      return true
    }
  }

  @Test func stubbingPerTarget() async throws {
    let provider = Provider<SnippetLoopback>(
      baseURL: server, stubbing: { $0 == .fail ? .immediate : .never })
    let stubbed = try await provider.response(.fail)
    #expect(stubbed.data.isEmpty)  // the default sample: 200, empty body
    let live = try await provider.response(.plainRepo)
    #expect(!live.data.isEmpty)
  }
}
