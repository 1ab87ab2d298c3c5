// The byte-level reader. It owns all pointer work on the input and produces the tape described
// in JSONToken.swift. It is strict RFC 8259:
// - UTF-8 is validated (overlong forms, encoded surrogates and code points past U+10FFFF are
//   rejected); a leading UTF-8 byte order mark is skipped, as Foundation does.
// - No comments, NaN/Infinity, leading zeros or unescaped control characters; trailing commas
//   only when `allowsTrailingCommas` is set (LenientDecoder sets it: Foundation's JSONDecoder
//   accepts them; `JSON(data:)` does not).
// - `\u` escapes must form valid UTF-16: a lone surrogate is rejected with `loneSurrogate`
//   (Foundation's JSONDecoder rejects it too) rather than replaced, so no text is altered.
// - Nesting is tracked on an explicit stack, never by recursion, and capped at `maxDepth`.

/// Scans JSON bytes into a tape of tokens.
///
/// The main loop (`scanValues`) keeps its position, the tape and the innermost open container
/// in local variables, and its helpers are static functions of the bytes alone, so the compiler
/// can keep that state in registers: a helper that took the scanner was handed a copy of it on
/// every call (canada.json's reader about 1.4x slower in the first version that way). Strings
/// with escapes or non-ASCII text continue out of line in `JSONStringTail`.
struct JSONScanner {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let maxDepth: Int
  private let allowsTrailingCommas: Bool

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsTrailingCommas: Bool = false) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.allowsTrailingCommas = allowsTrailingCommas
  }

  /// Scans the whole input. Throws `JSONReaderError` on the first problem.
  ///
  /// - Returns: the tape and its buffer's capacity; the caller now owns the buffer and gives it
  ///   back with `SpareTape.giveBack`.
  func scan() throws(JSONReaderError) -> (
    tokens: UnsafeMutableBufferPointer<JSONToken>, capacity: Int
  ) {
    try scanValues()
  }

  /// An open container: its token, and the values it holds so far with whether it is an
  /// object in one word (`count << 1 | isObject`): a separate `isObject` was one more value
  /// live across the main loop, and closing a container read it back from the tape.
  private struct OpenContainer {
    var token: Int
    var countAndKind: Int

    var isObject: Bool { countAndKind & 1 != 0 }
    var count: Int { countAndKind &>> 1 }
  }

  /// The main loop. The tape is a local variable that no call takes the address of (helpers
  /// return what they found and this loop appends), so its count can live in a register.
  private func scanValues() throws(JSONReaderError) -> (
    tokens: UnsafeMutableBufferPointer<JSONToken>, capacity: Int
  ) {
    let bytes = bytes
    guard bytes.count < Int(UInt32.max) else { try Self.fail(.tooLarge, at: 0, bytes) }
    guard let base = bytes.baseAddress else { try Self.fail(.unexpectedEnd, at: 0, bytes) }
    var tape = PlainBuffer<JSONToken>.tape(capacity: max(16, bytes.count / 6))
    var scanned = false
    defer { if !scanned { tape.giveBack() } }
    let count = bytes.count
    let maxDepth = maxDepth
    let allowsTrailingCommas = allowsTrailingCommas
    var i = 0
    if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
      i = 3
    }
    // The open containers around the innermost one (`top`), outermost first.
    var stack = PlainBuffer<OpenContainer>(capacity: 64)
    defer { stack.base.deallocate() }
    var top = OpenContainer(token: -1, countAndKind: 0)
    // The spaces a pretty printer indents each level by, as the last line that `skipLine` did
    // not predict had them.
    var indentUnit = 0
    i = Self.skipWhitespace(bytes, i)
    valueLoop: while true {
      // A value is expected at `i`.
      guard i < count else { try Self.fail(.unexpectedEnd, at: i, bytes) }
      let byte = base[i]
      switch byte {
      case ASCII.quote:
        let string = try Self.scanString(bytes, at: i)
        tape.append(
          JSONToken(
            kind: .string, flags: string.flags, start: i &+ 1, end: string.end,
            next: tape.count &+ 1))
        i = string.end &+ 1
      case ASCII.openBrace, ASCII.openBracket:
        // The open containers (the depth) are `top` and those around it: no counter of its own,
        // one register fewer in this loop.
        guard (top.token >= 0 ? stack.count &+ 1 : 0) < maxDepth else {
          try Self.fail(.tooDeep(limit: maxDepth), at: i, bytes)
        }
        if top.token >= 0 { stack.append(top) }
        let isObject = byte == ASCII.openBrace
        top = OpenContainer(token: tape.count, countAndKind: isObject ? 1 : 0)
        tape.append(JSONToken(kind: isObject ? .object : .array, start: i, end: i, next: 0))
        i &+= 1
        i = Self.skipLine(bytes, i, depth: stack.count &+ 1, unit: &indentUnit)
        guard i < count else { try Self.fail(.unexpectedEnd, at: i, bytes) }
        guard base[i] == (isObject ? ASCII.closeBrace : ASCII.closeBracket) else {
          if isObject {
            let key = try Self.scanKey(bytes, at: i)
            tape.append(
              JSONToken(
                kind: .string, flags: key.flags, start: i &+ 1, end: key.end,
                next: tape.count &+ 1))
            if !key.flags.isEmpty { tape[top.token].flags.insert(.hasNonASCIIKeys) }
            i = key.value
          }
          continue valueLoop
        }
        i &+= 1
        Self.close(&top, stack: &stack, tape: &tape, at: i)
      case ASCII.lowerT:
        let end = try Self.scanLiteral(bytes, "true", at: i)
        tape.append(JSONToken(kind: .true, start: i, end: end, next: tape.count &+ 1))
        i = end
      case ASCII.lowerF:
        let end = try Self.scanLiteral(bytes, "false", at: i)
        tape.append(JSONToken(kind: .false, start: i, end: end, next: tape.count &+ 1))
        i = end
      case ASCII.lowerN:
        let end = try Self.scanLiteral(bytes, "null", at: i)
        tape.append(JSONToken(kind: .null, start: i, end: end, next: tape.count &+ 1))
        i = end
      case ASCII.minus, ASCII.zero...ASCII.nine:
        let number = try Self.scanNumber(bytes, at: i)
        tape.append(
          JSONToken(
            kind: .number, flags: number.isInteger ? .isInteger : [], start: i, end: number.end,
            next: tape.count &+ 1))
        i = number.end
      default:
        try Self.fail(.unexpectedCharacter(byte, expected: "a value"), at: i, bytes)
      }

      // A value just ended: continue its container, close it, or finish.
      while top.token >= 0 {
        top.countAndKind &+= 2
        let isObject = top.isObject
        // Before a closing bracket, pretty printers start a line one level out.
        i = Self.skipLine(bytes, i, depth: stack.count, unit: &indentUnit)
        guard i < count else { try Self.fail(.unexpectedEnd, at: i, bytes) }
        let next = base[i]
        let closer = isObject ? ASCII.closeBrace : ASCII.closeBracket
        if next == ASCII.comma {
          i &+= 1
          i = Self.skipLine(bytes, i, depth: stack.count &+ 1, unit: &indentUnit)
          if allowsTrailingCommas, i < count, base[i] == closer {
            i &+= 1
            Self.close(
              &top, stack: &stack, tape: &tape, at: i)
            continue
          }
          if isObject {
            let key = try Self.scanPlainKey(bytes, at: i)
            tape.append(
              JSONToken(
                kind: .string, flags: key.flags, start: i &+ 1, end: key.end,
                next: tape.count &+ 1))
            if !key.flags.isEmpty { tape[top.token].flags.insert(.hasNonASCIIKeys) }
            i = key.value
          }
          continue valueLoop
        }
        guard next == closer else {
          try Self.fail(
            .unexpectedCharacter(next, expected: isObject ? "',' or '}'" : "',' or ']'"), at: i,
            bytes)
        }
        i &+= 1
        Self.close(&top, stack: &stack, tape: &tape, at: i)
      }
      break valueLoop
    }
    i = Self.skipWhitespace(bytes, i)
    guard i == count else { try Self.fail(.trailingContent, at: i, bytes) }
    scanned = true
    return tape.handOver()
  }

  // MARK: - Containers

  /// Closes the innermost container (its closing bracket ends before `end`): writes its end,
  /// its next token and its count, and makes the container around it the innermost.
  @inline(__always)
  private static func close(
    _ top: inout OpenContainer,
    stack: inout PlainBuffer<OpenContainer>, tape: inout PlainBuffer<JSONToken>, at end: Int
  ) {
    let closed = tape.base + top.token
    closed.pointee.end = UInt32(truncatingIfNeeded: end)
    closed.pointee.next = UInt32(truncatingIfNeeded: tape.count)
    closed.pointee.shortCount = UInt16(truncatingIfNeeded: min(top.count, Int(UInt16.max)))
    if stack.count > 0 {
      top = stack.removeLast()
    } else {
      top = OpenContainer(token: -1, countAndKind: 0)
    }
  }

  /// `scanKey` inlined for the common key after a comma: plain ASCII, `"`, `:`, then the value
  /// right away (compact JSON) or after one space (as pretty printers write it), scanned a word
  /// at a time while a word and three bytes are left in the input. Anything else goes to
  /// `scanKey`, which scans from `start` again.
  ///
  /// The profile of twitter.json's reader put 30% of it in `scanKey`, a call with a large frame
  /// per key. Inlined at the comma only (the key after `{` still calls `scanKey`): twitter
  /// reader +7-11%, citm +4%, canada unchanged; inlined at both places, canada lost 2-3%, as it
  /// lost 7% with all of `scanKey` inlined.
  @_transparent
  private static func scanPlainKey(
    _ bytes: UnsafeBufferPointer<UInt8>, at start: Int
  ) throws(JSONReaderError) -> (end: Int, flags: JSONToken.Flags, value: Int) {
    if let base = bytes.baseAddress, start < bytes.count, base[start] == ASCII.quote {
      var cursor = start &+ 1
      // A word and the three bytes after it: the closing quote's colon, space and value.
      while bytes.count &- cursor >= 11 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
        let flagged = stringMarks(word)
        if flagged == 0 {
          cursor &+= 8
          continue
        }
        let bits = flagged.trailingZeroBitCount & ~7
        let end = cursor &+ bits &>> 3
        guard UInt8(truncatingIfNeeded: word &>> UInt64(bits)) == ASCII.quote,
          base[end &+ 1] == ASCII.colon
        else { break }
        // The value right after the colon (compact JSON) or after one space (pretty printed).
        if base[end &+ 2] > ASCII.space { return (end, [], end &+ 2) }
        if base[end &+ 2] == ASCII.space, base[end &+ 3] > ASCII.space {
          return (end, [], end &+ 3)
        }
        break
      }
    }
    return try scanKey(bytes, at: start)
  }

  /// Scans `"key" :` at `start` and returns the key's closing quote and flags, and the
  /// position of the value. The colon and the single space after it that pretty printers
  /// write are taken without a call.
  @inline(__always)
  private static func scanKey(
    _ bytes: UnsafeBufferPointer<UInt8>, at start: Int
  ) throws(JSONReaderError) -> (end: Int, flags: JSONToken.Flags, value: Int) {
    guard let base = bytes.baseAddress, start < bytes.count else {
      try fail(.unexpectedEnd, at: start, bytes)
    }
    guard base[start] == ASCII.quote else {
      try fail(.unexpectedCharacter(base[start], expected: "a string key"), at: start, bytes)
    }
    let key = try scanString(bytes, at: start)
    var i = key.end &+ 1
    guard i < bytes.count else { try fail(.unexpectedEnd, at: i, bytes) }
    var byte = base[i]
    if byte <= ASCII.space {
      i = skipWhitespaceRun(bytes, i)
      guard i < bytes.count else { try fail(.unexpectedEnd, at: i, bytes) }
      byte = base[i]
    }
    guard byte == ASCII.colon else {
      try fail(.unexpectedCharacter(byte, expected: "':'"), at: i, bytes)
    }
    i &+= 1
    if bytes.count &- i >= 2, base[i] == ASCII.space, base[i &+ 1] > ASCII.space {
      return (key.end, key.flags, i &+ 1)
    }
    return (key.end, key.flags, skipWhitespace(bytes, i))
  }

  // MARK: - Scalars

  /// Checks the literal `text` at `start` and returns the position after it.
  @inline(__always)
  private static func scanLiteral(
    _ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString, at start: Int
  ) throws(JSONReaderError) -> Int {
    let count = text.utf8CodeUnitCount
    guard let base = bytes.baseAddress, bytes.count &- start >= count else {
      try fail(.unexpectedEnd, at: bytes.count, bytes)
    }
    let literal = text.utf8Start
    // The first four bytes in one compare (every literal has four or five); the byte loop
    // finds the mismatch. Twitter and citm reader loops -4%.
    let head = UnsafeRawPointer(literal).loadUnaligned(as: UInt32.self)
    let matches = UnsafeRawPointer(base + start).loadUnaligned(as: UInt32.self) == head
    if !matches || (count > 4 && base[start &+ 4] != literal[4]) {
      for offset in 0..<count where base[start + offset] != literal[offset] {
        try fail(.invalidLiteral, at: start, bytes)
      }
    }
    return start &+ count
  }

  /// Checks the number at `start` and returns where it ends and whether it is an integer (no
  /// fraction, no exponent).
  ///
  /// `@_transparent`, not `@inline(__always)`: the main loop is past the size up to which the
  /// optimizer honours the latter, and the call per number cost canada.json's reader loop 5-10%.
  @_transparent
  private static func scanNumber(
    _ bytes: UnsafeBufferPointer<UInt8>, at start: Int
  ) throws(JSONReaderError) -> (end: Int, isInteger: Bool) {
    let count = bytes.count
    var i = start
    var isInteger = true
    if bytes[i] == ASCII.minus { i &+= 1 }
    guard i < count else { try fail(.unexpectedEnd, at: i, bytes) }
    // The byte after the digits so far (0 at the end of the input).
    var after: UInt8
    if bytes[i] == ASCII.zero {
      i &+= 1
      after = i < count ? bytes[i] : 0
      if isDigit(after) { try fail(.invalidNumber, at: start, bytes) }
    } else if isDigit(bytes[i]) {
      (i, after) = skipDigits(bytes, i)
    } else {
      try fail(.invalidNumber, at: start, bytes)
    }
    if after == ASCII.period {
      isInteger = false
      i &+= 1
      guard i < count, isDigit(bytes[i]) else { try fail(.invalidNumber, at: start, bytes) }
      (i, after) = skipDigits(bytes, i)
    }
    if after == ASCII.lowerE || after == ASCII.upperE {
      isInteger = false
      i &+= 1
      if i < count, bytes[i] == ASCII.plus || bytes[i] == ASCII.minus { i &+= 1 }
      guard i < count, isDigit(bytes[i]) else { try fail(.invalidNumber, at: start, bytes) }
      i = skipDigits(bytes, i).end
    }
    return (i, isInteger)
  }

  @inline(__always)
  private static func isDigit(_ byte: UInt8) -> Bool { byte &- ASCII.zero < 10 }

  /// Skips the digits at `start`, eight at a time (canada.json's coordinates have 15 to 17),
  /// and returns where they end and the byte there (0 at the end of the input). The byte comes
  /// from the word already loaded: loading it again cost a dependent load per number (canada
  /// reader loop -4%).
  @inline(__always)
  private static func skipDigits(
    _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int
  ) -> (end: Int, after: UInt8) {
    let count = bytes.count
    var i = start
    if let base = bytes.baseAddress {
      while count &- i >= 8 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        // A byte stays unflagged only if it is 0x30...0x39.
        let flagged =
          ((word &+ 0x4646_4646_4646_4646) | (word &- 0x3030_3030_3030_3030))
          & 0x8080_8080_8080_8080
        if flagged != 0 {
          let bits = flagged.trailingZeroBitCount & ~7
          return (i &+ bits &>> 3, UInt8(truncatingIfNeeded: word &>> UInt64(bits)))
        }
        i &+= 8
      }
    }
    while i < count {
      let byte = bytes[i]
      if !isDigit(byte) { return (i, byte) }
      i &+= 1
    }
    return (i, 0)
  }

  /// Scans the string whose opening quote is at `quote` and returns the position of its
  /// closing quote and its flags. Validates escapes and UTF-8.
  ///
  /// The common case, a short string of plain ASCII (twitter.json's keys and most of its
  /// values), stays in this inlined loop: one word load, the flag test, and the closing quote
  /// taken from the word in hand. Anything else (an escape, a non-ASCII byte, a control
  /// character, the last seven bytes of the input) continues in `JSONStringTail`.
  @inline(__always)
  private static func scanString(
    _ bytes: UnsafeBufferPointer<UInt8>, at quote: Int
  ) throws(JSONReaderError) -> (end: Int, flags: JSONToken.Flags) {
    let start = quote &+ 1
    var cursor = start
    let count = bytes.count
    if let base = bytes.baseAddress {
      while count &- cursor >= 8 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
        let flagged = stringMarks(word)
        if flagged != 0 {
          let bits = flagged.trailingZeroBitCount & ~7
          cursor &+= bits &>> 3
          if UInt8(truncatingIfNeeded: word &>> UInt64(bits)) == ASCII.quote {
            return (cursor, [])
          }
          break
        }
        cursor &+= 8
      }
    }
    var tail = JSONStringTail(bytes: bytes, index: cursor)
    let flags = try tail.scan()
    return (tail.index, flags)
  }

  /// Flags (sets the high bit of) quotes, backslashes, bytes below 0x20 and non-ASCII bytes.
  /// Borrows run upwards only from a flagged byte, so the lowest flag is exact. (The usual
  /// `& ~x` of each zero-byte test is left out: it only clears flags of bytes at 0x80 or above,
  /// which the final `| word` flags anyway.)
  @inline(__always)
  static func stringMarks(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quotes = word ^ (ones &* UInt64(ASCII.quote))
    let backslashes = word ^ (ones &* UInt64(ASCII.backslash))
    return ((quotes &- ones) | (backslashes &- ones) | (word &- ones &* 0x20) | word)
      & 0x8080_8080_8080_8080
  }

  /// Throws `reason` at `offset`. Out of line, so that each failure in the main loop is one
  /// call: built in place, the errors made the loop too large for the optimizer to inline its
  /// helpers into (number and key scanning stayed calls).
  @inline(never)
  private static func fail(
    _ reason: JSONReaderError.Reason, at offset: Int, _ bytes: UnsafeBufferPointer<UInt8>
  ) throws(JSONReaderError) -> Never {
    throw JSONReaderError(reason, offset: offset, in: bytes)
  }
}

