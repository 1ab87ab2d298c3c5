import Foundation

// One frame of a stream (a JSON line, an event's data, an array element) decoded as the element
// it is: report entries and `DecodingError` coding paths start with its index (`[1532].price`),
// and in lenient policy an unusable frame is dropped and reported, as an element of a
// whole-body array is. The index is a key of the decode's root position, so the prefix costs
// nothing per value (no post-pass over the report or the error).

extension LenientDecoder {
  /// Decodes one frame of a stream as element `index`.
  ///
  /// - Parameters:
  ///   - type: the element type.
  ///   - bytes: the frame's UTF-8 JSON text.
  ///   - index: the frame's index, counted from 0 over the values of the stream.
  /// - Returns: the value (nil when lenient policy dropped it) and the report, whose paths
  ///   start with `[index]`.
  /// - Throws: `DecodingError` with coding paths that start with `[index]`:
  ///   `dataCorrupted` for malformed JSON, and in strict policy what `decode` throws.
  package func decodeFrame<T: Decodable>(
    _ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, index: Int
  ) throws -> Decoded<T?> {
    let options = baseOptions
    let key = AnyCodingKey(intValue: index)
    return try JSONDocument.scanning(
      bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: true,
      readerError: { Self.dataCorrupted($0, at: [key]) }
    ) { document in
      let decoder = DecoderImpl(options: options, document: document)
      var value: T?
      try decoder.decodeElement(type, index: index) { value = $0 }
      return Decoded(value: value, report: decoder.recorder.report)
    }
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
    try data.withUnsafeBytes { raw in
      try decodeFrame(type, from: raw.bindMemory(to: UInt8.self), index: index)
    }
  }
}
