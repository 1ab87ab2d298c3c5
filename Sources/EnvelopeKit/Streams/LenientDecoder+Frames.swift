import Foundation

// One frame of a stream (a JSON line, an event's data, an array element) decoded as the element
// it is: report entries and `DecodingError` coding paths start with its index (`[1532].price`),
// and in lenient policy an unusable frame is dropped and reported, as an element of a
// whole-body array is. The index is the key of the decode's root position, so the prefix costs
// nothing per value (no post-pass over the report or the error).
//
// A stream decodes many small values: `FrameDecoder` keeps one decoder (its settings, the
// traits of the types it has met, its report recorder) for all of them, so a frame costs its
// scan and its decode, not a decoder's set-up (per-frame set-up was a third of a 100-byte
// element's decode).

/// Decodes the frames of one stream, one after the other, with one `LenientDecoder`'s settings.
///
/// Not `Sendable`: one stream's frames, decoded in turn (on any thread).
package final class FrameDecoder {
  let decoder: DecoderImpl
  let maxDepth: Int
  /// The batches of frames decoded in one scan (`decode(_:frames:firstIndex:keeping:)`; tests
  /// read it).
  package internal(set) var batchesJoined = 0

  /// A frame decoder with `decoder`'s settings and policy.
  ///
  /// - Parameter decoder: the settings.
  package init(_ decoder: LenientDecoder) {
    self.decoder = DecoderImpl(options: decoder.baseOptions, document: .placeholder)
    maxDepth = decoder.maxDepth
  }

  /// Decodes one frame as element `index`.
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - bytes: the frame's UTF-8 JSON text.
  ///   - index: the frame's index, counted from 0 over the values of the stream.
  /// - Returns: the value (nil when lenient policy dropped it) and the frame's report, whose
  ///   paths start with `[index]`.
  /// - Throws: `DecodingError` with coding paths that start with `[index]`:
  ///   `dataCorrupted` for malformed JSON, and in strict policy what `decode` throws.
  package func decode<T: Decodable>(
    _ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, index: Int
  ) throws -> Decoded<T?> {
    let key = AnyCodingKey(intValue: index)
    _ = decoder.recorder.take()
    return try JSONDocument.scanning(
      bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: true,
      readerError: { LenientDecoder.dataCorrupted($0, at: [key]) }
    ) { document in
      var value: T?
      try decoder.decodeFrame(type, in: document, index: index) { value = $0 }
      return Decoded(value: value, report: decoder.recorder.take())
    }
  }

  /// Starts a batch of frames decoded one after the other with
  /// `decode(_:from:index:keeping:)`: their report is taken together by `takeReport()`.
  package func startBatch() {
    _ = decoder.recorder.take()
  }

  /// The report of the frames decoded since `startBatch()`, paths starting with each frame's
  /// own index; capped at `LenientDecoder.maxReportEntries` for the batch.
  ///
  /// - Returns: the report.
  package func takeReport() -> DecodingReport {
    decoder.recorder.take()
  }

  /// Decodes one frame of a batch as element `index`, handing its value to `keep` (not called
  /// when lenient policy drops it): a stream's chunk of frames costs one call each and no
  /// per-frame result, report or wrapper. The frame's report entries stay in the batch's
  /// report (`takeReport()`); a frame that throws leaves none.
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - bytes: the frame's UTF-8 JSON text.
  ///   - index: the frame's index, counted from 0 over the values of the stream.
  ///   - keep: gets the value.
  /// - Throws: as `decode(_:from:index:)`.
  package func decode<T: Decodable>(
    _ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, index: Int,
    keeping keep: (consuming T) -> Void
  ) throws {
    let mark = decoder.recorder.mark
    do {
      try JSONDocument.scanning(
        bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: true,
        readerError: { LenientDecoder.dataCorrupted($0, at: [AnyCodingKey(intValue: index)]) }
      ) { document in
        try decoder.decodeFrame(type, in: document, index: index, keep)
      }
    } catch {
      decoder.recorder.rollback(to: mark)
      throw error
    }
  }

  /// Decodes a batch of elements (`JSONElementFramer.feedBatch(_:_:)`) in one decode, with
  /// exactly the values, report and error that decoding each element on its own gives: report
  /// paths start with each element's own index, and when an element throws, the elements
  /// before it are in `values` and its error in `error` (the batch is then decoded again
  /// element by element, to know which).
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - batch: the elements.
  /// - Returns: the values (lenient policy leaves out the dropped ones), their report, and the
  ///   error that stopped the batch, if any.
  package func decode<T: Decodable>(_ type: T.Type, batch: JSONElementFramer.Batch)
    -> BatchDecoded<T>
  {
    _ = decoder.recorder.take()
    do {
      let values = try JSONDocument.scanning(
        bytes: batch.bytes, maxDepth: maxDepth, allowsTrailingCommas: true
      ) { document in
        try decoder.decodeBatch([T].self, in: document)
      }
      return BatchDecoded(
        values: values, report: Self.shifted(decoder.recorder.take(), by: batch.firstIndex),
        error: nil)
    } catch {
      return oneByOne(type, batch)
    }
  }

  /// The batch decoded element by element, up to the first that throws.
  private func oneByOne<T: Decodable>(_ type: T.Type, _ batch: JSONElementFramer.Batch)
    -> BatchDecoded<T>
  {
    var result = BatchDecoded<T>(values: [], report: DecodingReport(), error: nil)
    for (offset, range) in batch.ranges.enumerated() {
      do {
        let decoded = try decode(
          type, from: UnsafeBufferPointer(rebasing: batch.bytes[range]),
          index: batch.firstIndex + offset)
        if let value = decoded.value { result.values.append(value) }
        result.report.entries += decoded.report.entries
        result.report.omittedCount += decoded.report.omittedCount
      } catch {
        result.error = error
        break
      }
    }
    return result
  }

  /// A batch's report with each path's leading `[k]` made the element's own index.
  private static func shifted(_ report: DecodingReport, by base: Int) -> DecodingReport {
    guard base != 0, !report.entries.isEmpty else { return report }
    var shifted = report
    for position in shifted.entries.indices {
      let path = shifted.entries[position].path
      guard path.hasPrefix("["), let close = path.firstIndex(of: "]"),
        let index = Int(path[path.index(after: path.startIndex)..<close])
      else { continue }
      shifted.entries[position].path = "[\(base + index)]" + path[path.index(after: close)...]
    }
    return shifted
  }

  /// `decode(_:from:index:)` for a frame held in `Data`.
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - data: the frame's UTF-8 JSON text.
  ///   - index: the frame's index.
  /// - Returns: the value (nil when dropped) and the report.
  /// - Throws: as `decode(_:from:index:)`.
  package func decode<T: Decodable>(_ type: T.Type, from data: Data, index: Int) throws
    -> Decoded<T?>
  {
    try data.withUnsafeBytes { raw in
      try decode(type, from: raw.bindMemory(to: UInt8.self), index: index)
    }
  }
}

