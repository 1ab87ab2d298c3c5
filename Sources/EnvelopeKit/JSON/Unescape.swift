/// Decodes the contents of a string whose escapes and UTF-8 the scanner already validated.
///
/// The text between escapes is found eight bytes at a time and copied whole
/// (`nextBackslash`); pays on twitter.json, whose texts and URLs are escaped. For a string the
/// scanner accepted (valid UTF-8 between escapes, `\u` escapes as valid UTF-16) the result is
/// valid UTF-8: each escape is written as the scalar it names. So where `UTF8Span` is
/// available the result is copied into the string without validating it again (that validation
/// was 2% of twitter.json's decode), flagged ASCII when it is (`isNonASCII`: a byte of the text
/// was 0x80 or above; a `\u` escape may add one): `validatedString(_:isASCII:)`.
func unescape(_ bytes: UnsafeBufferPointer<UInt8>, isNonASCII: Bool) -> String {
  withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) {
    var wroteNonASCII = isNonASCII
    let written = unescape(bytes, into: $0, wroteNonASCII: &wroteNonASCII)
    return validatedString(UnsafeBufferPointer(rebasing: $0[..<written]), isASCII: !wroteNonASCII)
  }
}

/// A `String` of bytes the scanner validated as UTF-8 (`isASCII`: none is 0x80 or above),
/// copied without validating them again where the standard library has `UTF8Span` (Linux; Apple
/// platforms 26 and later); elsewhere the string validates them. The one place a validated
/// token becomes a `String` (`JSONDocument.string(_:)`, `unescape`).
@inline(__always)
func validatedString(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
  if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
    return String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: isASCII))
  }
  return String(decoding: bytes, as: UTF8.self)
}

/// Writes the unescaped `bytes` into `output` (at least `bytes.count` long: never longer than
/// the escaped text) and returns the count written; sets `wroteNonASCII` when a `\u` escape
/// wrote a byte of 0x80 or above.
private func unescape(
  _ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>,
  wroteNonASCII: inout Bool
) -> Int {
  do {
    guard let source = bytes.baseAddress, let target = output.baseAddress else { return 0 }
    var written = 0
    var i = 0
    while i < bytes.count {
      let end = nextBackslash(bytes, from: i)
      if end > i {
        UnsafeMutableRawPointer(target + written).copyMemory(from: source + i, byteCount: end - i)
        written += end - i
        i = end
      }
      // A backslash at the very end (never from the scanner) is kept as it is.
      guard i + 1 < bytes.count else {
        if i < bytes.count {
          output[written] = bytes[i]
          written += 1
        }
        break
      }
      let escape = bytes[i + 1]
      i += 2
      let simple: UInt8
      switch escape {
      case ASCII.lowerB: simple = 0x08
      case ASCII.lowerF: simple = 0x0C
      case ASCII.lowerN: simple = ASCII.newline
      case ASCII.lowerR: simple = ASCII.carriageReturn
      case ASCII.lowerT: simple = ASCII.tab
      case ASCII.lowerU:
        var scalarValue = UInt32(readHex4(bytes, at: i))
        i += 4
        // A lead surrogate and its trail are one scalar; a lone one (never from the scanner)
        // is U+FFFD.
        if UTF16.isLeadSurrogate(UInt16(truncatingIfNeeded: scalarValue)), i + 6 <= bytes.count,
          bytes[i] == ASCII.backslash, bytes[i + 1] == ASCII.lowerU,
          case let trail = readHex4(bytes, at: i + 2), UTF16.isTrailSurrogate(trail)
        {
          scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
          i += 6
        }
        // At most 4 bytes from at least 6 escaped ones: always within the capacity.
        if scalarValue >= 0x80 { wroteNonASCII = true }
        UTF8.encode(Unicode.Scalar(scalarValue) ?? "\u{FFFD}") { unit in
          output[written] = unit
          written += 1
        }
        continue
      default: simple = escape
      }
      output[written] = simple
      written += 1
    }
    return written
  }
}

/// The index of the first backslash at or after `start`, or `bytes.count`; eight bytes at a
/// time. In `(x - 1) & ~x & 0x80` per byte (x: the byte XOR a backslash), a borrow only runs up
/// from a byte that is zero, so the lowest flag is the first backslash.
@inline(__always)
private func nextBackslash(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
  guard let base = bytes.baseAddress else { return bytes.count }
  let ones: UInt64 = 0x0101_0101_0101_0101
  var i = start
  while bytes.count &- i >= 8 {
    let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
    let x = word ^ (ones &* UInt64(ASCII.backslash))
    let found = (x &- ones) & ~x & (ones &* 0x80)
    if found != 0 { return i &+ found.trailingZeroBitCount &>> 3 }
    i &+= 8
  }
  while i < bytes.count, base[i] != ASCII.backslash { i &+= 1 }
  return i
}

private func readHex4(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
  var value: UInt16 = 0
  var i = index
  while i < index + 4 && i < bytes.count {
    value = value << 4 | UInt16(hexValue(bytes[i]) ?? 0)
    i += 1
  }
  return value
}
