import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `{"count": n}` of the counting routes.
struct Counted: Codable, Equatable, Sendable { var count: Int }

@Suite(.serialized) struct HTTPCachingTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func aStaleEntryIsRevalidatedAndA304AnswersFromTheCache() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<Route>(cache: try DiskCache(directory: folder))
    let id = uniqueID()
    var target = Route("/etag", ["id": id])
    target.cachePolicy = .http  // the server says `no-cache`: revalidate on every use
    let first = try await provider.decodedResponse(target, as: User.self)
    #expect(first.response.cacheAnswer == nil)
    let second = try await provider.decodedResponse(target, as: User.self)
    #expect(second.value == first.value)
    #expect(second.response.cacheAnswer?.reason == .notModified)
    #expect(second.response.statusCode == 200)
    #expect(try await hits("etag" + id) == Hits(count: 2, conditional: 1))
    // Revalidation restarted the entry's age.
    let stored = try #require(second.response.cacheAnswer?.storedAt)
    #expect(abs(stored.timeIntervalSinceNow) < 5)
    // Other policies revalidate too: cacheElseLoad past its age asks the same question.
    target.cachePolicy = .cacheElseLoad(maxAge: .zero)
    let third = try await provider.decodedResponse(target, as: User.self)
    #expect(third.response.cacheAnswer?.reason == .notModified)
    #expect(try await hits("etag" + id) == Hits(count: 3, conditional: 2))
  }

  @Test func maxAgeAnswersFromTheCacheAndZeroGoesToTheNetwork() async throws {
    let provider = Provider<Route>(cache: MemoryCache())
    let id = uniqueID()
    var target = Route("/max-age", ["id": id, "age": "60"])
    target.cachePolicy = .http
    #expect(try await provider.request(target, as: Counted.self).count == 1)
    let cached = try await provider.decodedResponse(target, as: Counted.self)
    #expect(cached.value.count == 1)
    #expect(cached.response.cacheAnswer?.reason == .fresh)
    #expect(try await hits("max-age" + id).count == 1)
    var stale = Route("/max-age", ["id": id + "-0", "age": "0"])
    stale.cachePolicy = .http
    #expect(try await provider.request(stale, as: Counted.self).count == 1)
    #expect(try await provider.request(stale, as: Counted.self).count == 2)
  }

  @Test func expiresAndCacheControlAreRead() {
    func entry(_ headers: [String: String], age: TimeInterval) -> CachedResponse {
      CachedResponse(
        response: Response(statusCode: 200, headers: headers, data: Data()),
        storedAt: Date().addingTimeInterval(-age))
    }
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"
    let inAMinute = "Sun, 06 Nov 1994 08:50:37 GMT"
    #expect(entry(["Date": date, "Expires": inAMinute], age: 30).isFreshUnderHTTP)
    #expect(!entry(["Date": date, "Expires": inAMinute], age: 90).isFreshUnderHTTP)
    #expect(!entry(["Expires": "0"], age: 0).isFreshUnderHTTP)  // invalid: expired
    #expect(entry(["cache-control": "public, max-age=60"], age: 30).isFreshUnderHTTP)
    #expect(!entry(["Cache-Control": "max-age=60, no-cache"], age: 1).isFreshUnderHTTP)
    #expect(!entry(["Cache-Control": "max-age=60", "Age": "45"], age: 30).isFreshUnderHTTP)
    #expect(!entry([:], age: 0).isFreshUnderHTTP)  // nothing said: revalidate
  }

  @Test func noStoreIsNeverWrittenToDiskUnderAnyPolicy() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<Route>(cache: try DiskCache(directory: folder))
    for policy in [CachePolicy.cacheElseLoad(maxAge: .seconds(60)), .loadElseCache, .http] {
      var target = Route("/nostore")
      target.cachePolicy = policy
      _ = try await provider.request(target, as: Counted.self)
      _ = try await provider.request(target, as: Counted.self)
    }
    for try await _ in provider.cachedThenNetwork(Route("/nostore"), as: Counted.self) {}
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(files.isEmpty, "\(files)")
    for name in files {
      let contents = try Data(contentsOf: folder.appendingPathComponent(name))
      #expect(!String(decoding: contents, as: UTF8.self).contains("planted-no-store"))
    }
  }

  @Test func everyCacheRemovesOneEntryAndAll() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let caches: [any ResponseCache] = [
      MemoryCache(), try DiskCache(directory: folder.appendingPathComponent("disk")),
      HybridCache(
        memory: MemoryCache(),
        disk: try DiskCache(directory: folder.appendingPathComponent("hybrid"))),
    ]
    for cache in caches {
      let provider = Provider<Route>(cache: cache)
      let id = uniqueID()
      var target = Route("/max-age", ["id": id])
      target.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
      #expect(try await provider.request(target, as: Counted.self).count == 1)
      #expect(try await provider.request(target, as: Counted.self).count == 1)  // cached
      try await provider.removeCachedResponse(for: target)
      #expect(try await provider.request(target, as: Counted.self).count == 2)  // network
      // Plain values.
      try await cache.set(["theme": "dark"], forKey: "settings")
      #expect(await cache.value([String: String].self, forKey: "settings") == ["theme": "dark"])
      try await cache.removeValue(forKey: "settings")
      #expect(await cache.value([String: String].self, forKey: "settings") == nil)
      // Logging out.
      try await cache.set(1, forKey: "other")
      try await cache.removeAll()
      #expect(await cache.value(Int.self, forKey: "other") == nil)
      #expect(try await provider.request(target, as: Counted.self).count == 3)
    }
  }

  @Test func anOfflineAnswerFromTheCacheSaysTheNetworkFailedAndWhy() async throws {
    let server = try TestServer()
    let lines = HookLog()
    let provider = Provider<Route>(
      plugins: [LoggingPlugin(level: .info) { lines.add("\($0) \($1)") }], cache: MemoryCache())
    var target = Route("/max-age", ["id": uniqueID()])
    target.server = server
    target.cachePolicy = .loadElseCache
    _ = try await provider.request(target, as: Counted.self)
    server.stop()
    let offline = try await provider.decodedResponse(target, as: Counted.self)
    guard case .networkFailed(let error) = offline.response.cacheAnswer?.reason else {
      Issue.record("\(String(describing: offline.response.cacheAnswer))")
      return
    }
    #expect(error.code == URLError.Code.cannotConnectToHost)
    let line = try #require(lines.all.last { $0.contains("←") })
    #expect(line.hasPrefix("warning "))
    #expect(line.contains("(cached, "))
    #expect(
      line.contains(
        "the network failed (transport error \(URLError.Code.cannotConnectToHost.rawValue))"))
  }
}

extension CachedResponse {
  var isFreshUnderHTTP: Bool { CacheTransport.isFresh(self, .http) }
}
