import Foundation

@testable import EnvelopeKit

/// Chunkings of a stream for the framer tests.
enum Chunks {
  /// `bytes` as two chunks split at `offset`.
  static func split(_ bytes: [UInt8], at offset: Int) -> [[UInt8]] {
    [Array(bytes[..<offset]), Array(bytes[offset...])]
  }

  /// `bytes` one byte at a time, with an empty chunk between two (empty reads must be harmless).
  static func bytewise(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.flatMap { [[$0], []] }
  }

  /// `bytes` cut into chunks of random sizes (1...maxSize).
  static func random(_ bytes: [UInt8], maxSize: Int, using random: inout SeededGenerator)
    -> [[UInt8]]
  {
    var chunks: [[UInt8]] = []
    var start = 0
    while start < bytes.count {
      let size = Int.random(in: 1...maxSize, using: &random)
      let end = min(bytes.count, start + size)
      chunks.append(Array(bytes[start..<end]))
      start = end
    }
    return chunks
  }
}

/// Runs a framer over chunks, with each chunk in its own buffer (so nothing can read past it).
func eachChunk(_ chunks: [[UInt8]], _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
  try FramingOracle.each(chunks, body)
}
