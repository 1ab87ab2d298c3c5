// Reading runs of ASCII digits eight at a time (SWAR: one 64-bit word holds eight bytes), for
// the number conversions in NumberParsing.swift. A canada.json coordinate such as
// `-65.613616999999977` is three words (`65`, `61361699`, `9999977`) instead of seventeen
// multiply-adds, each behind a branch on the byte.

enum DecimalDigits {
  /// 10^k for k in 0...8: the factor that makes room for a run of k digits.
  static let scales: [UInt64] = [
    1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
  ]

  /// The digits from `i` up to the first non-digit, `end` or eight of them, whichever is first:
  /// their value and how many they are. Never reads outside `0..<end` from `base`.
  ///
  /// - Parameters:
  ///   - base: the lexeme's first byte (a lexeme of eight bytes or more is read by whole words
  ///     within it).
  ///   - i: where the run starts, `0...end`.
  ///   - end: the lexeme's length.
  /// - Returns: the run's value and its number of digits, 0...8.
  @inline(__always)
  static func run(_ base: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> (value: UInt64, count: Int)
  {
    let available = end &- i
    guard available > 0 else { return (0, 0) }
    var word: UInt64
    if available >= 8 {
      word = load(base + i)
    } else if end >= 8 {
      // The word that ends the lexeme, moved down so `i` is its first byte; the bytes past
      // `end` become zeros (not digits).
      word = load(base + (end &- 8)) &>> UInt64(8 &* (8 &- available))
    } else {
      word = shortWord(base + i, available)
    }
    let values = word ^ 0x3030_3030_3030_3030
    let count = nonDigits(values).trailingZeroBitCount &>> 3
    guard count > 0 else { return (0, 0) }
    // The run's digits to the top of the word (the bytes after it fall off); the zero bytes
    // below it are leading zeros.
    return (eightDigitsValue(values &<< UInt64(64 &- 8 &* count)), count)
  }

  /// The `count` bytes from `pointer`, 1...7 of them, the first in the lowest byte and zeros
  /// above: two loads that overlap in the middle (a byte both hold is the same byte), so that
  /// no branch depends on each byte. Reads only `pointer[0..<count]`.
  @inline(__always)
  static func shortWord(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
    let raw = UnsafeRawPointer(pointer)
    if count >= 4 {
      let low = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
      let high = UInt64(
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)))
      return low | high &<< UInt64(8 &* (count &- 4))
    }
    if count >= 2 {
      let low = UInt64(UInt16(littleEndian: raw.loadUnaligned(as: UInt16.self)))
      let high = UInt64(
        UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self)))
      return low | high &<< UInt64(8 &* (count &- 2))
    }
    return UInt64(pointer[0])
  }

  /// Eight bytes from `pointer`, the first in the lowest byte.
  @inline(__always)
  static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
    UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
  }

  /// For eight bytes less `0x30` each (`word ^ 0x3030_3030_3030_3030`): a nonzero byte where the
  /// byte was not a digit. A byte is not a digit when its high nibble is not 0 or its low
  /// nibble is 10 or more (+6 carries into the high nibble); no carry crosses a byte, so this
  /// holds for any byte values.
  @inline(__always)
  static func nonDigits(_ values: UInt64) -> UInt64 {
    let low = values & 0x0F0F_0F0F_0F0F_0F0F
    return (values | (low &+ 0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0
  }

  /// The value of eight digits, 0...9 in each byte, the first (most significant) in the lowest
  /// byte: pairs, then fours, then the eight, each step one multiply.
  @inline(__always)
  static func eightDigitsValue(_ digits: UInt64) -> UInt64 {
    var value = (digits &* (10 << 8 + 1)) &>> 8
    value = ((value & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) &>> 16
    return ((value & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) &>> 32
  }

  /// Reads every digit from `i` (advancing it past them) into `accumulator`
  /// (`accumulator * 10^count + digits`, wrapping: a caller that can get past 19 digits checks
  /// the count itself); the number of digits read. Whole words of eight digits first, then one
  /// run for the rest: the branch on a whole word is predictable, where the length of a run
  /// is known only once its word is read.
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
    while end &- i >= 8 {
      let values = load(base + i) ^ 0x3030_3030_3030_3030
      guard nonDigits(values) == 0 else { break }
      accumulator = accumulator &* 100_000_000 &+ eightDigitsValue(values)
      i &+= 8
    }
    let available = end &- i
    if available > 0, available < 8 {
      // Most often every byte left is a digit (no exponent): then the count is known before
      // the word is read, and the value is not behind a count of its digits.
      let values = load(base + (end &- 8)) ^ 0x3030_3030_3030_3030
      let below = UInt64(8 &* (8 &- available))
      if nonDigits(values &>> below) == 0 {
        accumulator =
          accumulator &* scales[available] &+ eightDigitsValue((values &>> below) &<< below)
        i = end
        return i &- start
      }
    }
    let rest = run(base, i, end)
    accumulator = accumulator &* scales[rest.count] &+ rest.value
    i &+= rest.count
    return i &- start
  }
}
