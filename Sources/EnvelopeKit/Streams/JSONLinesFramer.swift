import Foundation

// JSON Lines / NDJSON: one value per line. A line ends at `\n` (a `\r` before it is dropped, so
// `\r\n` works too); a line of JSON whitespace only is skipped and not counted; the last line
// needs no newline. The framer does not read the JSON: each line is decoded on its own
// (`LenientDecoder.decodeFrame`), so a malformed line is that line's error.
//
// A line that ends inside the chunk it began in is handed out straight from the chunk; one
// that spans chunks from the carry buffer, so memory is the longest line.

/// Splits a JSON Lines (NDJSON) stream fed in chunks into its lines.
///
/// ```swift
/// var framer = JSONLinesFramer()
/// for chunk in chunks { framer.feed(chunk) { line in /* decode line.bytes as line.index */ } }
/// framer.finish { line in /* the last line, when it had no newline */ }
/// ```
package struct JSONLinesFramer {
  /// One line holding a value.
  package struct Line {
    /// The line's bytes without its line end, borrowed for the call to the handler.
    package let bytes: UnsafeBufferPointer<UInt8>
    /// Its index, counted from 0 over the lines that hold a value (blank lines are not).
    package let index: Int
  }

  /// The start of a line that began in an earlier chunk.
  private var carry: [UInt8] = []
  /// How many lines have been handed out.
  package private(set) var count = 0

  /// A framer at the start of a stream.
  package init() {}

  /// Reads the next chunk and hands out every line it completes, in order.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes, split anywhere.
  ///   - line: called with each complete line that holds something other than whitespace.
  /// - Throws: what `line` throws.
  package mutating func feed(
    _ chunk: UnsafeRawBufferPointer, _ line: (Line) throws -> Void
  ) rethrows {
    let bytes = chunk.bindMemory(to: UInt8.self)
    guard let base = bytes.baseAddress else { return }
    var start = 0
    while start < bytes.count,
      let found = memchr(base + start, Int32(ASCII.newline), bytes.count - start)
    {
      let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      if carry.isEmpty {
        try hand(UnsafeBufferPointer(rebasing: bytes[start..<end]), line)
      } else {
        carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        let held = carry
        carry.removeAll(keepingCapacity: true)
        try held.withUnsafeBufferPointer { try hand($0, line) }
      }
      start = end + 1
    }
    carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
  }

  /// `feed(_:_:)` for a chunk held in `Data`.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes.
  ///   - line: called with each complete line.
  /// - Throws: what `line` throws.
  package mutating func feed(_ chunk: Data, _ line: (Line) throws -> Void) rethrows {
    try chunk.withUnsafeBytes { try feed($0, line) }
  }

  /// Ends the stream: hands out the last line when it had no newline.
  ///
  /// - Parameter line: called with the last line, if it holds a value.
  /// - Throws: what `line` throws.
  package mutating func finish(_ line: (Line) throws -> Void) rethrows {
    let held = carry
    carry = []
    try held.withUnsafeBufferPointer { try hand($0, line) }
  }

  /// Hands out a line unless it is blank; drops a `\r` at its end.
  private mutating func hand(_ bytes: UnsafeBufferPointer<UInt8>, _ line: (Line) throws -> Void)
    rethrows
  {
    var end = bytes.count
    if end > 0 && bytes[end - 1] == ASCII.carriageReturn { end -= 1 }
    let text = UnsafeBufferPointer(rebasing: bytes[0..<end])
    guard
      text.contains(where: {
        $0 != ASCII.space && $0 != ASCII.tab && $0 != ASCII.carriageReturn
      })
    else { return }
    let index = count
    count += 1
    try line(Line(bytes: text, index: index))
  }
}
