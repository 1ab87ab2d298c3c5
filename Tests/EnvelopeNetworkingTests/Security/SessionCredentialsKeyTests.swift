import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a session adds to a request partitions the cache by a hash alone: the same user gets
/// the same key in every session (a new process's too, so the disk cache still answers), another
/// user another key, and the cookie's or header's value is written nowhere in clear.
@Suite struct SessionCredentialsKeyTests {
  static let url = URL(string: "http://127.0.0.1:9/me") ?? URL(fileURLWithPath: "/")

  /// An ephemeral session whose jar holds `session=<cookie>` for the URL's host, and whose
  /// configuration adds `headers`.
  static func session(cookie: String?, headers: [String: String] = [:]) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    if !headers.isEmpty { configuration.httpAdditionalHeaders = headers }
    let session = URLSession(configuration: configuration)
    if let cookie,
      let made = HTTPCookie(properties: [
        .name: "session", .value: cookie, .domain: "127.0.0.1", .path: "/",
      ])
    {
      session.configuration.httpCookieStorage?.setCookie(made)
    }
    return session
  }

  static func key(_ session: URLSession?) -> String {
    CachePartition.key(for: URLRequest(url: url), scope: nil, session: session)
  }

  @Test func theSameUserHasTheSameKeyInEverySessionAndAnotherUserAnother() {
    let alice = Self.key(Self.session(cookie: "alice-secret"))
    #expect(alice == Self.key(Self.session(cookie: "alice-secret")))
    #expect(alice != Self.key(Self.session(cookie: "bob-secret")))
    #expect(alice != Self.key(Self.session(cookie: nil)))
    #expect(Self.key(Self.session(cookie: nil)) == Self.key(nil))
    let token = Self.key(Self.session(cookie: nil, headers: ["Authorization": "Bearer a"]))
    #expect(token == Self.key(Self.session(cookie: nil, headers: ["Authorization": "Bearer a"])))
    #expect(token != Self.key(Self.session(cookie: nil, headers: ["Authorization": "Bearer b"])))
    // A header that is no credential does not split the cache.
    #expect(
      Self.key(Self.session(cookie: nil, headers: ["Accept-Language": "fr"])) == Self.key(nil))
  }

  @Test func aSessionsSecretsReachNeitherTheCacheNorTheLog() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    _ = server
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "EnvelopeKitSessionSecrets-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let lines = Locked<[String]>([])
    let session = Self.session(
      cookie: nil, headers: ["X-Api-Key": "planted-header-secret"])
    let provider = Provider<Route>(
      transport: URLSessionTransport(session: session),
      plugins: [LoggingPlugin(level: .debug) { _, line in lines.withLock { $0.append(line) } }],
      cache: try DiskCache(directory: folder))
    let user = "frank-\(uniqueID())"
    _ = try await provider.request(Route("/cookie/set", ["user": user]), as: Counted.self)
    var whoami = Route("/cookie/whoami")
    whoami.cachePolicy = .cacheElseLoad(maxAge: .seconds(600))
    _ = try await provider.request(whoami, as: Whoami2.self)
    let cached = try await provider.request(whoami, as: Whoami2.self)
    #expect(cached.user == user)
    var texts = lines.withLock { $0 }
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
      texts.append(name)
      texts.append(
        String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self))
    }
    #expect(texts.count > 2)
    for text in texts {
      #expect(!text.contains("planted-cookie"), "\(text)")
      #expect(!text.contains("planted-header-secret"), "\(text)")
    }
  }
}

private struct Whoami2: Decodable, Equatable { var user: String }

/// A value behind a lock, for the test's log lines.
private final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
