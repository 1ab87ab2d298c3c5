import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A fresh folder under the temporary directory, removed by the caller.
func temporaryFolder(_ name: String = #function) -> URL {
  FileManager.default.temporaryDirectory
    .appendingPathComponent("EnvelopeKitTests-\(UUID().uuidString)")
}

struct Count: Decodable, Equatable { var count: Int }

/// A `GET` to one route of a loopback server, with a cache policy.
struct CachedTarget: TargetType {
  var baseURL: URL
  var path: String = "/counter"
  var cachePolicy: CachePolicy
  // Only a hang's bound: a call waits in the default session's queue (six connections to a
  // host) behind the calls of every suite running beside it, which on a loaded machine can take
  // longer than the 5 s this was.
  var timeout: TimeInterval { 30 }
}

@Suite struct SHA256Tests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ])
  func knownVectors(input: String, digest: String) {
    #expect(SHA256.hex(Data(input.utf8)) == digest)
  }

  @Test func millionAs() {
    #expect(
      SHA256.hex(Data(repeating: UInt8(ascii: "a"), count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }
}

@Suite final class DiskCacheTests {
  let folder = temporaryFolder()

  // A fresh instance per test: whatever the test did, its folder goes with it.
  deinit { try? FileManager.default.removeItem(at: folder) }

  func request(_ url: String, token: String? = nil) -> URLRequest {
    var request = URLRequest(url: URL(string: url) ?? URL(fileURLWithPath: "/"))
    request.httpMethod = "GET"
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    return request
  }

  /// The key the provider gives a request (credentials partition it; see `CachePartition`).
  func key(_ url: String, token: String? = nil) -> String {
    CachePartition.key(for: request(url, token: token), scope: nil)
  }

  @Test func storedResponseReadsBackFromANewInstance() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = key("https://api.example.com/me?a=1")
    let body = Data("{\"code\":0}\n\u{0}binary".utf8)
    try await DiskCache(directory: folder).store(
      Response(statusCode: 200, headers: ["ETag": "x"], data: body), forKey: key)
    let entry = try #require(await DiskCache(directory: folder).cachedResponse(forKey: key))
    #expect(entry.response.data == body)
    #expect(entry.response.statusCode == 200)
    #expect(entry.response.headers == ["ETag": "x"])
    #expect(entry.response.isFromCache)
    #expect(abs(entry.storedAt.timeIntervalSinceNow) < 60)
  }

  @Test func keysDifferByURLAndAuthorization() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder)
    try await cache.store(
      Response(statusCode: 200, data: Data("ada".utf8)), forKey: key("https://x/me", token: "ada"))
    #expect(await cache.cachedResponse(forKey: key("https://x/me", token: "bob")) == nil)
    #expect(await cache.cachedResponse(forKey: key("https://x/me")) == nil)
    #expect(await cache.cachedResponse(forKey: key("https://x/me?b=1", token: "ada")) == nil)
    #expect(await cache.cachedResponse(forKey: key("https://x/me", token: "ada")) != nil)
  }

  @Test func unreadableEntryIsAMissAndIsRemoved() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder)
    let key = key("https://x/me")
    let file = folder.appendingPathComponent(key + ".cache")
    try Data("not json\nbody".utf8).write(to: file)
    #expect(await cache.cachedResponse(forKey: key) == nil)
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test func removeAllEmptiesTheFolder() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder)
    try await cache.store(Response(statusCode: 200, data: Data()), forKey: key("https://x/1"))
    try await cache.store(Response(statusCode: 200, data: Data()), forKey: key("https://x/2"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
    try cache.removeAll()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }
}

@Suite(.serialized) final class ProviderCacheTests {
  let folder = temporaryFolder()

  // A fresh instance per test: whatever the test did, its folder goes with it.
  deinit { try? FileManager.default.removeItem(at: folder) }

  @Test func freshEntryAnswersWithoutTheNetworkAndStaleOneReloads() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try #require(TestServer.shared, "python3 must be available")
    let provider = Provider<CachedTarget>(cache: try DiskCache(directory: folder))
    let target = CachedTarget(
      baseURL: server.baseURL, cachePolicy: .cacheElseLoad(maxAge: .seconds(60)))
    let first = try await provider.request(target, as: Count.self)
    let second = try await provider.response(target)
    #expect(second.isFromCache)
    #expect(try LenientDecoder().decodeEnvelope(Count.self, from: second.data) == first)

    let stale = CachedTarget(baseURL: server.baseURL, cachePolicy: .cacheElseLoad(maxAge: .zero))
    let third = try await provider.request(stale, as: Count.self)
    #expect(third.count > first.count)
  }

  @Test func offlineFallsBackToTheStoredResponse() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try TestServer()
    let provider = Provider<CachedTarget>(cache: try DiskCache(directory: folder))
    let target = CachedTarget(baseURL: server.baseURL, cachePolicy: .loadElseCache)
    let online = try await provider.request(target, as: Count.self)
    #expect(online == Count(count: 1))
    server.stop()
    let offline = try await provider.request(target, as: Count.self)
    #expect(offline == online)

    let uncached = Provider<CachedTarget>()
    await #expect(throws: ProviderError.self) { try await uncached.request(target, as: Count.self) }
  }

  @Test func businessFailuresAndUncachedTargetsAreNotStored() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try #require(TestServer.shared, "python3 must be available")
    let provider = Provider<CachedTarget>(cache: try DiskCache(directory: folder))
    let failing = CachedTarget(
      baseURL: server.baseURL, path: "/envelope/fail",
      cachePolicy: .cacheElseLoad(maxAge: .seconds(60)))
    await #expect(throws: ProviderError.self) {
      try await provider.request(failing, as: Count.self)
    }
    let plain = CachedTarget(baseURL: server.baseURL, cachePolicy: .never)
    _ = try await provider.request(plain, as: Count.self)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }
}
