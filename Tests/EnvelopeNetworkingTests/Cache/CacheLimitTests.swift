import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A 64-hex key for a name.
func hexKey(_ name: String) -> String { SHA256.hex(Data(name.utf8)) }

func body(_ text: String) -> Response { Response(statusCode: 200, data: Data(text.utf8)) }

func text(_ entry: CachedResponse?) -> String? {
  entry.map { String(decoding: $0.response.data, as: UTF8.self) }
}

@Suite struct MemoryCacheTests {
  @Test func leastRecentlyUsedGoesFirstPastTheCount() async throws {
    let cache = MemoryCache(countLimit: 3)
    for name in ["a", "b", "c"] { try await cache.store(body(name), forKey: hexKey(name)) }
    _ = await cache.cachedResponse(forKey: hexKey("a"))  // a is now the most recent
    try await cache.store(body("d"), forKey: hexKey("d"))
    #expect(await cache.cachedResponse(forKey: hexKey("b")) == nil)
    for name in ["a", "c", "d"] {
      #expect(text(await cache.cachedResponse(forKey: hexKey(name))) == name)
    }
    #expect(cache.count == 3)
  }

  @Test func bytesAreBoundedAndAnOversizedBodyIsNotKept() async throws {
    let cache = MemoryCache(countLimit: 100, byteLimit: 10)
    try await cache.store(body("1234"), forKey: hexKey("a"))
    try await cache.store(body("5678"), forKey: hexKey("b"))
    try await cache.store(body("90ab"), forKey: hexKey("c"))
    #expect(await cache.cachedResponse(forKey: hexKey("a")) == nil)
    #expect(cache.totalBytes == 8)
    try await cache.store(body(String(repeating: "x", count: 11)), forKey: hexKey("big"))
    #expect(await cache.cachedResponse(forKey: hexKey("big")) == nil)
    #expect(cache.totalBytes == 8)
  }

  @Test func plainCodableValues() async throws {
    struct Profile: Codable, Equatable { var name: String; var score: Int }
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for cache in [
      MemoryCache() as any ResponseCache,
      HybridCache(memory: MemoryCache(), disk: try DiskCache(directory: folder)),
    ] {
      try await cache.set(Profile(name: "Ada", score: 7), forKey: "profile")
      #expect(await cache.value(Profile.self, forKey: "profile") == Profile(name: "Ada", score: 7))
      #expect(await cache.value(Profile.self, forKey: "other") == nil)
      #expect(await cache.value(Int.self, forKey: "profile") == nil)
    }
  }
}

@Suite final class DiskCacheLimitTests {
  let folder = temporaryFolder()

  // A fresh instance per test: whatever the test did, its folder goes with it.
  deinit { try? FileManager.default.removeItem(at: folder) }

  @Test func leastRecentlyUsedEntriesAreEvictedPastTheByteLimit() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder, byteLimit: 2_600)
    let kilobyte = String(repeating: "x", count: 1_000)
    try await cache.store(body("a" + kilobyte), forKey: hexKey("a"))
    try await Task.sleep(for: .milliseconds(20))
    try await cache.store(body("b" + kilobyte), forKey: hexKey("b"))
    try await Task.sleep(for: .milliseconds(20))
    #expect(await cache.cachedResponse(forKey: hexKey("a")) != nil)  // a is used again
    try await Task.sleep(for: .milliseconds(20))
    try await cache.store(body("c" + kilobyte), forKey: hexKey("c"))
    #expect(await cache.cachedResponse(forKey: hexKey("b")) == nil)
    #expect(await cache.cachedResponse(forKey: hexKey("a")) != nil)
    #expect(await cache.cachedResponse(forKey: hexKey("c")) != nil)
    #expect(cache.totalBytes <= 2_600)
  }

  @Test func aTruncatedBodyIsAMissAndIsRemoved() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder)
    try await cache.store(body("1234567"), forKey: hexKey("t"))
    let file = folder.appendingPathComponent(hexKey("t") + ".cache")
    let contents = try Data(contentsOf: file)
    try contents.dropLast(4).write(to: file)  // "1234567" cut to "123", as a torn write would
    #expect(await cache.cachedResponse(forKey: hexKey("t")) == nil)
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test func concurrentWritersAndReadersOnOneKeyAndOnMany() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let disk = try DiskCache(directory: folder, byteLimit: 1 << 20)
    let caches: [any ResponseCache] = [
      disk, MemoryCache(), HybridCache(memory: MemoryCache(), disk: disk),
    ]
    for cache in caches {
      await withTaskGroup(of: Void.self) { group in
        for task in 0..<50 {
          group.addTask {
            let payload = String(repeating: "\(task % 10)", count: 100 + task)
            try? await cache.store(body(payload), forKey: hexKey("one"))
            try? await cache.store(body(payload), forKey: hexKey("many-\(task)"))
            if let read = text(await cache.cachedResponse(forKey: hexKey("one"))) {
              // Whoever wrote last, a read is one whole body, never a mix.
              #expect(Set(read).count == 1 && (100..<150).contains(read.count))
            }
          }
        }
      }
      for task in 0..<50 {
        let expected = String(repeating: "\(task % 10)", count: 100 + task)
        #expect(text(await cache.cachedResponse(forKey: hexKey("many-\(task)"))) == expected)
      }
    }
  }

  @Test func hybridPromotesDiskHitsIntoMemory() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let disk = try DiskCache(directory: folder)
    try await disk.store(body("from disk"), forKey: hexKey("k"))
    let memory = MemoryCache()
    let hybrid = HybridCache(memory: memory, disk: disk)
    #expect(await memory.cachedResponse(forKey: hexKey("k")) == nil)
    #expect(text(await hybrid.cachedResponse(forKey: hexKey("k"))) == "from disk")
    #expect(text(await memory.cachedResponse(forKey: hexKey("k"))) == "from disk")
    try await hybrid.store(body("both"), forKey: hexKey("n"))
    #expect(text(await disk.cachedResponse(forKey: hexKey("n"))) == "both")
    #expect(text(await memory.cachedResponse(forKey: hexKey("n"))) == "both")
  }
}

