// Reading runs of ASCII digits eight at a time (SWAR: one 64-bit word holds eight bytes), for
// the number conversions in NumberParsing.swift. A canada.json coordinate such as
// `-65.613616999999977` is three words (`65`, `61361699`, `9999977`) instead of seventeen
// multiply-adds, each behind a branch on the byte.

enum DecimalDigits {
  /// 10^k for k in 0...8: the factor that makes room for a run of k digits.
  private static let scales: [UInt64] = [
    1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
  ]

  /// The digits from `i` up to the first non-digit, `end` or eight of them, whichever is first:
  /// their value and how many they are. Never reads outside `start..<end`.
  ///
  /// - Parameters:
  ///   - base: the lexeme's first byte (`start` is 0: a lexeme of eight bytes or more is read
  ///     by whole words within it).
  ///   - i: where the run starts, `0...end`.
  ///   - end: the lexeme's length.
  @inline(__always)
  static func run(_ base: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> (value: UInt64, count: Int)
  {
    let available = end &- i
    var word: UInt64
    if available >= 8 {
      word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
    } else if end >= 8 {
      // The word that ends the lexeme, moved down so `i` is its first byte; the bytes past
      // `end` become zeros (not digits).
      let last = UInt64(
        littleEndian: UnsafeRawPointer(base + (end &- 8)).loadUnaligned(as: UInt64.self))
      word = last >> UInt64(8 &* (8 &- available))
    } else {
      word = 0
      var k = 0
      while k < available {
        word |= UInt64(base[i &+ k]) << UInt64(8 &* k)
        k &+= 1
      }
    }
    // Digits become 0...9 in their byte; a byte is not a digit when its high nibble is not 0
    // or its low nibble is 10 or more (+6 carries into the high nibble). No carry crosses a
    // byte, so this holds for any byte values.
    let values = word ^ 0x3030_3030_3030_3030
    let low = values & 0x0F0F_0F0F_0F0F_0F0F
    let notDigit = (values | (low &+ 0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0
    let count = notDigit.trailingZeroBitCount &>> 3
    // The run's digits to the top of the word (the bytes after it fall off); the zero bytes
    // below it are leading zeros.
    let digits = values << UInt64(64 &- 8 &* count)
    return (eightDigitsValue(digits), count)
  }

  /// The value of eight digits, 0...9 in each byte, the first (most significant) in the lowest
  /// byte: pairs, then fours, then the eight, each step one multiply.
  @inline(__always)
  static func eightDigitsValue(_ digits: UInt64) -> UInt64 {
    var value = (digits &* (10 << 8 + 1)) &>> 8
    value = ((value & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) &>> 16
    return ((value & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) &>> 32
  }

  /// Appends the run's digits to `accumulator` (`accumulator * 10^count + value`, wrapping: a
  /// caller that can get past 19 digits checks the count itself).
  @inline(__always)
  static func append(_ run: (value: UInt64, count: Int), to accumulator: UInt64) -> UInt64 {
    accumulator &* scales[run.count] &+ run.value
  }

  /// Reads every digit from `i` (advancing it past them) into `accumulator`; the number read.
  @inline(__always)
  static func read(
    _ base: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int, into accumulator: inout UInt64
  ) -> Int {
    let start = i
    // A lexeme shorter than a word has too few digits for words to pay.
    if end < 8 {
      while i < end, base[i] &- ASCII.zero < 10 {
        accumulator = accumulator &* 10 &+ UInt64(base[i] &- ASCII.zero)
        i &+= 1
      }
      return i &- start
    }
    while true {
      let next = run(base, i, end)
      accumulator = append(next, to: accumulator)
      i &+= next.count
      if next.count < 8 { return i &- start }
    }
  }
}
