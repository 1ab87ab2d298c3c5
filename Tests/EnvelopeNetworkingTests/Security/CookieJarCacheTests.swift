import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `/cookie/whoami` answers: the user the session cookie names.
private struct Whoami: Decodable, Equatable { var user: String }

/// The cookies a session's jar adds to a request are part of whose a cache entry is, as a
/// `Cookie` header the request carries is: a response cached for one jar's session is never
/// served to another's, and the cookie's value is never written to the cache in clear.
@Suite struct CookieJarCacheTests {
  let server: TestServer
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "EnvelopeKitCookieCache-\(UUID().uuidString)")

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  /// A session with a cookie jar of its own (an app's `URLSessionConfiguration.ephemeral`).
  func provider(_ cache: DiskCache) -> Provider<Route> {
    Provider(
      transport: URLSessionTransport(session: URLSession(configuration: .ephemeral)),
      cache: cache)
  }

  var whoami: Route {
    var route = Route("/cookie/whoami")
    route.cachePolicy = .cacheElseLoad(maxAge: .seconds(600))
    return route
  }

  func signIn(_ provider: Provider<Route>, as user: String) async throws {
    _ = try await provider.request(Route("/cookie/set", ["user": user]), as: Counted.self)
  }

  @Test func twoCookieJarsNeverShareACachedAnswer() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder)
    let alice = provider(cache)
    let bob = provider(cache)
    try await signIn(alice, as: "alice-\(uniqueID())")
    try await signIn(bob, as: "bob-\(uniqueID())")
    let first = try await alice.request(whoami, as: Whoami.self)
    #expect(first.user.hasPrefix("alice-"))
    #expect(try await bob.request(whoami, as: Whoami.self).user.hasPrefix("bob-"))
    // Each jar's entry still answers its own session.
    #expect(try await alice.request(whoami, as: Whoami.self) == first)
    try expectNoCookieInClear()
  }

  @Test func aNewSessionCookieInTheSameJarIsNotAnsweredFromTheLastOnesEntry() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = provider(try DiskCache(directory: folder))
    try await signIn(app, as: "carol-\(uniqueID())")
    #expect(try await app.request(whoami, as: Whoami.self).user.hasPrefix("carol-"))
    try await signIn(app, as: "dave-\(uniqueID())")  // the jar's `session` cookie is replaced
    #expect(try await app.request(whoami, as: Whoami.self).user.hasPrefix("dave-"))
    try expectNoCookieInClear()
  }

  /// Neither a file's name nor its contents holds the session cookie's value.
  func expectNoCookieInClear(sourceLocation: SourceLocation = #_sourceLocation) throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(!names.isEmpty, "nothing was cached", sourceLocation: sourceLocation)
    for name in names {
      #expect(!name.contains("planted-cookie"), sourceLocation: sourceLocation)
      let contents = try Data(contentsOf: folder.appendingPathComponent(name))
      let text = String(decoding: contents, as: UTF8.self)
      #expect(!text.contains("planted-cookie"), "\(name): \(text)", sourceLocation: sourceLocation)
    }
  }
}

extension CookieJarCacheTests {
  /// An answer is stored for the cookies its request went out with, not for those the jar
  /// holds once the answer's `Set-Cookie` changed it: an answer that ends the session (its
  /// cookie expires) is never served to the signed-out session that follows.
  @Test func anAnswerThatEndsTheSessionIsNotServedToTheSessionAfter() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = provider(try DiskCache(directory: folder))
    try await signIn(app, as: "erin-\(uniqueID())")
    var last = whoami
    last.headers = ["X-Sign-Out": "1"]  // the server ends the session with this answer
    #expect(try await app.request(last, as: Whoami.self).user.hasPrefix("erin-"))
    #expect(try await app.request(whoami, as: Whoami.self).user == "nobody")
  }
}
