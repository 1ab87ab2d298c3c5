import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Any route of the loopback server, with the settings a test needs.
struct Route: TargetType {
  var path: String
  var queryItems: [String: String] = [:]
  var method: HTTPMethod = .get
  var cachePolicy: CachePolicy = .never
  var timeout: TimeInterval = 10
  var headers: [String: String] = [:]
  var authorization: AuthorizationType = .none
  var envelope: EnvelopeFormat?
  var server: TestServer? = TestServer.shared

  init(_ path: String, _ query: [String: String] = [:]) {
    self.path = path
    self.queryItems = query
  }

  /// A route of a plain JSON API (`EnvelopeFormat.plain`).
  static func plain(_ path: String, _ query: [String: String] = [:]) -> Route {
    var route = Route(path, query)
    route.envelope = .plain
    return route
  }

  var baseURL: URL { server?.baseURL ?? URL(fileURLWithPath: "/") }
  var query: [URLQueryItem] {
    queryItems.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
  }
}

/// How often the loopback server saw a key (and how many of those were conditional requests).
struct Hits: Codable, Equatable { var count: Int; var conditional: Int }

func hits(_ key: String) async throws -> Hits {
  try await Provider<Route>().request(Route("/count", ["key": key]), as: Hits.self)
}

/// Whether `condition` holds, asked every 10 ms up to `rounds` times (3000: 30 s when the test
/// runs freely). Rounds, not a deadline: a full run on a loaded machine can hold every thread
/// of the concurrency pool for minutes, during which neither this wait nor what it waits for
/// runs; a deadline passed then leaves the awaited work no turn, a round not taken is not
/// spent.
func poll(rounds: Int = 3000, _ condition: () async throws -> Bool) async rethrows -> Bool {
  for _ in 0..<rounds {
    if try await condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return try await condition()
}

/// A fresh name for server-side state and temporary folders.
func uniqueID() -> String { UUID().uuidString }

/// When each hook ran, in order.
final class Timeline: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var events: [(name: String, at: ContinuousClock.Instant, detail: String)] = []

  var all: [(name: String, at: ContinuousClock.Instant, detail: String)] {
    lock.withLock { events }
  }

  private func add(_ name: String, _ detail: String = "") {
    lock.withLock { events.append((name, ContinuousClock.now, detail)) }
  }

  func willSend(_ request: URLRequest, target: any TargetType) async {
    add("willSend", request.httpMethod ?? "")
  }
  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    add("didReceive")
  }
  func willRetry(after error: ProviderError, target: any TargetType, attempt: Int, delay: Duration)
    async
  {
    add("willRetry", "\(attempt) \(delay)")
  }
  func didRefreshToken(_ refresh: TokenRefresh, target: any TargetType) async {
    add("refresh", "\(refresh)")
  }
}

/// `Duration` as seconds.
func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
