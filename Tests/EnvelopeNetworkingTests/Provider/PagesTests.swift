import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One item of the loopback server's `/pages` and `/cursor` listings.
struct Item: Codable, Equatable, Sendable { var id: Int }

/// A page of `/pages`: its items and what the server saw.
struct ItemPage: Codable, Sendable {
  var items: [Item]
  var authorization: String
  var apiKey: String
  var port: Int
}

/// A page of `/cursor`: its items and the next page's cursor.
struct CursorPage: Codable, Sendable {
  var items: [Item]
  var next: String?
}

/// Collects the pages of a sequence, and the error that ended it.
func collect<S: AsyncSequence>(_ pages: S) async -> (pages: [S.Element], error: (any Error)?) {
  var collected: [S.Element] = []
  do {
    for try await page in pages { collected.append(page) }
  } catch {
    return (collected, error)
  }
  return (collected, nil)
}

/// Hears the token a plugin provider is asked for, and every request sent.
final class SentURLs: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var urls: [URL] = []
  var all: [URL] { lock.withLock { urls } }

  func willSend(_ request: URLRequest, target: any TargetType) async {
    lock.withLock { urls.append(request.url ?? URL(fileURLWithPath: "/")) }
  }
}

/// What a `/pages` page says it got besides its items.
struct SeenPage: Codable, Sendable {
  var port: Int
  var apiKeyQuery: String
  var method: String
  var body: String
  var contentType: String
}

/// Adds `api_key` to the query of every request in `prepare`, as an API-key-in-query auth
/// plugin does.
struct QueryAPIKey: Plugin {
  func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    var request = request
    guard let url = request.url,
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return request }
    components.queryItems =
      (components.queryItems ?? []) + [URLQueryItem(name: "api_key", value: "planted-query-key")]
    request.url = components.url
    return request
  }
}

/// `Route` sent as a POST with a form body.
struct PostedRoute: TargetType {
  var route: Route
  var baseURL: URL { route.baseURL }
  var path: String { route.path }
  var method: HTTPMethod { .post }
  var query: [URLQueryItem] { route.query }
  var task: RequestTask {
    .data(Data("planted=body".utf8), contentType: "application/x-www-form-urlencoded")
  }
  var authorization: AuthorizationType { .none }
  var envelope: EnvelopeFormat? { route.envelope }
}