/// A growing buffer of plain values, for the tape and the stack of open containers: appending
/// is a capacity check and a store, removing the last a count. An `Array` also checked its
/// uniqueness on each (as the container stack: canada reader loop +12%, citm +14%).
///
/// Its owner frees it (`handOver`/`giveBack` for the tape,
/// a `defer` for the nesting stack). A `~Copyable` version with a `deinit` was measured: +1.0%
/// instructions on twitter.json's reader loop (cachegrind, scanKey and scanString), so it stays
/// copyable.
private struct PlainBuffer<Element: BitwiseCopyable> {
  private(set) var base: UnsafeMutablePointer<Element>
  private(set) var capacity: Int
  private(set) var count = 0

  init(base: UnsafeMutablePointer<Element>, capacity: Int) {
    self.base = base
    self.capacity = capacity
  }

  init(capacity: Int) { self.init(base: .allocate(capacity: capacity), capacity: capacity) }

  @inline(__always)
  mutating func append(_ element: Element) {
    if count == capacity { self = grown() }
    (base + count).initialize(to: element)
    count += 1
  }

  @inline(__always)
  subscript(index: Int) -> Element {
    get { base[index] }
    set { base[index] = newValue }
  }

  /// The last element, if any.
  var last: Element? { count > 0 ? base[count - 1] : nil }