/// `/counter`, `/once` or `/echo` with a cache policy, key and method.
struct KeyedTarget: TargetType {
  var path = "/counter"
  var method: HTTPMethod = .get
  var task: RequestTask = .plain
  var query: [URLQueryItem] = []
  var cachePolicy: CachePolicy = .cacheElseLoad(maxAge: .seconds(60))
  var cacheKey: CacheKey = .default
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var timeout: TimeInterval { 10 }
}

@Suite(.serialized) final class ProviderCacheKeyTests {
  let folder = temporaryFolder()

  // A fresh instance per test: whatever the test did, its folder goes with it.
  deinit { try? FileManager.default.removeItem(at: folder) }

  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  func count(_ provider: Provider<KeyedTarget>, _ target: KeyedTarget) async throws -> Int {
    try await provider.request(target, as: Count.self).count
  }

  @Test func postSearchesWithDifferentBodiesNeverShare() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<KeyedTarget>(cache: MemoryCache())
    let ada = KeyedTarget(method: .post, task: .json(["q": "ada"]))
    let bob = KeyedTarget(method: .post, task: .json(["q": "bob"]))
    let first = try await count(provider, ada)
    #expect(try await count(provider, bob) != first)
    #expect(try await count(provider, ada) == first)
  }

  @Test func baseAndCustomKeys() async throws {
    let provider = Provider<KeyedTarget>(cache: MemoryCache())
    let page1 = KeyedTarget(query: [URLQueryItem(name: "page", value: "1")], cacheKey: .base)
    let page2 = KeyedTarget(query: [URLQueryItem(name: "page", value: "2")], cacheKey: .base)
    let shared = try await count(provider, page1)
    #expect(try await count(provider, page2) == shared)  // .base ignores the query
    let v1 = try await count(provider, KeyedTarget(cacheKey: .custom("v1")))
    #expect(v1 != shared)
    let v2 = try await count(provider, KeyedTarget(cacheKey: .custom("v2")))
    #expect(v2 != v1)
    #expect(try await count(provider, KeyedTarget(cacheKey: .custom("v1"))) == v1)
  }

  @Test func aFutureDatedEntryIsStale() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let disk = try DiskCache(directory: folder)
    let provider = Provider<KeyedTarget>(cache: disk)
    let first = try await count(provider, KeyedTarget())
    // Move the entry's date a day ahead, as a wrong clock would.
    let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    let url = folder.appendingPathComponent(file)
    let contents = try Data(contentsOf: url)
    let newline = try #require(contents.firstIndex(of: UInt8(ascii: "\n")))
    var meta = try #require(
      try JSONSerialization.jsonObject(with: contents[..<newline]) as? [String: Any])
    meta["storedAt"] = Date().timeIntervalSince1970 + 86_400
    var rewritten = try JSONSerialization.data(withJSONObject: meta)
    rewritten.append(contents[newline...])
    try rewritten.write(to: url)
    #expect(try await count(provider, KeyedTarget()) > first)
  }

  @Test func loadElseCacheCanAnswerA5xx() async throws {
    let id = UUID().uuidString
    let query = [URLQueryItem(name: "id", value: id)]
    let serverErrors = Provider<KeyedTarget>(cache: MemoryCache())
    let target = KeyedTarget(
      path: "/once", query: query, cachePolicy: .loadElseCache(onServerError: true))
    let first = try await count(serverErrors, target)
    #expect(try await count(serverErrors, target) == first)  // the server now answers 500
    let transportOnly = KeyedTarget(path: "/once", query: query, cachePolicy: .loadElseCache)
    do {
      _ = try await count(serverErrors, transportOnly)
      Issue.record("a 500 was answered from the cache without onServerError")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 500)
    }
  }
}

