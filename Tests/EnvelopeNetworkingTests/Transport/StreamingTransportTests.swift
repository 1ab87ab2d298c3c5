import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `URLSessionTransport.stream(_:)` against the loopback server: the head before the body,
/// cancellation that closes the connection, the timeout between chunks, the redirect rule, a
/// 401 as it is, and memory bounded with a slow consumer.
@Suite(.serialized, .aheadOfTheBacklog) struct StreamingTransportTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  func request(_ path: String, timeout: TimeInterval = 30) throws -> URLRequest {
    URLRequest(
      url: try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)")),
      timeoutInterval: timeout)
  }

  /// The server sends one chunk and then waits for `/stream/release`: the first chunk must
  /// reach the consumer while the server is still sending (a transport that waits for the whole
  /// body never gets it; the gate opens by itself after 120 s, and then says so).
  ///
  /// The bounds of these tests are generous and no proof rests on a duration: in a full run
  /// on two busy cores, synchronous suites have held the cooperative pool for a minute.
  @Test func theFirstChunkArrivesWhileTheServerIsStillSending() async throws {
    let id = uniqueID()
    let transport = URLSessionTransport()
    let (text, _) = try await timed(limit: .seconds(100)) {
      let streamed = try await transport.stream(try request("/stream/gate?id=\(id)"))
      #expect(streamed.response.statusCode == 200)
      var iterator = streamed.body.makeAsyncIterator()
      let first = try await iterator.next()
      // Only now may the server go on.
      _ = try await URLSessionTransport().send(try request("/stream/release?id=\(id)"))
      var rest = Data()
      while let chunk = try await iterator.next() { rest.append(chunk) }
      return (first.map { String(decoding: $0, as: UTF8.self) } ?? "")
        + String(decoding: rest, as: UTF8.self)
    }
    #expect(text == "first\nsecond (released)\n")
  }

  /// Leaving the loop, or cancelling the consuming task, closes the connection: the server's
  /// endless stream sees the disconnect.
  @Test(arguments: ["break", "cancel"]) func stoppingTheConsumerClosesTheConnection(_ how: String)
    async throws
  {
    let id = uniqueID()
    let transport = URLSessionTransport()
    let path = "/stream/endless?id=\(id)"
    if how == "break" {
      let streamed = try await transport.stream(try request(path))
      var received = 0
      for try await chunk in streamed.body {
        received += chunk.count
        if received > 8 << 10 { break }
      }
    } else {
      let started = Once<Void>()
      let task = Task {
        let streamed = try await transport.stream(try request(path))
        for try await _ in streamed.body { started.offer(()) }
      }
      let (_, _) = try await timed(limit: .seconds(60)) {
        await withCheckedContinuation { continuation in
          started.onFirst { continuation.resume() }
        }
      }
      task.cancel()
      let outcome = await task.result
      #expect(throws: CancellationError.self) { try outcome.get() }
    }
    // The server notices on its next writes, every 10 ms; allow a busy machine 30 s.
    var seen = 0
    for _ in 0..<300 {
      seen = try await hits("disconnect-\(id)").count
      if seen > 0 { break }
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(seen == 1)
  }

  /// A server that stalls after the first chunk ends the body with `.timedOut` after the
  /// request's timeout (5 s), long before it would go on (200 s). The timeout bounds the waits
  /// for the head and the first chunk too: 1 s let a loaded machine time out before them.
  ///
  /// The error must be the stream buffer's own (`URLError(.timedOut)` with no failing URL,
  /// which FoundationNetworking's errors carry) and come within 50 s: without the buffer's
  /// timeout, something else timed the stall out after about 60 s and the test still passed.
  @Test func aStalledServerTimesOutBetweenChunks() async throws {
    let transport = URLSessionTransport()
    let (outcome, elapsed) = try await timed(limit: .seconds(50)) {
      let streamed = try await transport.stream(
        try request("/stream/stall?seconds=200", timeout: 5))
      var chunks = 0
      do {
        for try await _ in streamed.body { chunks += 1 }
        return "ended after \(chunks) chunks"
      } catch let error as URLError {
        let code = error.code == .timedOut ? "timedOut" : "\(error.code)"
        let source = error.failingURL == nil ? "stream buffer" : "session"
        return "\(code) (\(source)) after \(chunks) chunks"
      }
    }
    #expect(outcome == "timedOut (stream buffer) after 1 chunks")
    #expect(elapsed >= .seconds(5))
  }

  /// A slow steady stream (a chunk every 0.3 s for about 3.6 s) runs longer than the 3 s timeout
  /// without timing out: the timeout bounds each wait, not the transfer (ten times the gap, so
  /// that a busy machine may deliver a chunk late; it was 0.4 s against 2 s, five times).
  @Test func aSlowSteadyStreamOutlastsTheTimeout() async throws {
    let transport = URLSessionTransport()
    // From before the request: a loaded machine may resume this task only once the whole
    // stream has come in (the collect alone then took 78 µs).
    let start = ContinuousClock.now
    let streamed = try await transport.stream(
      try request("/stream/chunks?n=13&size=20&pause=0.3", timeout: 3))
    let body = try await streamed.body.collect()
    #expect(body.count == 13 * 20)
    #expect(ContinuousClock.now - start > .seconds(3))
  }

  /// A connection reset mid-body: the chunk that came first, then the transport's error (never
  /// a body that silently ends early).
  @Test func aConnectionLostMidBodyThrowsAfterTheChunksThatCame() async throws {
    let streamed = try await URLSessionTransport().stream(try request("/stream/reset"))
    var received = Data()
    let error = await #expect(throws: URLError.self) {
      for try await chunk in streamed.body { received.append(chunk) }
    }
    #expect(received == Data("first\n".utf8))
    #expect(error?.code != .cancelled)
  }

  /// A server that accepts and never answers times out waiting for the head.
  @Test func aServerThatSendsNoHeadTimesOut() async throws {
    let transport = URLSessionTransport()
    let (outcome, _) = try await timed(limit: .seconds(100)) {
      do {
        _ = try await transport.stream(try request("/delay?seconds=200", timeout: 1))
        return "answered"
      } catch let error as URLError {
        return error.code == .timedOut ? "timedOut" : "\(error.code)"
      }
    }
    #expect(outcome == "timedOut")
  }

  /// A redirect to another origin (localhost instead of 127.0.0.1) drops `Authorization`, as
  /// for `send`.
  @Test func aRedirectToAnotherOriginDropsAuthorization() async throws {
    var request = try request(
      "/redirect?status=302&to=http://localhost:\(server.port)/headers")
    request.setValue("Bearer S3CR3T", forHTTPHeaderField: "Authorization")
    let streamed = try await URLSessionTransport().stream(request)
    let text = String(decoding: try await streamed.body.collect(), as: UTF8.self)
    #expect(streamed.response.statusCode == 200)
    #expect(streamed.response.url?.host == "localhost")
    #expect(text.contains("\"host\""))
    #expect(!text.contains("S3CR3T"), "the other origin saw: \(text)")
  }

  /// A 307 of a POST keeps its body to the same origin (the transport sends that hop itself).
  @Test func a307KeepsTheBody() async throws {
    var request = try request("/redirect?status=307&to=/echo")
    request.httpMethod = "POST"
    request.httpBody = Data("kept=yes".utf8)
    let streamed = try await URLSessionTransport().stream(request)
    let text = String(decoding: try await streamed.body.collect(), as: UTF8.self)
    #expect(streamed.response.statusCode == 200)
    #expect(text.contains("kept=yes"))
  }

  /// A 401 with `WWW-Authenticate` comes back at once as the 401 it is, with its body, whatever
  /// the session (with a delegate that does not answer with a credential, too).
  @Test(arguments: ["basic", "digest", "unknown"], SessionKind.allCases)
  func a401WithAChallengeComesBackAsItIs(_ scheme: String, _ session: SessionKind) async throws {
    let (transport, _) = session.transport()
    let (result, _) = try await timed(limit: .seconds(60)) {
      let streamed = try await transport.stream(
        try request("/challenge?scheme=\(scheme)", timeout: 10))
      let body = try await streamed.body.collect()
      return (streamed.response.statusCode, String(decoding: body, as: UTF8.self))
    }
    #expect(result.0 == 401)
    #expect(result.1.contains("sign in"))
  }

  /// A 64 MB body read at 1 ms per 64 KB: the transport never holds more than its memory limit
  /// (the rest waits in the temporary file), and every byte arrives in order. (The process's
  /// resident size is measured by the benchmark, not here: other suites run beside this one.)
  @Test func memoryStaysBoundedWithASlowConsumer() async throws {
    let size = 64 << 20
    let streamed = try await URLSessionTransport().stream(try request("/bytes?n=\(size)"))
    let buffer = try #require(streamed.body.owner.source as? StreamBuffer)
    var received = 0
    var pending = 0
    var allX = true
    for try await chunk in streamed.body {
      received += chunk.count
      chunk.withUnsafeBytes { bytes in
        if bytes.contains(where: { $0 != UInt8(ascii: "x") }) { allX = false }
      }
      pending += chunk.count
      while pending >= 64 << 10 {
        pending -= 64 << 10
        try await Task.sleep(for: .milliseconds(1))
      }
    }
    #expect(received == size)
    #expect(allX)
    // The limit plus the one chunk that may cross it.
    #expect(buffer.peakInMemory <= StreamBuffer.defaultMemoryLimit + (1 << 20))
  }
}
