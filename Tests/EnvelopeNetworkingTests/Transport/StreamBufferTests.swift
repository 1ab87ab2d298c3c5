import Foundation
import Testing

@testable import EnvelopeNetworking

/// The buffer between URLSession's callbacks and a stream's consumer, on its own (no network):
/// what it writes to its temporary file, and that every byte comes out once, in order.
@Suite struct StreamBufferTests {
  /// FoundationNetworking hands a body over in pieces of about 2 KB: 4 MB of them spilled to the
  /// file take a handful of writes, not one per piece (a write each made the delegate queue
  /// fall behind the socket, and the waiting pieces grew the process by hundreds of MB).
  @Test func aSpilledBodyIsWrittenInBlocksNotAWritePerPiece() async throws {
    let buffer = StreamBuffer(memoryLimit: 64 << 10)
    let piece = Data(repeating: UInt8(ascii: "x"), count: 2048)
    let pieces = (4 << 20) / piece.count
    for _ in 0..<pieces { buffer.append(piece) }
    buffer.finish(error: nil)
    var received = 0
    while let chunk = try await buffer.next(timeout: nil) { received += chunk.count }
    #expect(received == pieces * piece.count)
    let spilled = pieces * piece.count - (64 << 10)
    #expect(buffer.fileWrites <= spilled / StreamBuffer.spillBlock + 1)
  }

  /// A producer whose queue is far behind (the delegate queue starved of a core) makes the
  /// consumer step aside before its next chunk, for at most `backlogPause`, so the queued pieces
  /// (the process's memory) drain; a short queue costs the consumer no wait. Counted in steps,
  /// not timed: a busy machine may be late to wake anything.
  @Test(arguments: [(0, false), (StreamBuffer.backlogLimit, false), (5_000, true)])
  func aConsumerStepsAsideWhileTheProducerIsFarBehind(backlog: Int, waits: Bool) async throws {
    let buffer = StreamBuffer()
    buffer.append(Data("a\n".utf8), backlog: backlog)
    #expect(try await buffer.next(timeout: nil) == Data("a\n".utf8))
    let steps = buffer.stepsAside
    if waits {
      #expect(steps >= 1 && steps <= 50, "\(steps) steps of 1 ms, at most 50")
    } else {
      #expect(steps == 0)
    }
    // Once the producer has caught up, the consumer goes on at once.
    buffer.append(Data("b\n".utf8), backlog: 0)
    #expect(try await buffer.next(timeout: nil) == Data("b\n".utf8))
    #expect(buffer.stepsAside == steps)
  }

  /// The producer's last count is stale once the body has ended (every piece is appended):
  /// the rest of a spilled body is read without a pause per chunk.
  @Test func aStaleBacklogAfterTheEndCostsNoWait() async throws {
    let buffer = StreamBuffer(memoryLimit: 8)
    for index in 0..<4 { buffer.append(Data("line \(index)\n".utf8), backlog: 5_000) }
    buffer.finish(error: nil)
    var text = Data()
    while let chunk = try await buffer.next(timeout: nil) { text += chunk }
    #expect(String(decoding: text, as: UTF8.self) == "line 0\nline 1\nline 2\nline 3\n")
    #expect(buffer.stepsAside == 0)
  }

  /// Generated: pieces of random sizes appended while the consumer reads at random moments,
  /// with a memory limit small enough that the body goes to the file and back to memory again
  /// and again: what comes out is what went in, in order, and memory stays within the limit
  /// plus one unwritten block and one piece.
  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func everyByteComesOutOnceInOrder(seed: UInt64) async throws {
    var random = SeededGenerator(seed: seed &* 0x5DEE_CE66_D1CE)
    let limit = 32 << 10
    let buffer = StreamBuffer(memoryLimit: limit)
    var sent = Data()
    var received = Data()
    var largest = 0
    var counter: UInt8 = 0
    for _ in 0..<1500 {
      let size = Int.random(in: 1...(Bool.random(using: &random) ? 300 : 20_000), using: &random)
      largest = max(largest, size)
      var piece = Data(count: size)
      piece.withUnsafeMutableBytes { bytes in
        for index in bytes.indices {
          bytes[index] = counter
          counter &+= 1
        }
      }
      sent.append(piece)
      buffer.append(piece)
      // Now and then the consumer reads a few chunks (only what is there: a read with nothing
      // buffered would wait for more), so the body runs ahead of it, then catches up.
      guard Int.random(in: 0..<40, using: &random) == 0 else { continue }
      for _ in 0..<Int.random(in: 1...60, using: &random) where received.count < sent.count {
        guard let chunk = try await buffer.next(timeout: nil) else { break }
        received.append(chunk)
      }
    }
    buffer.finish(error: nil)
    while let chunk = try await buffer.next(timeout: nil) { received.append(chunk) }
    #expect(received == sent)
    #expect(buffer.fileWrites > 0)
    #expect(buffer.peakInMemory <= limit + StreamBuffer.spillBlock + largest)
  }
}
