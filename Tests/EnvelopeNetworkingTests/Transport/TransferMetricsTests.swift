import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `Response.metrics`: what a network exchange cost, from the transport; nil for stubs and the
/// cache.
@Suite struct TransferMetricsTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func aLoopbackCallHasItsDurationAndBytes() async throws {
    let response = try await Provider<Route>().response(Route("/bytes", ["n": "5000"]))
    let metrics = try #require(response.metrics)
    #expect(metrics.duration > .zero)
    #expect(metrics.bytesReceived >= 5000)
    #expect(metrics.redirects == 0)
    #if canImport(FoundationNetworking)
      // Measured by the transport: bodies only.
      #expect(metrics.bytesReceived == 5000)
      #expect(metrics.bytesSent == 0)
    #endif
  }

  struct RedirectCase: Sendable, CustomTestStringConvertible {
    var status: Int
    var method: HTTPMethod
    var body: String?
    var testDescription: String { "\(status) \(method.rawValue)" }
  }

  @Test(arguments: [
    RedirectCase(status: 302, method: .get),  // followed by URLSession
    RedirectCase(status: 307, method: .get),  // followed by URLSession: no body
    RedirectCase(status: 307, method: .post, body: "0123456789"),  // sent again by the transport
    RedirectCase(status: 308, method: .put, body: "0123456789"),
  ])
  func oneRedirectIsCounted(_ redirect: RedirectCase) async throws {
    var target = TransferTarget(path: "/redirect", method: redirect.method)
    target.query = [
      URLQueryItem(name: "status", value: "\(redirect.status)"),
      URLQueryItem(name: "to", value: "/bytes?n=300"),
    ]
    if let body = redirect.body { target.task = .data(Data(body.utf8), contentType: "text/plain") }
    let response = try await Provider<TransferTarget>().response(target)
    #expect(response.statusCode == 200)
    #expect(response.data.count == 300)
    let metrics = try #require(response.metrics)
    #expect(metrics.redirects == 1)
    #expect(metrics.duration > .zero)
    #expect(metrics.bytesReceived >= 300)
    #if canImport(FoundationNetworking)
      // The body went twice: with the first request and with the hop the transport sent.
      #expect(metrics.bytesSent == Int64(2 * (redirect.body?.utf8.count ?? 0)))
    #endif
  }

  @Test func aStubHasNoMetrics() async throws {
    let response = try await Provider<BodyStub>(stub: .immediate).response(BodyStub())
    #expect(response.metrics == nil)
  }

  @Test func aCacheAnswerHasNoMetrics() async throws {
    let provider = Provider<Route>(cache: MemoryCache())
    var target = Route("/envelope/ok", ["id": uniqueID()])
    target.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    let network = try await provider.decodedResponse(target, as: User.self).response
    #expect(!network.isFromCache)
    #expect(network.metrics != nil)
    let cached = try await provider.decodedResponse(target, as: User.self).response
    #expect(cached.isFromCache)
    #expect(cached.metrics == nil)
  }

  @Test func aDownloadAndAnUploadHaveMetrics() async throws {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("body.bin")
    var downloaded: Response?
    for try await event in Provider<TransferTarget>().download(.bytes(100_000), to: file) {
      if case .finished(let response) = event { downloaded = response }
    }
    let download = try #require(downloaded?.metrics)
    #expect(download.duration > .zero)
    #expect(download.bytesReceived >= 100_000)

    var upload = TransferTarget(path: "/upload", method: .post)
    upload.task = .file(file, contentType: "application/octet-stream")
    var uploaded: Response?
    for try await event in Provider<TransferTarget>().upload(upload) {
      if case .finished(let response) = event { uploaded = response }
    }
    let sent = try #require(uploaded?.metrics)
    #expect(sent.bytesSent >= 100_000)
    #expect(sent.bytesReceived > 0)
  }

  @Test func theLoggingLineShowsTheMetrics() async throws {
    let lines = HookLog()
    let provider = Provider<Route>(plugins: [LoggingPlugin { lines.add($1) }])
    _ = try await provider.response(Route("/redirect", ["status": "302", "to": "/bytes?n=300"]))
    let line = try #require(lines.all.last)
    // `#1 ← 200 GET url (3 ms, 300 bytes; transfer 2 ms, sent 0 B, received 300 B, 1 redirect)`
    let shape =
      #/← 200 GET http://127\.0\.0\.1:\d+/redirect\?\S+ \(\d+ ms, 300 bytes; transfer \d+ ms, sent \d+ B, received \d+ B, 1 redirect\)$/#
    #expect(line.contains(shape), "\(line)")
  }

  @Test func aStubbedLoggingLineIsUnchanged() async throws {
    let lines = HookLog()
    let provider = Provider<BodyStub>(plugins: [LoggingPlugin { lines.add($1) }], stub: .immediate)
    _ = try await provider.response(BodyStub())
    let line = try #require(lines.all.last)
    #expect(line.hasSuffix(" bytes)"), "\(line)")
    #expect(!line.contains("transfer"), "\(line)")
  }
}
