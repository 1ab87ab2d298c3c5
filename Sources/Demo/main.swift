import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// An offline tour: an endpoint enum answered by stubs from Fixtures/demo and by a transport
// written here (no network), decoded with EnvelopeKit.

struct User: Codable, Sendable {
  var id: Int
  var name: String
  var email: String?
  var roles: [String]
}

struct Repo: Codable, Sendable {
  var id: Int
  var name: String
  var stars: Int
}

enum DemoAPI: TargetType {
  case user, repos, me

  // Never contacted: every call is stubbed or answered by `DemoServer`.
  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/\(self)" }
  var sample: StubResponse {
    switch self {
    case .user, .me: .fixture("user")
    case .repos: .fixture("repos")
    }
  }
  /// Named alternatives for tests: `provider.scenario("expired")`.
  var scenarios: [String: StubResponse] { self == .user ? ["expired": .fixture("expired")] : [:] }
  /// `/me` keeps its last good answer (offline, it answers from the cache).
  var cachePolicy: CachePolicy { self == .me ? .loadElseCache : .never }
}

/// A transport of your own: answers `/me` with code 1001 unless the token is fresh, and counts
/// the calls (so cache-then-network shows two different values).
actor DemoServer: HTTPTransport {
  private var calls = 0

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    calls += 1
    let fresh = request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
    let body =
      fresh
      ? #"{"code":0,"msg":"ok","data":{"id":"18","name":"Ada","email":null,"roles":["admin"],"visits":\#(calls)}}"#
      : #"{"code":1001,"msg":"token expired","data":null}"#
    guard let url = request.url,
      let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
    else { throw URLError(.badURL) }
    return (Data(body.utf8), response)
  }
}

/// Holds the token; a refresh makes it fresh.
actor Session {
  var token = "stale"
  var refreshes = 0
  func refresh() {
    refreshes += 1
    token = "fresh"
  }
}

/// Prints each lenient report a production call made.
struct DriftWatcher: Plugin {
  func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async {
    print("   didDecode saw \(report.totalCount) drift entries: \(report.entries.map(\.path))")
  }
}

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/demo")
let provider = Provider<DemoAPI>(stub: .immediate, fixtures: fixtures)

print("1. A decoded model from an envelope (ids as strings, a role that is no string):")
let user = try await provider.request(.user, as: User.self)
print("   \(user)\n")

print("2. A list at a key path, no envelope:")
let repos = try await provider.request(.repos, as: [Repo].self, at: "items")
print("   \(repos.map { "\($0.name) ★\($0.stars)" }.joined(separator: ", "))\n")

print("3. A business error inside an HTTP 200 (the \"expired\" stub scenario of .user):")
do {
  _ = try await provider.scenario("expired").request(.user, as: User.self)
} catch {
  print("   \(error)\n")
}

print("4. A lenient decode with its report:")
let body = try Data(contentsOf: fixtures.appendingPathComponent("user.json"))
let lenient = try LenientDecoder().decodeWithReport(User.self, from: body, at: "data")
print(lenient.report.description.split(separator: "\n").map { "   \($0)" }.joined(separator: "\n"))
print()

print("5. The same body, strict (what a contract test sees):")
let strict = LenientDecoder(policy: .strict)
do {
  _ = try strict.decode(User.self, from: body, at: "data")
} catch {
  print("   \(error)\n")
}

print("6. A token refresh on an expired token, with the log plugin's lines and drift:")
let session = Session()
let auth = AccessTokenPlugin(expiredCodes: [1001], token: { await session.token }) {
  await session.refresh()
}
let logging = LoggingPlugin(level: .info) { level, line in print("   [\(level)] \(line)") }
let live = Provider<DemoAPI>(
  transport: DemoServer(), plugins: [auth, logging, DriftWatcher()], cache: MemoryCache())
let me = try await live.request(.me, as: User.self)
print("   → \(me.name), after \(await session.refreshes) refresh\n")

print("7. Cache then network: the cached value first, then the network's:")
for try await value in live.cachedThenNetwork(.me, as: User.self) {
  switch value.source {
  case .cache(let storedAt):
    print(
      "   from the cache (stored \(Int(-storedAt.timeIntervalSinceNow)) s ago): \(value.value.name)"
    )
  case .network:
    print("   from the network: \(value.value.name)")
  }
}