@Suite(.serialized) struct CachedThenNetworkTests {
  func values(_ stream: AsyncThrowingStream<Sourced<Count>, any Error>) async -> (
    [Sourced<Count>], (any Error)?
  ) {
    var values: [Sourced<Count>] = []
    do {
      for try await value in stream { values.append(value) }
      return (values, nil)
    } catch {
      return (values, error)
    }
  }

  @Test func anEmptyCacheYieldsTheNetworkOnly() async throws {
    try #require(TestServer.shared != nil, "python3 must be available")
    let provider = Provider<KeyedTarget>(cache: MemoryCache())
    let (values, error) = await values(provider.cachedThenNetwork(KeyedTarget(cachePolicy: .never)))
    #expect(error == nil)
    #expect(values.map(\.source) == [.network])
  }

  @Test func aCachedValueComesFirstThenTheNetworks() async throws {
    try #require(TestServer.shared != nil, "python3 must be available")
    let provider = Provider<KeyedTarget>(cache: MemoryCache())
    let target = KeyedTarget(cachePolicy: .never)
    let (first, _) = await values(provider.cachedThenNetwork(target))
    let (values, error) = await values(provider.cachedThenNetwork(target))
    #expect(error == nil)
    #expect(values.count == 2)
    guard case .cache(let storedAt)? = values.first?.source else {
      Issue.record("the first value is not the cached one: \(values)")
      return
    }
    #expect(abs(storedAt.timeIntervalSinceNow) < 60)
    #expect(values.first?.value == first.first?.value)
    #expect(values.last?.source == .network)
    #expect((values.last?.value.count ?? 0) > (values.first?.value.count ?? 0))
  }

  /// The server holds its answer until the test lets it, so the stream can end by the
  /// consumer's cancellation only, however late a loaded machine gets to it. (It used `/slow`,
  /// 3 s, and cancelled after 100 ms: a late cancellation saw the answer.)
  @Test func cancellingTheConsumerCancelsTheRequest() async throws {
    try #require(TestServer.shared != nil, "python3 must be available")
    let id = uniqueID()
    var target = heldRoute(id)
    target.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    let held = target
    let provider = Provider<Route>(transport: wideTransport, cache: MemoryCache())
    let consumer = Task {
      var count = 0
      for try await _ in provider.cachedThenNetwork(held, as: SharedCount.self) {
        count += 1
      }
      return count
    }
    try await waitForHits("shared" + id, 1)  // the request is at the server
    consumer.cancel()
    // The stream ends with no value (AsyncThrowingStream ends iteration quietly), and the
    // consumer's cancellation reaches the request: the server sees its connection close, which
    // nothing but the cancellation does before the server answers (see heldRoute). (The old
    // bound, under 2.5 s from the start, is that proof read off a clock.)
    #expect(try await consumer.value == 0)
    let hangUps = try await hits(of: "shared-aborted" + id, reaching: 1)
    try await releaseShared(id)
    #expect(hangUps == 1)
  }

  @Test func aServerThatIsDownGivesTheCachedValueThenTheError() async throws {
    let server = try TestServer()
    struct Down: TargetType {
      var baseURL: URL
      var path: String { "/counter" }
      var timeout: TimeInterval { 5 }
    }
    let provider = Provider<Down>(cache: MemoryCache())
    let target = Down(baseURL: server.baseURL)
    var seen: [Sourced<Count>] = []
    for try await value in provider.cachedThenNetwork(target, as: Count.self) { seen.append(value) }
    server.stop()
    var values: [Sourced<Count>] = []
    do {
      for try await value in provider.cachedThenNetwork(target, as: Count.self) {
        values.append(value)
      }
      Issue.record("a stopped server answered")
    } catch ProviderError.transport {
      #expect(values.count == 1)
      #expect(values.first?.value == seen.first?.value)
    }
  }
}
