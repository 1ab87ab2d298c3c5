import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A pipe whose write end a task feeds; closed at the end of the feed, or from outside the
/// concurrency pool by a watchdog (which then ends the body short).
private final class FedPipe: @unchecked Sendable {
  private let pipe = Pipe()
  private let lock = NSLock()
  private var closed = false

  /// A stream that reads the pipe, as an app's body producer hands it to a request.
  var stream: InputStream? {
    InputStream(fileAtPath: "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)")
  }

  /// Writes `data` (small enough never to fill the pipe) unless the pipe was closed.
  func write(_ data: Data) {
    lock.withLock { if !closed { pipe.fileHandleForWriting.write(data) } }
  }

  func close() {
    lock.withLock {
      guard !closed else { return }
      closed = true
      try? pipe.fileHandleForWriting.close()
    }
  }
}

/// A stream that tells when its reader first asks it for bytes, reading `base`.
private final class WatchedStream: InputStream {
  private let base: InputStream
  private let lock = NSLock()
  private var reads = 0

  /// Whether a reader has asked for bytes.
  var asked: Bool { lock.withLock { reads > 0 } }

  init(_ base: InputStream) {
    self.base = base
    super.init(data: Data())
  }

  override func open() { base.open() }
  override func close() { base.close() }
  override var streamStatus: Stream.Status { base.streamStatus }
  override var streamError: (any Error)? { base.streamError }
  override var hasBytesAvailable: Bool { base.hasBytesAvailable }

  override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
    lock.withLock { reads += 1 }
    return base.read(buffer, maxLength: len)
  }
}

/// A body given as `httpBodyStream` is read (whole, so that a 307 or 308 sends it again) on a
/// thread of its own, not on one of the Swift concurrency pool: a producer that is a task
/// (writing a pipe the stream reads) runs while the requests it feeds wait, however many there
/// are, and cancelling a request ends its wait for a producer that never writes.
@Suite(.aheadOfTheBacklog) struct BodyStreamThreadTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  @Test func bodyStreamsFedByTasksAreSentWhole() async throws {
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/echo"))
    let chunk = String(repeating: "x", count: 1024)
    let chunks = 8
    // One request more than the pool has threads.
    let pipes = (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in FedPipe() }
    // Outside the concurrency pool: should every thread of the pool wait on a pipe, the
    // producers never run and only this ends the bodies (short). Long, so that a pool kept busy
    // by the other tests of a full run only slows the producers down (a loaded run held it
    // past 120 s, which this was, and the bodies came short).
    DispatchQueue.global().asyncAfter(deadline: .now() + 240) { pipes.forEach { $0.close() } }
    let bodies = try await withThrowingTaskGroup(of: String?.self) { group in
      for pipe in pipes {
        let stream = try #require(pipe.stream)
        group.addTask {
          var request = URLRequest(url: url, timeoutInterval: 300)
          request.httpMethod = "POST"
          request.httpBodyStream = stream
          let text = String(
            decoding: try await URLSessionTransport().send(request).0, as: UTF8.self)
          return try JSON(data: Data(text.utf8))["data"]?["body"]?.stringValue ?? text
        }
        group.addTask {
          for _ in 0..<chunks {
            try? await Task.sleep(for: .milliseconds(20))
            pipe.write(Data(chunk.utf8))
          }
          pipe.close()
          return nil
        }
      }
      var bodies: [String] = []
      for try await body in group { if let body { bodies.append(body) } }
      return bodies
    }
    #expect(bodies.count == pipes.count)
    for body in bodies {
      #expect(body.count == chunk.utf8.count * chunks, "bytes that arrived")
      #expect(body.allSatisfy { $0 == "x" })
    }
  }

  @Test func cancellingEndsTheWaitForAStreamNobodyWrites() async throws {
    let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/echo"))
    let pipe = FedPipe()
    defer { pipe.close() }  // the reader thread ends with the pipe
    let stream = WatchedStream(try #require(pipe.stream))
    var request = URLRequest(url: url, timeoutInterval: 60)
    request.httpMethod = "POST"
    request.httpBodyStream = stream
    let sent = request
    let call = Task { try await URLSessionTransport().send(sent) }
    // Cancelled once the reader waits for the producer (a fixed 200 ms let a loaded machine
    // cancel the call before it read: the test passed without a wait to end).
    try #require(await poll { stream.asked }, "the body stream was never read")
    call.cancel()
    // At once, by the cancellation: the producer never writes, and the request's timeout is a
    // minute. (The bounds were 5 s and a 10 s limit.)
    let (outcome, took) = try await timed(limit: .seconds(50)) {
      await Result { try await call.value }
    }
    #expect(took < .seconds(20))
    guard case .failure(let error) = outcome else {
      Issue.record("sent without a body")
      return
    }
    #expect(error is CancellationError, "\(error)")
  }
}
