import Foundation

// Frames of a stream (NDJSON lines, SSE data, elements of a body) decoded one at a time by a
// `FrameDecoder`.

extension DecoderImpl {
  /// Decodes `document` as element `index` of a stream and hands it to `keep`: its coding
  /// path and report paths start with `[index]`, and an unusable value is dropped (reported
  /// `dropped` at `[index]`) as an element of a whole-body array is. The decoder's own
  /// position stays where it was (`JSONDocument.placeholder` for a `FrameDecoder`), so it
  /// keeps no reference to `document` afterwards.
  func decodeFrame<T: Decodable>(
    _ type: T.Type, in document: JSONDocument, index: Int, _ keep: (consuming T) -> Void
  ) throws {
    try decodeFrame(type, in: ContainerFrame(root: document), token: 0, index: index, keep)
  }

  /// `decodeFrame(_:in:index:_:)` for the value at `token` of `root`'s document (a frame of a
  /// batch, `FrameDecoder.decode(_:frames:keeping:)`): the same coding path and report, as if
  /// the value were a document of its own.
  func decodeFrame<T: Decodable>(
    _ type: T.Type, in root: ContainerFrame, token: Int, index: Int,
    _ keep: (consuming T) -> Void
  ) throws {
    stack = StackGuard()
    let position = DecodingPosition(
      parent: root, index: token, key: AnyCodingKey(intValue: index), allowsFallback: false,
      type: type)
    try element(type, at: position, keep)
  }

  /// Decodes `document` (an array of a stream's elements) as `[T]`: element paths start with
  /// `[k]`, k counted in the batch; unusable elements are dropped as in any array.
  func decodeBatch<T: Decodable>(_ type: [T].Type, in document: JSONDocument) throws -> [T] {
    stack = StackGuard()
    return try unbox(
      type,
      at: DecodingPosition(parent: ContainerFrame(root: document), index: 0, key: nil, type: type))
  }
}