@Suite(.serialized) struct PagesTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  @Test func twentyThreeItemsOverThreeLinkPages() async throws {
    let id = uniqueID()
    let sent = SentURLs()
    let provider = Provider<Route>(plugins: [sent])
    let (pages, error) = await collect(
      provider.pages(Route.plain("/pages", ["id": id]), as: [Item].self, at: "items"))
    #expect(error == nil)
    #expect(pages.map(\.count) == [10, 10, 3])
    #expect(pages.flatMap { $0 } == (1...23).map(Item.init))
    #expect(try await hits("pages" + id).count == 3)
    // Each page went through the plugins; the relative links were resolved against the request.
    #expect(sent.all.map { $0.query?.contains("page=") ?? false } == [false, true, true])
    #expect(sent.all.allSatisfy { $0.host == "127.0.0.1" && $0.port == server.port })
  }

  @Test func envelopePagesAreTheirData() async throws {
    let id = uniqueID()
    let (pages, error) = await collect(
      Provider<Route>().pages(Route("/pages", ["id": id, "envelope": "1"]), as: ItemPage.self))
    #expect(error == nil)
    #expect(pages.flatMap(\.items) == (1...23).map(Item.init))
  }

  @Test func eachPageIsRetriedAndCachedAsAnyCall() async throws {
    let id = uniqueID()
    var target = Route.plain("/pages", ["id": id, "flaky": "2"])
    target.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    let provider = Provider<Route>(
      plugins: [RetryPolicy(baseDelay: .milliseconds(1))], cache: MemoryCache())
    let first = await collect(provider.pages(target, as: [Item].self, at: "items"))
    #expect(first.error == nil)
    #expect(first.pages.flatMap { $0 } == (1...23).map(Item.init))
    #expect(try await hits("pages" + id).count == 4)  // page 2 twice: a 503, then its retry
    // Again: every page, the followed ones too, from the cache.
    let again = await collect(provider.pages(target, as: [Item].self, at: "items"))
    #expect(again.pages.flatMap { $0 } == (1...23).map(Item.init))
    #expect(try await hits("pages" + id).count == 4)
  }

  @Test func aCursorAPIPagesThroughTheNextClosure() async throws {
    let id = uniqueID()
    let provider = Provider<Route>()
    let pages = provider.pages(Route("/cursor", ["id": id]), as: CursorPage.self) {
      page, response in
      #expect(response.statusCode == 200)
      return page.next.map { Route("/cursor", ["id": id, "cursor": $0]) }
    }
    let (collected, error) = await collect(pages)
    #expect(error == nil)
    #expect(collected.map(\.items.count) == [5, 5, 2])
    #expect(collected.flatMap(\.items) == (1...12).map(Item.init))
    #expect(try await hits("cursor" + id).count == 3)
  }

  @Test func anAbsoluteNextLinkIsNotRewrittenByTheProvidersBaseURL() async throws {
    let other = try TestServer()
    defer { other.stop() }
    let id = uniqueID()
    var target = Route.plain("/pages", ["id": id, "link": "other:\(other.port)"])
    target.server = nil  // the target's own base URL is nowhere: the provider's replaces it
    let provider = Provider<Route>(baseURL: server.baseURL)
    let (pages, error) = await collect(provider.pages(target, as: ItemPage.self))
    #expect(error == nil)
    #expect(pages.map(\.port) == [server.port, other.port, other.port])
    #expect(pages.flatMap(\.items) == (1...23).map(Item.init))
  }

  /// A provider whose credentials come from a plugin, and one whose come from the target's
  /// headers (no plugins: the direct attempt).
  static let credentialed: [String] = ["plugin", "target headers"]

  @Test(arguments: credentialed)
  func aNextLinkToAnotherOriginGoesWithoutCredentials(_ source: String) async throws {
    let id = uniqueID()
    var target = Route.plain("/pages", ["id": id, "link": "cross"])
    target.authorization = .bearer
    target.headers = ["X-Api-Key": "planted-key"]
    let provider: Provider<Route>
    if source == "plugin" {
      provider = Provider(plugins: [AccessTokenPlugin(token: { "planted-token" })])
    } else {
      target.headers["Authorization"] = "Bearer planted-token"
      provider = Provider()
    }
    let (pages, error) = await collect(provider.pages(target, as: ItemPage.self))
    #expect(error == nil)
    #expect(pages.map(\.authorization) == ["Bearer planted-token", "", ""])
    #expect(pages.map(\.apiKey) == ["planted-key", "", ""])
    #expect(pages.flatMap(\.items) == (1...23).map(Item.init))
  }

  /// A next link to another origin (`cross`: localhost after 127.0.0.1) gets neither the query
  /// credential a plugin adds in `prepare` nor the first target's body; one to the same origin
  /// (`absolute`) gets both. With and without plugins (the direct attempt). The server's links
  /// leave `api_key` out (`omit`), so any that arrives was added by the plugin.
  @Test(arguments: ["cross", "absolute"], [true, false])
  func aNextLinkToAnotherOriginGetsNoAddedQueryCredentialNorBody(
    _ link: String, _ plugin: Bool
  ) async throws {
    let id = uniqueID()
    let keeps = link == "absolute"
    let target = PostedRoute(
      route: Route.plain("/pages", ["id": id, "link": link, "omit": "api_key"]))
    let provider = Provider<PostedRoute>(plugins: plugin ? [QueryAPIKey()] : [])
    let (pages, error) = await collect(provider.pages(target, as: SeenPage.self))
    #expect(error == nil)
    #expect(pages.count == 3)
    let key = plugin ? "planted-query-key" : ""
    #expect(pages.map(\.apiKeyQuery) == [key, keeps ? key : "", keeps ? key : ""])
    let body = "planted=body"
    #expect(pages.map(\.body) == [body, keeps ? body : "", keeps ? body : ""])
    #expect(
      pages.map(\.contentType).map { $0.hasPrefix("application/x-www-form-urlencoded") }
        == [true, keeps, keeps])
    #expect(pages.map(\.method) == ["POST", "POST", "POST"])
  }

  /// A next link that is not http(s) is not followed: the sequence ends after the page that
  /// named it, with `PagingError.unsupportedLink`, and nothing more is sent.
  @Test(arguments: [
    "file:///etc/passwd", "ftp://127.0.0.1/pages", "javascript:alert(1)", "data:,x",
  ])
  func aNextLinkThatIsNotHTTPEndsTheSequenceWithPagingError(_ link: String) async throws {
    let id = uniqueID()
    let sent = SentURLs()
    let (pages, error) = await collect(
      Provider<Route>(plugins: [sent]).pages(
        Route.plain("/pages", ["id": id, "link": "raw:" + link]), as: [Item].self, at: "items"))
    #expect(pages.map(\.count) == [10])
    #expect(sent.all.count == 1)
    #expect(try await hits("pages" + id).count == 1)
    guard case .underlying(let underlying, let response)? = error as? ProviderError,
      case .unsupportedLink(let url)? = underlying as? PagingError
    else {
      Issue.record("ended with \(String(describing: error))")
      return
    }
    #expect(response?.statusCode == 200)
    #expect(url.absoluteString == link)
  }

  @Test func aNextLinkToTheSameOriginKeepsCredentials() async throws {
    let id = uniqueID()
    var target = Route.plain("/pages", ["id": id, "link": "absolute"])
    target.headers = ["Authorization": "Bearer planted-token"]
    let (pages, error) = await collect(
      Provider<Route>().pages(target, as: ItemPage.self))
    #expect(error == nil)
    #expect(pages.map(\.authorization) == Array(repeating: "Bearer planted-token", count: 3))
  }

  /// On the main actor, as an app's view model consumes it (this compiles in Swift 6 mode).
  ///
  /// No request may follow the first page, not even one sent ahead of the consumer (a
  /// read-ahead). A second sequence, read to its page 2 after the first one stopped, is the
  /// yardstick: once the server has counted that page 2, it has counted any page 2 the first
  /// sequence started before it (instead of a fixed 100 ms wait, which a loaded machine
  /// outlasts).
  @MainActor @Test func aConsumerThatStopsAfterTheFirstPageSendsNoMoreRequests() async throws {
    let id = uniqueID()
    var seen = 0
    for try await page in Provider<Route>().pages(
      Route.plain("/pages", ["id": id]), as: [Item].self, at: "items")
    {
      seen += page.count
      break
    }
    #expect(seen == 10)
    let yardstick = uniqueID()
    var read = 0
    for try await _ in Provider<Route>().pages(
      Route.plain("/pages", ["id": yardstick]), as: [Item].self, at: "items")
    {
      read += 1
      if read == 2 { break }
    }
    #expect(try await hits("pages" + yardstick).count == 2)
    #expect(try await hits("pages" + id).count == 1)
  }

  @Test func aFailingPageEndsTheSequenceWithItsError() async throws {
    let id = uniqueID()
    let pages = Provider<Route>().pages(
      Route.plain("/pages", ["id": id, "fail": "2"]), as: [Item].self, at: "items")
    var iterator = pages.makeAsyncIterator()
    #expect(try await iterator.next()?.count == 10)
    do {
      _ = try await iterator.next()
      Issue.record("the failed page gave a value")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 500)
    }
    #expect(try await iterator.next() == nil)
    #expect(try await hits("pages" + id).count == 2)
  }

  @Test func aNextLinkThatLoopsEndsTheSequenceWithPagingError() async throws {
    let id = uniqueID()
    let (pages, error) = await collect(
      Provider<Route>().pages(
        Route.plain("/pages", ["id": id, "link": "loop"]), as: [Item].self, at: "items"))
    // Page 1's next link names page 1 in other words (its query spelt out): fetched once more,
    // then that page's link repeats and the sequence stops.
    #expect(pages.count == 2)
    guard case .underlying(let underlying, let response)? = error as? ProviderError,
      case .repeatedLink(let url)? = underlying as? PagingError
    else {
      Issue.record("ended with \(String(describing: error))")
      return
    }
    #expect(response?.statusCode == 200)
    #expect(url.query?.contains("page=1") == true)
  }

  /// The server holds page 1 until the test lets it (`hold`), so the sequence can end by the
  /// consumer's cancellation only, however late a loaded machine gets to it. (Page 1 used to
  /// answer after 3 s, with the cancellation 200 ms in and a 2.5 s bound on the whole.)
  @Test func cancellingTheConsumerCancelsThePageInFlight() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport)
    var route = Route.plain("/pages", ["id": id, "hold": "1"])
    route.timeout = 600  // longer than the server's hold (60 s): only a cancellation hangs up
    let held = route
    let consumer = Task {
      await collect(provider.pages(held, as: [Item].self, at: "items")).error
    }
    try await waitForHits("pages" + id, 1)  // page 1 is at the server
    consumer.cancel()
    // The page's request went with it: the server sees its connection close, which nothing but
    // the cancellation does before the server answers (asked before the sequence's end is
    // awaited, which a request left running would hold up). The old bound, under 2.5 s from
    // the start, is that proof read off a clock.
    let hangUps = try await hits(of: "pages-aborted" + id, reaching: 1)
    _ = try await provider.request(Route("/pages/release", ["id": id]), as: SharedCount.self)
    #expect(hangUps == 1)
    let error = await consumer.value
    #expect(error is CancellationError, "\(String(describing: error))")
  }
}