/// A batch of elements decoded: the values in order, their report, and the error of the element
/// that stopped the batch (the values are those before it). The report is one decode's: capped
/// at `LenientDecoder.maxReportEntries` for the batch, not for each element.
package struct BatchDecoded<T> {
  /// The values.
  package var values: [T]
  /// Their report, paths starting with each element's index.
  package var report: DecodingReport
  /// The error of the first element that threw, if any.
  package var error: (any Error)?
}

extension LenientDecoder {
  /// Decodes one frame of a stream as element `index` (a `FrameDecoder` for one frame; a
  /// stream keeps one `FrameDecoder` for all its frames).
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - bytes: the frame's UTF-8 JSON text.
  ///   - index: the frame's index, counted from 0 over the values of the stream.
  /// - Returns: the value (nil when lenient policy dropped it) and the report.
  /// - Throws: as `FrameDecoder.decode(_:from:index:)`.
  package func decodeFrame<T: Decodable>(
    _ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, index: Int
  ) throws -> Decoded<T?> {
    try FrameDecoder(self).decode(type, from: bytes, index: index)
  }

  /// `decodeFrame(_:from:index:)` for a frame held in `Data`.
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - data: the frame's UTF-8 JSON text.
  ///   - index: the frame's index.
  /// - Returns: the value (nil when dropped) and the report.
  /// - Throws: as `decodeFrame(_:from:index:)`.
  package func decodeFrame<T: Decodable>(_ type: T.Type, from data: Data, index: Int) throws
    -> Decoded<T?>
  {
    try FrameDecoder(self).decode(type, from: data, index: index)
  }
}
