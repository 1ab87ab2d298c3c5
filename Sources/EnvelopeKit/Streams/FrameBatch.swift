import Foundation

// Frames that are each a JSON text of their own (a Server-Sent Event's data) decoded in one
// scan: joined as `[f1,f2,…]`, scanned once, and each element decoded as its frame would be
// alone (`DecoderImpl.decodeFrame(_:in:token:index:_:)`). A small frame costs its decode, not
// a document of its own (a scan's set-up, a tape, a root frame: about a tenth of a 200-byte
// event's decode).
//
// Joining is only sound when each frame is exactly one JSON value: `1,2` then `3` joined read
// as three elements, `[1` then `2]` as one. So the joined document is used only when its
// array has one element per frame and each element's text lies inside its own frame's bytes
// (then the rest of each frame is whitespace: our commas are the array's separators), and the
// last frame does not end with a comma (`[…,{"id":7},]`: the trailing comma the scanner accepts
// before `]` would be the frame's own, and `{"id":7},` alone is malformed). Anything
// else (a frame that is not one JSON value, one nested deeper than the limit allows once
// wrapped, a malformed one) decodes the frames one by one, as the stream always did, so the
// values, report and error are exactly those of decoding each frame on its own.

/// Frames of a stream gathered to be decoded in one scan (`FrameDecoder.decode(_:frames:keeping:)`).
package struct FrameBatch {
  /// `[` and the frames joined with `,` (the closing `]` is added to decode).
  private var text: [UInt8] = []
  /// Where each frame is in `text`.
  private var ranges: [Range<Int>] = []

  /// An empty batch.
  package init() {}

  /// The frames gathered.
  package var count: Int { ranges.count }

  /// Forgets the frames, keeping the capacity.
  package mutating func removeAll() {
    text.removeAll(keepingCapacity: true)
    ranges.removeAll(keepingCapacity: true)
  }

  /// Adds a frame (its bytes are copied).
  ///
  /// - Parameter frame: the frame's UTF-8 JSON text.
  package mutating func append(_ frame: UnsafeBufferPointer<UInt8>) {
    text.append(ranges.isEmpty ? ASCII.openBracket : ASCII.comma)
    let start = text.count
    text.append(contentsOf: frame)
    ranges.append(start..<text.count)
  }

  /// Calls `body` with the joined text (`[f1,f2,…]`) and the frames' ranges in it.
  fileprivate mutating func withJoined<R>(
    _ body: (UnsafeBufferPointer<UInt8>, [Range<Int>]) throws -> R
  ) rethrows -> R {
    text.append(ASCII.closeBracket)
    defer { text.removeLast() }
    return try text.withUnsafeBufferPointer { try body($0, ranges) }
  }
}

extension FrameDecoder {
  /// Decodes each frame of `frames` as `decode(_:from:index:keeping:)` decodes it, frame `k`
  /// as element `firstIndex + k`, in one scan when the frames allow it (see above).
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - frames: the frames.
  ///   - firstIndex: the index of the first frame, counted from 0 over the values of the stream.
  ///   - keep: gets each value with its frame's position in the batch (a frame that lenient
  ///     policy drops gets no call).
  /// - Throws: the error of the first frame that throws, as `decode(_:from:index:keeping:)`
  ///   throws it, after `keep` got the values of the frames before it.
  package func decode<T: Decodable>(
    _ type: T.Type, frames: inout FrameBatch, firstIndex: Int,
    keeping keep: (Int, consuming T) -> Void
  ) throws {
    guard frames.count > 0 else { return }
    let maxDepth = self.maxDepth
    try frames.withJoined { bytes, ranges in
      let recorder = decoder.recorder
      // The report as it was before the frame being decoded.
      var mark = recorder.mark
      var next = 0
      do {
        try JSONDocument.scanning(bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: true) {
          document in
          guard let tokens = Self.elementTokens(of: document, in: bytes, matching: ranges) else {
            throw FrameBatchUnusable()
          }
          batchesJoined += 1
          let root = ContainerFrame(root: document)
          while next < tokens.count {
            let position = next
            mark = recorder.mark
            try decoder.decodeFrame(
              type, in: root, token: tokens[position], index: firstIndex + position
            ) { keep(position, $0) }
            next += 1
          }
        }
        return
      } catch {
        // A frame that threw (or a batch that could not be joined): from that frame on, one
        // by one, so the error is the frame's own.
        recorder.rollback(to: mark)
      }
      while next < ranges.count {
        let position = next
        try decode(
          type, from: UnsafeBufferPointer(rebasing: bytes[ranges[position]]),
          index: firstIndex + position
        ) { keep(position, $0) }
        next += 1
      }
    }
  }

  /// The token of each element of the joined document's array, when there is one element per
  /// frame, each element's text lies inside its frame's range and the last frame has no comma
  /// after its element; nil otherwise.
  ///
  /// Between two elements the scanner accepts only whitespace and one comma, ours: a comma of a
  /// frame's own there makes the document malformed. Only before the closing `]` does it
  /// accept a comma that can be the last frame's own (trailing commas are allowed).
  private static func elementTokens(
    of document: JSONDocument, in bytes: UnsafeBufferPointer<UInt8>, matching ranges: [Range<Int>]
  ) -> [Int]? {
    let tokens = document.tokens
    guard let root = tokens.first, root.kind == .array else { return nil }
    var result: [Int] = []
    result.reserveCapacity(ranges.count)
    var index = 1
    for range in ranges {
      guard index < Int(root.next) else { return nil }
      let token = tokens[index]
      // A string's token spans its content; its text includes the quotes.
      let isString = token.kind == .string
      let start = Int(token.start) - (isString ? 1 : 0)
      let end = Int(token.end) + (isString ? 1 : 0)
      guard range.lowerBound <= start, end <= range.upperBound else { return nil }
      result.append(index)
      index = Int(token.next)
      if index == Int(root.next), bytes[end..<range.upperBound].contains(ASCII.comma) {
        return nil
      }
    }
    return index == Int(root.next) ? result : nil
  }
}

/// The frames of a batch are not one JSON value each: they are decoded one by one.
private struct FrameBatchUnusable: Error {}
