import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The snippets of "Migrating from Moya and MoyaMapper" (EnvelopeNetworking.docc/
// MigratingFromMoya.md). `MigrationGuideTests` checks that every swift block of the article is
// quoted from these files; the tests below run the snippets.

/// The types the Moya guide's snippets use.
enum MoyaGuide {
  struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
  }

  struct Item: Codable, Equatable, Sendable {
    var title: String
    var price: Double
  }

  // MARK: - ModelableParameterType

  /// MoyaMapper's `ModelableParameterType` is an `EnvelopeFormat`.
  static func shopDecoder() -> LenientDecoder {
    // successValue "000", statusCodeKey "retStatus", tipStrKey "retMsg", modelKey "retBody"
    let format = EnvelopeFormat(
      code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])
    var decoder = LenientDecoder()
    decoder.envelope = format
    return decoder
  }

  // MARK: - TargetType

  enum ShopAPI: TargetType {
    case user(id: Int)
    case items(page: Int)
    case feed

    var baseURL: URL { URL(string: "https://shop.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .user(let id): "/users/\(id)"
      case .items: "/items"
      case .feed: "/feed"
      }
    }
    var task: RequestTask {
      if case .items(let page) = self { .query(["page": "\(page)"]) } else { .plain }
    }
    var headers: [String: String] { ["Accept": "application/json"] }
    // MoyaMapper's CacheKeyType: .base shares one entry between every page.
    var cacheKey: CacheKey {
      if case .items = self { .base } else { .default }
    }
    // Moya's sampleData, with a status; more answers in `scenarios`.
    var sample: StubResponse {
      switch self {
      case .user(0): .body(Data(#"{"retStatus":"403","retMsg":"banned"}"#.utf8))
      case .user(let id):
        .body(Data(#"{"retStatus":"000","retBody":{"id":"\#(id)","name":"Ada"}}"#.utf8))
      case .items:
        .body(Data(#"{"retStatus":"000","retBody":[{"title":"Pen","price":"1.5"}]}"#.utf8))
      case .feed:
        .body(Data(#"{"retStatus":"000","retBody":{"list":[{"title":"Ink","price":2}]}}"#.utf8))
      }
    }
    var scenarios: [String: StubResponse] {
      ["offline": .failure(URLError(.notConnectedToInternet))]
    }
  }

  // MARK: - Parameters

  /// Moya's `Task.requestParameters(parameters:encoding:)`.
  enum SearchAPI: TargetType {
    case search(text: String, tags: [String])
    case create(name: String)
    case filter(ids: [Int])

    var baseURL: URL { URL(string: "https://shop.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String { "/items" }
    var method: HTTPMethod { if case .create = self { .post } else { .get } }
    var task: RequestTask {
      switch self {
      case .search(let text, let tags):
        // URLEncoding.default: the query for GET, HEAD and DELETE, a form body otherwise
        .parameters(["q": text, "tags": tags, "page": 1], encoding: .url)
      case .create(let name):
        // JSONEncoding.default
        .parameters(["name": name, "public": true], encoding: .json)
      case .filter(let ids):
        // URLEncoding(destination: .queryString, arrayEncoding: .noBrackets, boolEncoding: .literal)
        .parameters(
          ["id": ids, "open": true], encoding: .queryString.arrays(.noBrackets).bools(.literal))
      }
    }
  }

  // MARK: - Stubs

  static func stubbedProviders(decoder: LenientDecoder) -> [Provider<ShopAPI>] {
    let stubbed = Provider<ShopAPI>(decoder: decoder, stub: .immediate)  // immediatelyStub
    let slow = Provider<ShopAPI>(decoder: decoder, stub: .delayed(.milliseconds(300)))
    let some = Provider<ShopAPI>(
      decoder: decoder,
      stubbing: { target in
        if case .feed = target { .never } else { .immediate }
      })
    let offline = stubbed.scenario("offline")  // sampleResponseClosure's .networkError
    return [stubbed, slow, some, offline]
  }

  // MARK: - Plugins

  /// Where the app keeps its tokens.
  actor Session {
    var token = "old"
    func refresh() async throws { token = "new" }
  }

  static func authorizedProvider(
    session: Session, transport: any HTTPTransport, log: @escaping @Sendable (String) -> Void
  ) -> Provider<ShopAPI> {
    let auth = AccessTokenPlugin(expiredCodes: ["401"]) {
      await session.token
    } refresh: {
      try await session.refresh()
    }
    let logging = LoggingPlugin(level: .debug) { _, line in log(line) }
    return Provider<ShopAPI>(
      transport: transport, decoder: shopDecoder(), plugins: [auth, logging])
  }
}

/// Collects log lines.
final class LineLog: @unchecked Sendable {
  // `@unchecked Sendable`: `lines` is only touched with `lock` held.
  private let lock = NSLock()
  private var lines: [String] = []
  func add(_ line: String) { lock.withLock { lines.append(line) } }
  var all: [String] { lock.withLock { lines } }
}

@Suite struct MigrationMoyaSnippets {
  typealias User = MoyaGuide.User
  typealias Item = MoyaGuide.Item
  let provider = Provider<MoyaGuide.ShopAPI>(decoder: MoyaGuide.shopDecoder(), stub: .immediate)

  @Test func mapObjectAndMapArrayAreRequests() async throws {
    let provider = self.provider
    // mapObject(User.self)
    let user = try await provider.request(.user(id: 7), as: User.self)
    // mapArray(Item.self)
    let items = try await provider.request(.items(page: 1), as: [Item].self)
    // mapObject(Item.self, modelKey: "retBody>list"): a path inside data
    let list = try await provider.request(.feed, as: [Item].self, inData: "list")

    #expect(user == User(id: 7, name: "Ada"))
    #expect(items == [Item(title: "Pen", price: 1.5)])
    #expect(list == [Item(title: "Ink", price: 2)])
  }

  @Test func requestParametersAreParametersTasks() async throws {
    let provider = Provider<MoyaGuide.SearchAPI>(stub: .immediate)
    let search = try await provider.response(.search(text: "red pen", tags: ["a", "b"]))
    #expect(
      search.request?.url?.absoluteString
        == "https://shop.example.com/items?page=1&q=red%20pen&tags%5B%5D=a&tags%5B%5D=b")
    let create = try await provider.response(.create(name: "Pen"))
    #expect(create.request?.httpBody == Data(#"{"name":"Pen","public":true}"#.utf8))
    #expect(create.request?.value(forHTTPHeaderField: "Content-Type") == "application/json")
    let filter = try await provider.response(.filter(ids: [3, 1]))
    #expect(filter.request?.url?.query == "id=3&id=1&open=true")
  }

  @Test func aBusinessFailureIsAnError() async throws {
    var failure: (code: EnvelopeCode, message: String?)?
    do {
      _ = try await provider.request(.user(id: 0), as: User.self)
    } catch ProviderError.business(let code, let message, _) {
      // MoyaMapper's mapResult() == (false, "banned")
      failure = (code, message)
    }

    #expect(failure?.code == "403")
    #expect(failure?.message == "banned")
  }

  @Test func resultsWithoutThrowing() async throws {
    let response = try await provider.response(.user(id: 0))  // no envelope check
    let decoder = provider.decoder
    // mapResult()
    let status = try decoder.envelopeStatus(from: response.data)
    // mapObjResult(User.self) / mapArrayResult(Item.self)
    let result = try decoder.decodeEnvelopeResult(User.self, from: response.data)
    let shown = result.value?.name ?? result.status.message ?? "failed"

    #expect(!status.isSuccess && status.message == "banned")
    #expect(result.value == nil && result.status == status)
    #expect(shown == "banned")
  }

  @Test func rawValuesAtPaths() async throws {
    let body = try await provider.response(.items(page: 1)).data
    let decoder = provider.decoder
    // toJSON(): the body as a JSON value
    let json = try JSON(data: body)
    let firstTitle = json["retBody.0.title"]?.stringValue
    // fetchString(keys: [0, "title"]): the keys are relative to modelKey
    let title = try decoder.text(at: decoder.envelope.data.appending([0, "title"]), from: body)
    // fetchJSONString(path: "retBody"): from the root
    let text = try decoder.text(at: "retBody", from: body)

    #expect(firstTitle == "Pen")
    #expect(title == "Pen")
    #expect(text == #"[{"title":"Pen","price":"1.5"}]"#)
  }

  @Test func modelToJSON() throws {
    let user = User(id: 7, name: "Ada")
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = try encoder.encodeJSON(user)  // Modelable's toJSON()
    let text = try encoder.encodeString(user)  // toJSONString()

    #expect(json["name"] == .string("Ada"))
    #expect(text == #"{"id":7,"name":"Ada"}"#)
  }

  @Test func stubsAnswerLikeStubClosures() async throws {
    let providers = MoyaGuide.stubbedProviders(decoder: MoyaGuide.shopDecoder())
    let stubbed = providers[0]
    let offline = providers[3]
    #expect(try await stubbed.request(.user(id: 7), as: User.self).id == 7)
    do {
      _ = try await offline.request(.user(id: 7), as: User.self)
      Issue.record("expected a transport failure")
    } catch ProviderError.transport(let error) {
      #expect(error.code == .notConnectedToInternet)
    }
  }

  @Test func accessTokenRefreshesOnceAndRetries() async throws {
    let transport = CannedTransport([
      "/users/7": [
        .init(status: 401, body: ""),
        .init(body: #"{"retStatus":"000","retBody":{"id":7,"name":"Ada"}}"#),
      ]
    ])
    let session = MoyaGuide.Session()
    let lines = LineLog()
    let provider = MoyaGuide.authorizedProvider(
      session: session, transport: transport, log: lines.add)

    let user = try await provider.request(.user(id: 7), as: User.self)

    #expect(user.name == "Ada")
    #expect(transport.authorizations == ["Bearer old", "Bearer new"])
    #expect(lines.all.contains { $0.contains("→ GET https://shop.example.com/users/7") })
  }

  @Test func cachesAsMMCacheDid() async throws {
    let folder = migrationFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let user = User(id: 7, name: "Ada")

    let memory = MemoryCache()  // MMCache's .RAM container
    let hybrid = HybridCache(memory: MemoryCache(), disk: try DiskCache(directory: folder))
    try await memory.set(user, forKey: "me")  // cacheModel(value:key:)
    try await hybrid.set(user, forKey: "me")  // the same, cacheContainer: .hybrid
    let saved = await memory.value(User.self, forKey: "me")  // fetchModelCache(key:)
    try await memory.removeValue(forKey: "me")  // removeJSONCache("me")

    #expect(saved == user)
    #expect(await memory.value(User.self, forKey: "me") == nil)
    #expect(await hybrid.value(User.self, forKey: "me") == user)
  }

  @Test func removingCachedResponses() async throws {
    let cache = MemoryCache()
    let transport = CannedTransport([
      "/users/7": [.init(body: #"{"retStatus":"000","retBody":{"id":7,"name":"Ada"}}"#)]
    ])
    let provider = Provider<MoyaGuide.ShopAPI>(
      transport: transport, decoder: MoyaGuide.shopDecoder(), cache: cache)
    for try await _ in provider.cachedThenNetwork(.user(id: 7), as: User.self) {}
    #expect(cache.count == 1)

    try await provider.removeCachedResponse(for: .user(id: 7))  // removeResponseCache
    #expect(cache.count == 0)

    try await cache.set(User(id: 1, name: "Kept"), forKey: "profile")
    try await provider.cache?.removeAll()  // removeAllResponseCache, and every value too
    #expect(cache.count == 0)
  }

  @Test func cacheRequestIsCachedThenNetwork() async throws {
    let transport = CannedTransport([
      "/users/7": [
        .init(body: #"{"retStatus":"000","retBody":{"id":7,"name":"Ada"}}"#),
        .init(body: #"{"retStatus":"000","retBody":{"id":7,"name":"Ada L."}}"#),
      ]
    ])
    let provider = Provider<MoyaGuide.ShopAPI>(
      transport: transport, decoder: MoyaGuide.shopDecoder(), cache: MemoryCache())
    for try await _ in provider.cachedThenNetwork(.user(id: 7), as: User.self) {}  // fills it

    var shown: [(name: String, cached: Bool)] = []
    // provider.rx.cacheRequest(.user(id: 7)), each response mapped with mapObject(User.self)
    for try await user in provider.cachedThenNetwork(.user(id: 7), as: User.self) {
      shown.append((user.value.name, user.source != .network))
    }

    #expect(shown.map(\.name) == ["Ada", "Ada L."])
    #expect(shown.map(\.cached) == [true, false])
  }
}
