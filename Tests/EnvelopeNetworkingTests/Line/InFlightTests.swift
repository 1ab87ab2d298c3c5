import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `/shared`'s answer: how many requests of its id the server had seen when it answered.
struct SharedCount: Decodable, Sendable, Equatable { var count: Int }

/// `/shared` for `id`: answers after `seconds`, or, `gated`, when `releaseShared(id)` comes
/// (`seconds` at the latest).
func sharedRoute(
  _ id: String, seconds: Double = 1, gated: Bool = false, method: HTTPMethod = .get,
  headers: [String: String] = [:], fails: Int = 0
) -> Route {
  var query = ["id": id, "seconds": "\(seconds)", "fails": "\(fails)"]
  if gated { query["gate"] = "1" }
  var route = Route("/shared", query)
  route.method = method
  route.headers = headers
  route.timeout = 60  // twenty calls without sharing queue for the session's connections
  return route
}

/// `/shared` for `id`, held: the server answers only when `releaseShared(id)` comes (120 s at the
/// latest), and counts a client that hangs up before as `shared-aborted<id>`. Its timeout (600
/// s) is longer than the server's hold, so nothing but a cancellation closes its connection
/// before the answer: a hang-up counted proves the cancellation reached the request, with no
/// clock to read (a full run can hold every thread of the concurrency pool for a minute).
func heldRoute(_ id: String) -> Route {
  var route = sharedRoute(id, seconds: 120, gated: true)
  route.timeout = 600
  return route
}

/// A transport with a session of its own, wide enough for every call of a test at once: the
/// timing of these tests does not depend on other suites' calls queued for the shared session's
/// connections.
let wideTransport: URLSessionTransport = {
  let configuration = URLSessionConfiguration.ephemeral
  configuration.httpMaximumConnectionsPerHost = 64
  configuration.urlCache = nil
  return URLSessionTransport(session: URLSession(configuration: configuration))
}()

/// How often the server saw `key`, asked through `wideTransport`.
func sharedHits(_ key: String) async throws -> Int {
  try await Provider<Route>(transport: wideTransport).request(
    Route("/count", ["key": key]), as: Hits.self
  ).count
}

/// Lets the gated `/shared` requests of `id` answer, those waiting and those to come.
func releaseShared(_ id: String) async throws {
  _ = try await Provider<Route>(transport: wideTransport).request(
    Route("/shared/release", ["id": id]), as: SharedCount.self)
}

/// Waits until the server has seen `count` requests of `key` (`poll`'s rounds at most: a loaded machine
/// may take seconds to send one).
func waitForHits(
  _ key: String, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
  try #require(try await hits(of: key, reaching: count) >= count, sourceLocation: sourceLocation)
}

/// How often the server saw `key` once that is `count`, or after `poll`'s rounds.
func hits(of key: String, reaching count: Int) async throws -> Int {
  _ = try await poll { try await sharedHits(key) >= count }
  return try await sharedHits(key)
}

/// Who the cache entries (and shared exchanges) of a call belong to, in a test.
enum SignedIn {
  @TaskLocal static var user: String?
}

