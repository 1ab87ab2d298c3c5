/// Decodes the contents of a string whose escapes the scanner already validated.
///
/// Written straight into the new string's storage (never longer than the escaped text), with
/// no intermediate array: pays on twitter.json, whose texts and URLs are escaped.
func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
  String(unsafeUninitializedCapacity: bytes.count) { output in
    var written = 0
    var i = 0
    while i < bytes.count {
      let byte = bytes[i]
      guard byte == ASCII.backslash, i + 1 < bytes.count else {
        output[written] = byte
        written += 1
        i += 1
        continue
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
        if UTF16.isLeadSurrogate(UInt16(truncatingIfNeeded: scalarValue)), i + 6 <= bytes.count {
          let trail = UInt32(readHex4(bytes, at: i + 2))
          scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (trail - 0xDC00)
          i += 6
        }
        // At most 4 bytes from at least 6 escaped ones: always within the capacity.
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

private func readHex4(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
  var value: UInt16 = 0
  var i = index
  while i < index + 4 && i < bytes.count {
    value = value << 4 | UInt16(hexValue(bytes[i]) ?? 0)
    i += 1
  }
  return value
}