  @inline(__always)
  mutating func removeLast() -> Element {
    count -= 1
    return base[count]
  }

  /// The buffer moved to twice the capacity. It returns the new buffer rather than mutating,
  /// so that a buffer held in a local variable stays in registers (a mutating call takes its
  /// address).
  @inline(never)
  private func grown() -> Self {
    let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
    larger.moveInitialize(from: base, count: count)
    base.deallocate()
    var result = Self(base: larger, capacity: capacity * 2)
    result.count = count
    return result
  }
}

/// The tape while it grows, handed to `JSONDocument` without a copy.
extension PlainBuffer<JSONToken> {
  /// Starts from the thread's spare tape when it holds `capacity` tokens (see `SpareTape`).
  static func tape(capacity: Int) -> Self {
    let (base, capacity) = SpareTape.take(minimumCapacity: capacity)
    return Self(base: base, capacity: capacity)
  }

  /// The tokens so far and the buffer's capacity; the caller owns the buffer from here on and
  /// gives it back with `SpareTape.giveBack`.
  func handOver() -> (tokens: UnsafeMutableBufferPointer<JSONToken>, capacity: Int) {
    (UnsafeMutableBufferPointer(start: base, count: count), capacity)
  }

  /// Gives the buffer back unused (the scan failed).
  func giveBack() { SpareTape.giveBack(base, capacity: capacity) }
}

/// The value of an ASCII hex digit, or nil.
@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case 0x30...0x39: return byte - 0x30
  case 0x41...0x46: return byte - 0x41 + 10
  case 0x61...0x66: return byte - 0x61 + 10
  default: return nil
  }
}