/// `Provider(deduplicatesRequests:)`: identical GETs in flight share one network exchange.
@Suite struct InFlightTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  /// The provider's shared exchanges still in flight (its line is the sharing stage when it has
  /// no stubs and no cache).
  func inFlight(_ provider: Provider<Route>) -> Int? {
    (provider.line as? InFlightTransport)?.flights.count
  }

  /// Waits until `count` callers wait for the provider's exchanges in flight (`poll`'s rounds at most).
  func waitForCallers(_ provider: Provider<Route>, _ count: Int) async throws {
    let callers = try await callers(of: provider, reaching: count)
    try #require(callers == count)
  }

  /// Waits until `count` callers wait for the provider's exchanges in flight (`poll`'s rounds at most),
  /// then lets the gated `/shared` requests of `id` answer: when the wait fails too, so that
  /// they do not hold their connections for a minute.
  func release(
    _ id: String, whenCallersReach count: Int, of provider: Provider<Route>
  ) async throws {
    let callers = try await callers(of: provider, reaching: count)
    try await releaseShared(id)
    try #require(callers == count)
  }

  /// How many callers wait for the provider's exchanges once they are `count`, or after `poll`'s rounds.
  private func callers(of provider: Provider<Route>, reaching count: Int) async throws -> Int {
    let flights = try #require((provider.line as? InFlightTransport)?.flights)
    _ = await poll { flights.callers >= count }
    return flights.callers
  }

  @Test func twentyIdenticalConcurrentGETsMakeOneServerCall() async throws {
    let id = uniqueID()
    let timeline = Timeline()
    let provider = Provider<Route>(
      transport: wideTransport, plugins: [timeline], deduplicatesRequests: true)
    let values = try await withThrowingTaskGroup(of: SharedCount.self) { group in
      for _ in 0..<20 {
        group.addTask {
          try await provider.request(
            sharedRoute(id, seconds: 60, gated: true), as: SharedCount.self)
        }
      }
      // All of them joined before the server answers.
      try await release(id, whenCallersReach: 20, of: provider)
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(values == Array(repeating: SharedCount(count: 1), count: 20))
    #expect(try await sharedHits("shared" + id) == 1)
    // Every caller went through its own plugins.
    #expect(timeline.all.filter { $0.name == "willSend" }.count == 20)
    #expect(timeline.all.filter { $0.name == "didReceive" }.count == 20)
    #expect(inFlight(provider) == 0)  // nothing kept once the exchange is over
  }

  @Test func identicalGETsAreNotSharedByDefault() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport)
    try await withThrowingTaskGroup(of: SharedCount.self) { group in
      for _ in 0..<20 {
        group.addTask {
          try await provider.request(sharedRoute(id, seconds: 0.2), as: SharedCount.self)
        }
      }
      try await group.waitForAll()
    }
    #expect(try await sharedHits("shared" + id) == 20)
  }

  @Test func differentHeadersMakeTwoServerCalls() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport, deduplicatesRequests: true)
    try await withThrowingTaskGroup(of: SharedCount.self) { group in
      for variant in ["a", "b"] {
        for _ in 0..<10 {
          let target = sharedRoute(id, seconds: 60, gated: true, headers: ["X-Variant": variant])
          group.addTask { try await provider.request(target, as: SharedCount.self) }
        }
      }
      try await release(id, whenCallersReach: 20, of: provider)
      try await group.waitForAll()
    }
    #expect(try await sharedHits("shared" + id) == 2)
  }

  @Test func twoCacheScopesMakeTwoServerCalls() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(
      transport: wideTransport, cacheScope: { SignedIn.user }, deduplicatesRequests: true)
    try await withThrowingTaskGroup(of: SharedCount.self) { group in
      for user in ["ada", "grace"] {
        for _ in 0..<5 {
          group.addTask {
            try await SignedIn.$user.withValue(user) {
              try await provider.request(
                sharedRoute(id, seconds: 60, gated: true), as: SharedCount.self)
            }
          }
        }
      }
      try await release(id, whenCallersReach: 10, of: provider)
      try await group.waitForAll()
    }
    #expect(try await sharedHits("shared" + id) == 2)
  }

  /// What a prepare plugin may change in a request besides its URL and headers that changes
  /// what the session sends or answers from: the cookies it adds from its jar, its `URLCache`.
  enum Difference: String, CaseIterable, Sendable {
    case noCookies, reloadIgnoringCache

    /// `request` with this difference.
    func apply(to request: URLRequest) -> URLRequest {
      var request = request
      switch self {
      case .noCookies: request.httpShouldHandleCookies = false
      case .reloadIgnoringCache: request.cachePolicy = .reloadIgnoringLocalCacheData
      }
      return request
    }

    @TaskLocal static var current: Difference?
  }

  /// Applies the task's `Difference` in `prepare`.
  struct Differs: Plugin {
    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
      Difference.current?.apply(to: request) ?? request
    }
  }

  @Test(arguments: Difference.allCases)
  func aRequestThatHandlesCookiesOrTheCacheOtherwiseIsNotShared(difference: Difference)
    async throws
  {
    let id = uniqueID()
    let provider = Provider<Route>(
      transport: wideTransport, plugins: [Differs()], deduplicatesRequests: true)
    let target = sharedRoute(id, seconds: 60, gated: true)
    let first = Task { try await provider.request(target, as: SharedCount.self) }
    try await waitForHits("shared" + id, 1)
    let second = Task {
      try await Difference.$current.withValue(difference) {
        try await provider.request(target, as: SharedCount.self)
      }
    }
    try await waitForHits("shared" + id, 2)  // the second did not join the first's exchange
    try await releaseShared(id)
    #expect(try await first.value == SharedCount(count: 1))
    #expect(try await second.value == SharedCount(count: 2), "it waited for the first's exchange")
    #expect(try await sharedHits("shared" + id) == 2)
  }

  @Test(arguments: [HTTPMethod.post, .put, .delete])
  func otherMethodsAreNeverShared(method: HTTPMethod) async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport, deduplicatesRequests: true)
    try await withThrowingTaskGroup(of: SharedCount.self) { group in
      for _ in 0..<5 {
        group.addTask {
          try await provider.request(
            sharedRoute(id, seconds: 0.5, method: method), as: SharedCount.self)
        }
      }
      try await group.waitForAll()
    }
    #expect(try await sharedHits("shared" + id) == 5)
  }

  @Test func aSharedFailureReachesEveryCaller() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport, deduplicatesRequests: true)
    let statuses = await withTaskGroup(of: Int?.self) { group in
      for _ in 0..<5 {
        group.addTask {
          do {
            _ = try await provider.request(
              sharedRoute(id, seconds: 60, gated: true, fails: 1), as: SharedCount.self)
            return nil
          } catch let error as ProviderError {
            return error.response?.statusCode
          } catch {
            return nil
          }
        }
      }
      #expect((try? await release(id, whenCallersReach: 5, of: provider)) != nil)
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: 503, count: 5))
    #expect(try await sharedHits("shared" + id) == 1)
  }

  @Test func aRetryAfterTheSharedExchangeEndedStartsANewOne() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(
      transport: wideTransport, plugins: [RetryPolicy(baseDelay: .milliseconds(10))],
      deduplicatesRequests: true)
    let value = try await provider.request(
      sharedRoute(id, seconds: 0.1, fails: 1), as: SharedCount.self)
    #expect(value == SharedCount(count: 2))
    #expect(try await sharedHits("shared" + id) == 2)
  }

  enum Leaver: String, CaseIterable, Sendable { case first, second }

  @Test(arguments: Leaver.allCases)
  func oneCallerCancellingLeavesTheOtherItsValue(leaver: Leaver) async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport, deduplicatesRequests: true)
    // The server answers when the test lets it: after both callers joined and one left.
    let target = sharedRoute(id, seconds: 60, gated: true)
    let first = Task { try await provider.request(target, as: SharedCount.self) }
    try await waitForHits("shared" + id, 1)
    let second = Task { try await provider.request(target, as: SharedCount.self) }
    try await waitForCallers(provider, 2)  // the second has joined the exchange
    let (leaving, staying) = leaver == .first ? (first, second) : (second, first)
    leaving.cancel()
    await #expect(throws: CancellationError.self) { try await leaving.value }
    try await releaseShared(id)
    #expect(try await staying.value == SharedCount(count: 1))
    #expect(try await sharedHits("shared" + id) == 1)
    #expect(try await sharedHits("shared-aborted" + id) == 0)
  }

  @Test func theLastCallerCancellingCancelsTheExchange() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(transport: wideTransport, deduplicatesRequests: true)
    // The server is never let answer (60 s): only a closed connection ends the exchange. (With
    // 6 s, a CI run busy enough to take 6 s between the first request and the cancellations
    // saw the answer, not the hang-up.)
    let target = sharedRoute(id, seconds: 60, gated: true)
    let first = Task { try await provider.request(target, as: SharedCount.self) }
    try await waitForHits("shared" + id, 1)
    let second = Task { try await provider.request(target, as: SharedCount.self) }
    try await waitForCallers(provider, 2)
    first.cancel()
    second.cancel()
    await #expect(throws: CancellationError.self) { try await first.value }
    await #expect(throws: CancellationError.self) { try await second.value }
    // The server sees the connection close.
    try await waitForHits("shared-aborted" + id, 1)
    #expect(try await sharedHits("shared-aborted" + id) == 1)
    #expect(try await sharedHits("shared" + id) == 1)
    #expect(inFlight(provider) == 0)
    // The next call starts an exchange of its own: the server sees a second request, and
    // cancelling that call closes its connection too.
    let third = Task { try await provider.request(target, as: SharedCount.self) }
    try await waitForHits("shared" + id, 2)
    #expect(inFlight(provider) == 1)
    third.cancel()
    await #expect(throws: CancellationError.self) { try await third.value }
    try await waitForHits("shared-aborted" + id, 2)
    #expect(inFlight(provider) == 0)
  }

  @Test func stubsAreAnsweredAsBeforeWhenSharing() async throws {
    let lines = HookLog()
    let provider = Provider<BodyStub>(
      plugins: [LoggingPlugin { lines.add($1) }], stub: .immediate, deduplicatesRequests: true)
    let users = try await withThrowingTaskGroup(of: User.self) { group in
      for _ in 0..<5 { group.addTask { try await provider.request(BodyStub(), as: User.self) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(users.map(\.id) == Array(repeating: 7, count: 5))
    #expect(lines.all.filter { $0.contains("← 200") }.count == 5)
  }
}
