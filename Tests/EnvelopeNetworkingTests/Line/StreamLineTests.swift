import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A target whose sample and timeout a test sets.
struct StreamTarget: TargetType {
  var path = "/stream"
  var sample: StubResponse = .body(Data())
  var timeout: TimeInterval = 10
  var cachePolicy: CachePolicy = .never
  var queryItems: [String: String] = [:]
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var query: [URLQueryItem] {
    queryItems.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
  }
}

/// A transport whose stream sends one chunk and then nothing, forever.
struct StallingTransport: HTTPTransport {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    throw URLError(.unsupportedURL)
  }

  func stream(_ request: URLRequest) async throws -> StreamedResponse {
    let url = try #require(request.url)
    let head = try #require(
      HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
    let chunks = AsyncStream<Data> { continuation in continuation.yield(Data("first".utf8)) }
    return StreamedResponse(response: head, body: ResponseBody(chunks))
  }
}

/// The provider's line passes streams through each stage by its rule: stubs stream their
/// sample in the chunks set, the cache neither answers nor stores a stream, the timeout
/// applies between chunks.
@Suite(.aheadOfTheBacklog) struct StreamLineTests {
  /// The line's stream for `target`, as a provider call sends it.
  func stream(_ provider: Provider<StreamTarget>, _ target: StreamTarget) async throws
    -> StreamedResponse
  {
    let exchange = Exchange(
      call: ProviderCall(id: ProviderCall.nextID(), attempt: 1), target: target,
      cacheUse: .byPolicy, plugins: [], redaction: provider.redactionRule)
    return try await provider.line.stream(try provider.build(target), in: exchange)
  }

  func chunks(_ body: ResponseBody) async throws -> [Data] {
    var chunks: [Data] = []
    for try await chunk in body { chunks.append(chunk) }
    return chunks
  }

  @Test(arguments: [1, 3, 16, 1000]) func stubsStreamTheirFixtureInTheChunkSizeSet(_ size: Int)
    async throws
  {
    let fixture = try Data(contentsOf: packageFixtures.appendingPathComponent("demo/user.json"))
    var target = StreamTarget()
    target.sample = StubResponse.fixture("demo/user").chunked(size: size)
    let provider = Provider<StreamTarget>(stub: .immediate, fixtures: packageFixtures)
    let streamed = try await stream(provider, target)
    let chunks = try await chunks(streamed.body)
    #expect(streamed.response.statusCode == 200)
    #expect(chunks.reduce(Data(), +) == fixture)
    #expect(chunks.count == (fixture.count + size - 1) / size)
    #expect(chunks.allSatisfy { $0.count <= size })
    // An ordinary call of the same stub still gets the whole body at once.
    #expect(try await provider.response(target).data == fixture)
  }

  @Test func stubsWaitTheDelaySetBetweenChunks() async throws {
    var target = StreamTarget()
    target.sample = StubResponse.body(Data(repeating: 65, count: 50)).chunked(
      size: 10, delay: .milliseconds(60))
    let provider = Provider<StreamTarget>(stub: .immediate)
    let start = ContinuousClock.now
    let chunks = try await chunks(try await stream(provider, target).body)
    #expect(chunks.count == 5)
    // Four delays between five chunks.
    #expect(ContinuousClock.now - start >= .milliseconds(240))
  }

  /// The line's timeout stage ends a stream whose transport stalls between chunks, whatever
  /// the transport (this one never ends by itself). The timeout also bounds the wait for the
  /// first chunk, which a task must read ahead: 5 s, not 0.5, so that a loaded machine slow to
  /// run that task does not time out before the first chunk ("timedOut after 0").
  @Test func theTimeoutStageAppliesBetweenChunks() async throws {
    var stalled = StreamTarget()
    stalled.timeout = 5
    let target = stalled
    let provider = Provider<StreamTarget>(transport: StallingTransport())
    let (outcome, _) = try await timed(limit: .seconds(100)) {
      var count = 0
      do {
        for try await _ in try await stream(provider, target).body { count += 1 }
        return "ended after \(count)"
      } catch let error as URLError where error.code == .timedOut {
        return "timedOut after \(count)"
      }
    }
    #expect(outcome == "timedOut after 1")
  }

  /// A body made from a transport's own `AsyncSequence` hands its chunks on in order, with or
  /// without a timeout (with one, it is read ahead into the bounded buffer).
  @Test(arguments: [nil, 5.0] as [TimeInterval?]) func aBodyFromASequenceHandsItsChunksOn(
    _ timeout: TimeInterval?
  ) async throws {
    let parts = (0..<50).map { Data("part \($0)\n".utf8) }
    let stream = AsyncStream<Data> { continuation in
      for part in parts { continuation.yield(part) }
      continuation.finish()
    }
    var body = ResponseBody(stream)
    if let timeout { body = body.timingOut(after: timeout) }
    #expect(try await chunks(body).reduce(Data(), +) == parts.reduce(Data(), +))
  }

  /// A cacheable target's stream goes to the network every time, and leaves nothing a later
  /// ordinary call could be answered from.
  @Test func theCacheNeitherAnswersNorStoresStreams() async throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
    let id = uniqueID()
    var target = StreamTarget()
    target.path = "/max-age"
    target.queryItems = ["id": id]
    target.cachePolicy = .cacheElseLoad(maxAge: .seconds(600))
    let provider = Provider<StreamTarget>(cache: MemoryCache())
    for _ in 0..<2 { _ = try await chunks(try await stream(provider, target).body) }
    #expect(try await hits("max-age" + id).count == 2)
    _ = try await provider.response(target)
    #expect(try await hits("max-age" + id).count == 3)
    _ = try await provider.response(target)
    #expect(try await hits("max-age" + id).count == 3)
  }
}
