#if !FUZZING
  @testable import EnvelopeKit
#endif

// The reader as it was before the scanner kept its state in local variables (EnvelopeKit's
// JSONScanner.swift at d8fbeb3), with arrays for its buffers: the oracle of
// `ScannerDifferentialTests`, which holds the current scanner to accept and reject exactly
// what this one did, with the same errors and the same tape.

struct ReferenceScanner {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let maxDepth: Int
  private let allowsTrailingCommas: Bool
  private var index = 0
  private(set) var tokens: [JSONToken] = []

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsTrailingCommas: Bool = false) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.allowsTrailingCommas = allowsTrailingCommas
  }

  /// Scans the whole input and returns the tape. Throws `JSONReaderError` on the first problem.
  mutating func scan() throws(JSONReaderError) -> [JSONToken] {
    try scanValues()
    return tokens
  }

  private mutating func scanValues() throws(JSONReaderError) {
    guard bytes.count < Int(UInt32.max) else { throw error(.tooLarge, at: 0) }
    if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
      index = 3
    }
    // Token indexes of the open containers, innermost last.
    var stack: [Int] = []
    skipWhitespace()
    valueLoop: while true {
      // A value is expected at `index`.
      guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
      let byte = bytes[index]
      switch byte {
      case ASCII.openBrace, ASCII.openBracket:
        let isObject = byte == ASCII.openBrace
        guard stack.count < maxDepth else { throw error(.tooDeep(limit: maxDepth), at: index) }
        stack.append(tokens.count)
        tokens.append(
          JSONToken(kind: isObject ? .object : .array, start: index, end: index, next: 0))
        index += 1
        skipWhitespace()
        guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
        let closer = isObject ? ASCII.closeBrace : ASCII.closeBracket
        if bytes[index] == closer {
          index += 1
          closeContainer(stack.removeLast())
        } else {
          if isObject { try scanKey(object: tokens.count - 1) }
          continue valueLoop
        }
      case ASCII.quote:
        try scanString()
      case ASCII.lowerT:
        try scanLiteral("true", kind: .true)
      case ASCII.lowerF:
        try scanLiteral("false", kind: .false)
      case ASCII.lowerN:
        try scanLiteral("null", kind: .null)
      case ASCII.minus, ASCII.zero...ASCII.nine:
        try scanNumber()
      default:
        throw error(.unexpectedCharacter(byte, expected: "a value"), at: index)
      }

      // A value just ended: continue its container, close it, or finish.
      while let top = stack.last {
        if tokens[top].shortCount < .max { tokens[top].shortCount += 1 }
        skipWhitespace()
        guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
        let isObject = tokens[top].kind == .object
        let next = bytes[index]
        if next == ASCII.comma {
          index += 1
          skipWhitespace()
          if allowsTrailingCommas, index < bytes.count,
            bytes[index] == (isObject ? ASCII.closeBrace : ASCII.closeBracket)
          {
            index += 1
            closeContainer(stack.removeLast())
            continue
          }
          if isObject { try scanKey(object: top) }
          continue valueLoop
        }
        guard next == (isObject ? ASCII.closeBrace : ASCII.closeBracket) else {
          throw error(
            .unexpectedCharacter(next, expected: isObject ? "',' or '}'" : "',' or ']'"),
            at: index)
        }
        index += 1
        closeContainer(stack.removeLast())
      }
      break valueLoop
    }
    skipWhitespace()
    guard index == bytes.count else { throw error(.trailingContent, at: index) }
  }

  // MARK: - Containers

  private mutating func closeContainer(_ tokenIndex: Int) {
    tokens[tokenIndex].end = UInt32(truncatingIfNeeded: index)
    tokens[tokenIndex].next = UInt32(truncatingIfNeeded: tokens.count)
  }

  /// Scans `"key" :` of the object at token `object` and leaves `index` at the value.
  private mutating func scanKey(object: Int) throws(JSONReaderError) {
    guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
    guard bytes[index] == ASCII.quote else {
      throw error(.unexpectedCharacter(bytes[index], expected: "a string key"), at: index)
    }
    try scanString()
    if !tokens[tokens.count - 1].flags.isDisjoint(with: [.hasEscapes, .isNonASCII]) {
      tokens[object].flags.insert(.hasNonASCIIKeys)
    }
    skipWhitespace()
    guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
    guard bytes[index] == ASCII.colon else {
      throw error(.unexpectedCharacter(bytes[index], expected: "':'"), at: index)
    }
    index += 1
    skipWhitespace()
  }

  // MARK: - Scalars

  /// Inlined test for the common case (no whitespace: every JSON whitespace byte is at most
  /// 0x20); runs go to `skipWhitespaceRun`.
  @inline(__always)
  private mutating func skipWhitespace() {
    guard index < bytes.count, bytes[index] <= ASCII.space else { return }
    skipWhitespaceRun()
  }

  /// Skips whitespace. After each whitespace byte, the spaces that follow are skipped a word
  /// at a time, the last partial word by counting its leading spaces: pretty-printed payloads
  /// such as twitter.json put a newline and a run of indentation before every line.
  private mutating func skipWhitespaceRun() {
    guard let base = bytes.baseAddress else { return }
    let count = bytes.count
    var cursor = index
    while cursor < count {
      switch base[cursor] {
      case ASCII.space, ASCII.newline, ASCII.carriageReturn, ASCII.tab:
        cursor &+= 1
        while count &- cursor >= 8 {
          let others =
            UInt64(littleEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
            ^ 0x2020_2020_2020_2020
          if others != 0 {
            cursor &+= others.trailingZeroBitCount &>> 3
            break
          }
          cursor &+= 8
        }
      default:
        index = cursor
        return
      }
    }
    index = cursor
  }

  /// Advances `index` eight bytes at a time until `marks` flags a byte of the word (sets its
  /// high bit), then to the first flagged byte, and returns that byte (from the word in hand,
  /// not loaded again); within the last seven bytes of the input it stops, returns nil and
  /// leaves them to the caller's byte loop. `marks` may flag bytes above a flagged one (borrows
  /// and carries run upwards), never below, so the lowest flag is exact.
  @inline(__always)
  @discardableResult
  private mutating func skipEightAtATime(until marks: (UInt64) -> UInt64) -> UInt8? {
    guard let base = bytes.baseAddress else { return nil }
    while bytes.count - index >= 8 {
      let word = UInt64(
        littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let flagged = marks(word) & 0x8080_8080_8080_8080
      if flagged != 0 {
        let bits = flagged.trailingZeroBitCount & ~7
        index += bits >> 3
        return UInt8(truncatingIfNeeded: word >> UInt64(bits))
      }
      index += 8
    }
    return nil
  }

  private mutating func scanLiteral(_ text: StaticString, kind: JSONToken.Kind)
    throws(JSONReaderError)
  {
    let start = index
    let count = text.utf8CodeUnitCount
    guard bytes.count - index >= count else {
      throw error(.unexpectedEnd, at: bytes.count)
    }
    let literal = text.utf8Start
    // The first four bytes in one compare (every literal has four or five); the byte loop
    // finds the mismatch. Twitter and citm reader loops -4%.
    let head = UnsafeRawPointer(literal).loadUnaligned(as: UInt32.self)
    let matches =
      bytes.baseAddress.map { UnsafeRawPointer($0 + index).loadUnaligned(as: UInt32.self) == head }
      ?? false
    if !matches || (count > 4 && bytes[index + 4] != literal[4]) {
      for offset in 0..<count where bytes[index + offset] != literal[offset] {
        throw error(.invalidLiteral, at: start)
      }
    }
    index += count
    tokens.append(JSONToken(kind: kind, start: start, end: index, next: tokens.count + 1))
  }

  private mutating func scanNumber() throws(JSONReaderError) {
    let start = index
    var isInteger = true
    if bytes[index] == ASCII.minus { index += 1 }
    guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
    // The byte after the digits so far (0 at the end of the input).
    var after: UInt8
    if bytes[index] == ASCII.zero {
      index += 1
      after = index < bytes.count ? bytes[index] : 0
      if isDigit(after) { throw error(.invalidNumber, at: start) }
    } else if isDigit(bytes[index]) {
      after = skipDigits()
    } else {
      throw error(.invalidNumber, at: start)
    }
    if after == ASCII.period {
      isInteger = false
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw error(.invalidNumber, at: start)
      }
      after = skipDigits()
    }
    if after == ASCII.lowerE || after == ASCII.upperE {
      isInteger = false
      index += 1
      if index < bytes.count, bytes[index] == ASCII.plus || bytes[index] == ASCII.minus {
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else {
        throw error(.invalidNumber, at: start)
      }
      skipDigits()
    }
    tokens.append(
      JSONToken(
        kind: .number, flags: isInteger ? .isInteger : [], start: start, end: index,
        next: tokens.count + 1))
  }

  @inline(__always)
  private func isDigit(_ byte: UInt8) -> Bool { byte &- ASCII.zero < 10 }

  /// Skips the digits at `index`, eight at a time (canada.json's coordinates have 15 to 17),
  /// and returns the byte after them (0 at the end of the input). The byte comes from the word
  /// already loaded: loading it again cost a dependent load per number (canada reader loop -4%).
  @inline(__always)
  @discardableResult
  private mutating func skipDigits() -> UInt8 {
    // A byte stays unflagged only if it is 0x30...0x39.
    if let after = skipEightAtATime(until: {
      ($0 &+ 0x4646_4646_4646_4646) | ($0 &- 0x3030_3030_3030_3030)
    }) {
      return after
    }
    while index < bytes.count {
      let byte = bytes[index]
      if !isDigit(byte) { return byte }
      index += 1
    }
    return 0
  }

  /// Scans a string starting at its opening quote. Validates escapes and UTF-8.
  ///
  /// The common case, a short string of plain ASCII (twitter.json's keys and most of its
  /// values), stays in this inlined loop on local copies of the position: one word load, the
  /// flag test, and the closing quote taken from the word in hand. Anything else (an escape, a
  /// non-ASCII byte, a control character, the last seven bytes of the input) continues in
  /// `scanStringRest`.
  @inline(__always)
  private mutating func scanString() throws(JSONReaderError) {
    let start = index &+ 1
    var cursor = start
    let count = bytes.count
    if let base = bytes.baseAddress {
      while count &- cursor >= 8 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
        let flagged = Self.stringMarks(word)
        if flagged != 0 {
          let bits = flagged.trailingZeroBitCount & ~7
          cursor &+= bits &>> 3
          if UInt8(truncatingIfNeeded: word &>> UInt64(bits)) == ASCII.quote {
            tokens.append(
              JSONToken(kind: .string, start: start, end: cursor, next: tokens.count &+ 1))
            index = cursor &+ 1
            return
          }
          break
        }
        cursor &+= 8
      }
    }
    index = cursor
    try scanStringRest(start: start)
  }

  /// Flags (sets the high bit of) quotes, backslashes, bytes below 0x20 and non-ASCII bytes.
  /// Borrows run upwards only from a flagged byte, so the lowest flag is exact. (The usual
  /// `& ~x` of each zero-byte test is left out: it only clears flags of bytes at 0x80 or above,
  /// which the final `| word` flags anyway.)
  @inline(__always)
  private static func stringMarks(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quotes = word ^ (ones &* UInt64(ASCII.quote))
    let backslashes = word ^ (ones &* UInt64(ASCII.backslash))
    return ((quotes &- ones) | (backslashes &- ones) | (word &- ones &* 0x20) | word)
      & 0x8080_8080_8080_8080
  }

  /// The rest of `scanString` from `index`, a byte inside the string that the fast loop did not
  /// take: escapes, non-ASCII runs, control characters and the end of the input.
  private mutating func scanStringRest(start: Int) throws(JSONReaderError) {
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
    tokens.append(
      JSONToken(kind: .string, flags: flags, start: start, end: index, next: tokens.count + 1))
    index += 1
  }

  /// Skips string bytes that need no attention (ASCII, not a quote, backslash or control
  /// character) eight at a time.
  @inline(__always)
  private mutating func skipPlainASCII() {
    skipEightAtATime { Self.stringMarks($0) }
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

  /// Validates the run of non-ASCII text at `index` and leaves `index` after it. A three-byte
  /// sequence (twitter.json's Japanese) is checked in one word compare unless its lead is E0 or
  /// ED, whose second byte has a narrower range; those and every other sequence go through
  /// `scanUTF8Sequence`. Twitter reader loop -7%.
  private mutating func scanNonASCIIRun() throws(JSONReaderError) {
    guard let base = bytes.baseAddress else { return }
    repeat {
      if bytes.count - index >= 4 {
        let word = UInt32(
          littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt32.self))
        // 1110xxxx 10xxxxxx 10xxxxxx
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
