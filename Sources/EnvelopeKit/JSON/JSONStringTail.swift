/// The rest of a string that `JSONScanner`'s inlined short-string loop did not take, from a
/// byte inside the string: escapes, non-ASCII runs, control characters and the end of the input.
/// Validates escapes (`\u` as valid UTF-16) and UTF-8, out of line from the main loop.
struct JSONStringTail {
  let bytes: UnsafeBufferPointer<UInt8>
  /// The position: a byte inside the string, and after `scan()` its closing quote.
  var index: Int

  /// Scans from `index` to the closing quote, leaves `index` there and returns the string's
  /// flags.
  mutating func scan() throws(JSONReaderError) -> JSONToken.Flags {
    var flags: JSONToken.Flags = []
    while true {
      skipPlainASCII()
      while index < bytes.count {
        let byte = bytes[index]
        if byte == ASCII.quote || byte == ASCII.backslash || byte < 0x20 || byte >= 0x80 { break }
        index += 1
      }
      guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
      let byte = bytes[index]
      if byte == ASCII.quote { break }
      if byte == ASCII.backslash {
        flags.insert(.hasEscapes)
        try scanEscape()
      } else if byte < 0x20 {
        throw error(.controlCharacterInString(byte), at: index)
      } else {
        flags.insert(.isNonASCII)
        try scanNonASCIIRun()
      }
    }
    return flags
  }

  /// Skips string bytes that need no attention (ASCII, not a quote, backslash or control
  /// character) eight at a time.
  @inline(__always)
  private mutating func skipPlainASCII() {
    guard let base = bytes.baseAddress else { return }
    while bytes.count - index >= 8 {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let flagged = JSONScanner.stringMarks(word)
      if flagged != 0 {
        index += flagged.trailingZeroBitCount >> 3
        return
      }
      index += 8
    }
  }

  private mutating func scanEscape() throws(JSONReaderError) {
    let escapeStart = index
    index += 1
    guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
    switch bytes[index] {
    case ASCII.quote, ASCII.backslash, ASCII.slash, ASCII.lowerB, ASCII.lowerF, ASCII.lowerN,
      ASCII.lowerR, ASCII.lowerT:
      index += 1
    case ASCII.lowerU:
      index += 1
      let unit = try scanHex4()
      if UTF16.isTrailSurrogate(unit) { throw error(.loneSurrogate, at: escapeStart) }
      if UTF16.isLeadSurrogate(unit) {
        guard bytes.count - index >= 6, bytes[index] == ASCII.backslash,
          bytes[index + 1] == ASCII.lowerU
        else { throw error(.loneSurrogate, at: escapeStart) }
        index += 2
        let trail = try scanHex4()
        guard UTF16.isTrailSurrogate(trail) else {
          throw error(.loneSurrogate, at: escapeStart)
        }
      }
    default:
      throw error(.invalidEscape, at: escapeStart)
    }
  }

  private mutating func scanHex4() throws(JSONReaderError) -> UInt16 {
    guard bytes.count - index >= 4 else { throw error(.unexpectedEnd, at: bytes.count) }
    var value: UInt16 = 0
    for _ in 0..<4 {
      guard let digit = hexValue(bytes[index]) else {
        throw error(.invalidUnicodeEscape, at: index)
      }
      value = value << 4 | UInt16(digit)
      index += 1
    }
    return value
  }

  /// Validates the run of non-ASCII text at `index` and leaves `index` after it. Three-byte
  /// sequences (twitter.json's Japanese) are checked by word compares, two at a time from an
  /// 8-byte word when both are, unless a lead is E0 or ED, whose second byte has a narrower
  /// range; those and every other sequence go through `scanUTF8Sequence`. One at a time:
  /// twitter reader loop -7%; two at a time: twitter reader alone a further +4-6%; four at a
  /// time while they last: twitter reader alone a further +2.6% (task-clock, medians of 9).
  private mutating func scanNonASCIIRun() throws(JSONReaderError) {
    guard let base = bytes.baseAddress else { return }
    repeat {
      // Four three-byte sequences from two overlapping words (bytes 0-5 and 6-11): the leads'
      // low nibbles, at bytes 0, 3, 4 and 7 of `nibbles`, must be neither 0 (E0) nor D (ED).
      // A nibble plus 0x7F sets its byte's high bit exactly when it is not zero, with no carry
      // out of the byte.
      if bytes.count - index >= 14 {
        let low = UInt64(
          littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
        let high = UInt64(
          littleEndian: UnsafeRawPointer(base + (index + 6)).loadUnaligned(as: UInt64.self))
        if low & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0,
          high & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0
        {
          let nibbles = (low & 0x0F00_000F) | (high & 0x0F00_000F) &<< 32
          let notZero = (nibbles &+ 0x7F00_007F_7F00_007F) & 0x8000_0080_8000_0080
          let notD =
            ((nibbles ^ 0x0D00_000D_0D00_000D) &+ 0x7F00_007F_7F00_007F) & 0x8000_0080_8000_0080
          if notZero & notD == 0x8000_0080_8000_0080 {
            index += 12
            continue
          }
        }
      }
      if bytes.count - index >= 8 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
        // 1110xxxx 10xxxxxx 10xxxxxx, twice
        if word & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0 {
          let first = UInt8(truncatingIfNeeded: word)
          let second = UInt8(truncatingIfNeeded: word &>> 24)
          if first != 0xE0 && first != 0xED && second != 0xE0 && second != 0xED {
            index += 6
            continue
          }
        }
        if word & 0x00C0_C0F0 == 0x0080_80E0 {
          let lead = UInt8(truncatingIfNeeded: word)
          if lead != 0xE0 && lead != 0xED {
            index += 3
            continue
          }
        }
      } else if bytes.count - index >= 4 {
        let word = UInt32(
          littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt32.self))
        if word & 0x00C0_C0F0 == 0x0080_80E0 {
          let lead = UInt8(truncatingIfNeeded: word)
          if lead != 0xE0 && lead != 0xED {
            index += 3
            continue
          }
        }
      }
      try scanUTF8Sequence()
    } while index < bytes.count && bytes[index] >= 0x80
  }

  /// Validates one multi-byte UTF-8 sequence at `index` (RFC 3629 table).
  @inline(__always)
  private mutating func scanUTF8Sequence() throws(JSONReaderError) {
    let lead = bytes[index]
    let length: Int
    var lower: UInt8 = 0x80
    var upper: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0: length = 3; lower = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED: length = 3; upper = 0x9F
    case 0xF0: length = 4; lower = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4: length = 4; upper = 0x8F
    default: throw error(.invalidUTF8, at: index)
    }
    guard bytes.count - index >= length else { throw error(.invalidUTF8, at: index) }
    let second = bytes[index + 1]
    guard second >= lower && second <= upper else { throw error(.invalidUTF8, at: index) }
    var offset = 2
    while offset < length {
      guard bytes[index + offset] & 0xC0 == 0x80 else { throw error(.invalidUTF8, at: index) }
      offset += 1
    }
    index += length
  }

  private func error(_ reason: JSONReaderError.Reason, at offset: Int) -> JSONReaderError {
    JSONReaderError(reason, offset: offset, in: bytes)
  }
}
