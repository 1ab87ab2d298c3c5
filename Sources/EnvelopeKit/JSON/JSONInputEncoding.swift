import Foundation

/// UTF-16 and UTF-32 input, which Foundation's `JSONDecoder` reads, turned into the UTF-8 the
/// scanner reads. `JSON(data:)` stays UTF-8 only (RFC 8259).
enum JSONInputEncoding {
  /// The UTF-8 text of `bytes` when a byte order mark or the pattern of zero bytes in the first
  /// four bytes (RFC 4627's detection, as Foundation does it) says UTF-16 or UTF-32; nil when
  /// they are UTF-8 already (or too few to tell). Asked of the borrowed bytes, so that a UTF-8
  /// body (almost every body) costs two byte reads.
  ///
  /// - Throws: `JSONReaderError` when the detected encoding does not decode.
  static func transcoded(_ bytes: UnsafeRawBufferPointer) throws(JSONReaderError) -> Data? {
    guard let (encoding, mark) = detect(bytes) else { return nil }
    guard let text = String(data: Data(bytes.dropFirst(mark)), encoding: encoding) else {
      throw JSONReaderError(.invalidUTF8, offset: 0, in: UnsafeBufferPointer(start: nil, count: 0))
    }
    return Data(text.utf8)
  }

  /// Whether `bytes` are UTF-8 as far as `transcoded(_:)` can tell (it returns nil for them).
  static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool { detect(bytes) == nil }

  /// The encoding and the length of the byte order mark before the text (0 when none).
  private static func detect(_ data: UnsafeRawBufferPointer) -> (String.Encoding, Int)? {
    guard data.count >= 2 else { return nil }
    // Almost every body: no zero byte and no byte order mark up front, so UTF-8. (Every case
    // below starts with 0x00, 0xFE or 0xFF, or has 0x00 second.)
    let first = data[0]
    let second = data[1]
    if first != 0, first < 0xFE, second != 0 { return nil }
    let b = (
      first, second, data.count > 2 ? data[2] : 1, data.count > 3 ? data[3] : 1
    )
    switch b {
    case (0x00, 0x00, 0xFE, 0xFF): return (.utf32BigEndian, 4)
    case (0xFF, 0xFE, 0x00, 0x00): return (.utf32LittleEndian, 4)
    // swift-foundation reads UTF-32LE after these bytes too (its tests decode a string so).
    case (0xFE, 0xFF, 0x00, 0x00) where data.count % 4 == 0: return (.utf32LittleEndian, 4)
    case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
    case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
    case (0x00, 0x00, 0x00, _) where data.count >= 4: return (.utf32BigEndian, 0)
    case (_, 0x00, 0x00, 0x00) where data.count >= 4 && b.0 != 0: return (.utf32LittleEndian, 0)
    case (0x00, _, _, _) where b.1 != 0: return (.utf16BigEndian, 0)
    case (_, 0x00, _, _) where b.0 != 0: return (.utf16LittleEndian, 0)
    default: return nil
    }
  }
}
