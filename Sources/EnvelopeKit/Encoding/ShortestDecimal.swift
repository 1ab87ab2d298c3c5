// The shortest decimal that reads back as the same `Double` or `Float`, and the text
// `JSONEncoder` writes for it, straight into the output bytes.
//
// `JSONEncoder` writes a float as its `description` without a trailing `.0`. `description`
// picks, among the decimals that round to the value (both ends of the rounding interval
// included when the significand is even, excluded when it is odd), one with the fewest
// significant digits, the closest to the value among those, the even last digit on an exact
// tie. Its layout: decimal notation when 10^-4 <= |v| <= 2^53 (2^24 for `Float`): "123.45",
// "0.00012", "9007199254740992"; otherwise exponential with one digit before the point and at
// least two exponent digits: "1e+16", "1.5e-05", "5e-324". Zero is "0" or "-0".
//
// The digits are found as in Giulietti's Schubfach ("The Schubfach way to render doubles",
// 2020), written here from the paper: with k = floor(log10(2^q)) for v = c·2^q, the value and
// both ends of its rounding interval are scaled by 10^-k (a 128-bit power from
// `powersOfTenMantissas`, rounded up, multiplied with rounding to odd so that comparisons with
// integers stay exact). The scaled value has 16 or 17 digits (8 or 9 for `Float`); the
// shortest decimal in the interval is either a multiple of ten among its two neighbours, or
// the value rounded to an integer. No division by anything but constants, no loop over digits
// until the text is written.

/// The shortest round-trip decimal of a binary floating-point number, and its JSON text.
enum ShortestDecimal {
  /// The room `write` needs after its pointer: the text is at most 25 bytes ("-", 17 digits,
  /// ".", "e-308"), but digits are moved in 8-byte words that may reach past it.
  static var room: Int { 48 }

  // MARK: - Text

  /// Writes finite `value` as `JSONEncoder` does at `out`, which has room for `room`
  /// bytes.
  ///
  /// - Returns: the number of bytes written.
  @inline(__always)
  static func write(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
    let bits = value.bitPattern
    // The sign without a branch (it varies from number to number): "-" is always written,
    // and overwritten when the number is positive.
    out.pointee = Text.minus
    let start = Int(truncatingIfNeeded: bits >> 63)
    let magnitude = bits & ~(1 << 63)
    let fraction = magnitude & (1 << 52 &- 1)
    let biased = Int(truncatingIfNeeded: magnitude >> 52)
    guard magnitude != 0 else {
      out[start] = Text.zero
      return start &+ 1
    }
    // An integer below 2^53 is its own shortest decimal.
    if biased >= 1023, biased <= 1075 {
      let shift = UInt64(1075 &- biased)
      let significand = fraction | 1 << 52
      if significand & ((1 &<< shift) &- 1) == 0 {
        return start &+ layOut((significand &>> shift, 0), exponential: false, out + start)
      }
    }
    let decimal = shortest(
      significand: biased != 0 ? fraction | 1 << 52 : fraction, exponent: max(biased, 1) &- 1075,
      lowerGapIsNarrow: fraction == 0 && biased > 1, odd: fraction & 1 != 0)
    // 2^53 as a bit pattern: above it, exponential notation.
    let exponential = magnitude > 0x4340_0000_0000_0000
    return start &+ layOut(decimal, exponential: exponential, out + start)
  }

  /// Writes finite `value` as `JSONEncoder` does at `out`, which has room for `room`
  /// bytes.
  ///
  /// - Returns: the number of bytes written.
  @inline(__always)
  static func write(_ value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
    let bits = value.bitPattern
    // The sign without a branch (it varies from number to number): "-" is always written,
    // and overwritten when the number is positive.
    out.pointee = Text.minus
    let start = Int(truncatingIfNeeded: bits >> 31)
    let magnitude = bits & ~(1 << 31)
    let fraction = UInt64(magnitude & (1 << 23 &- 1))
    let biased = Int(truncatingIfNeeded: magnitude >> 23)
    guard magnitude != 0 else {
      out[start] = Text.zero
      return start &+ 1
    }
    if biased >= 127, biased <= 150 {
      let shift = UInt64(150 &- biased)
      let significand = fraction | 1 << 23
      if significand & ((1 &<< shift) &- 1) == 0 {
        return start &+ layOut((significand &>> shift, 0), exponential: false, out + start)
      }
    }
    let decimal = shortest(
      significand: biased != 0 ? fraction | 1 << 23 : fraction, exponent: max(biased, 1) &- 150,
      lowerGapIsNarrow: fraction == 0 && biased > 1, odd: fraction & 1 != 0)
    // 2^24 as a bit pattern: above it, exponential notation.
    let exponential = magnitude > 0x4B80_0000
    return start &+ layOut(decimal, exponential: exponential, out + start)
  }

  /// `value`'s JSON text as a `String` (tests, and `JSONNumber(encoding:)`).
  static func text(_ value: Double) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
      guard let base = buffer.baseAddress else { return "" }
      let count = write(value, to: base)
      return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
  }

  /// `value`'s JSON text as a `String` (tests).
  static func text(_ value: Float) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
      guard let base = buffer.baseAddress else { return "" }
      let count = write(value, to: base)
      return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
  }

  /// Writes `digits · 10^exponent` in `description`'s layout, without a trailing `.0`.
  @inline(__always)
  private static func layOut(
    _ decimal: (digits: UInt64, exponent: Int), exponential: Bool,
    _ out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    // The digits as 17 characters, zero-padded, in three blocks: 1, 8 and 8 digits.
    let digits = decimal.digits
    let high = digits / 100_000_000
    let top = high / 100_000_000
    let middle = digitBlock(UInt32(truncatingIfNeeded: high &- top &* 100_000_000))
    let low = digitBlock(UInt32(truncatingIfNeeded: digits &- high &* 100_000_000))
    // Where the first digit is, how many zeros end them (the first digit is a block's lowest
    // byte, so leading zeros are its low "0" bytes and trailing zeros its high ones).
    let middleValues = middle ^ Text.zeros
    let lowValues = low ^ Text.zeros
    let first =
      top != 0
      ? 0
      : middleValues != 0
        ? 1 &+ middleValues.trailingZeroBitCount >> 3 : 9 &+ lowValues.trailingZeroBitCount >> 3
    let trailingZeros =
      lowValues != 0
      ? lowValues.leadingZeroBitCount >> 3
      : middleValues != 0 ? 8 &+ middleValues.leadingZeroBitCount >> 3 : 16
    let count = 17 &- first
    let significant = count &- trailingZeros
    // The exponent of the first digit: d.ddd × 10^leading.
    let leading = decimal.exponent &+ count &- 1
    let blocks = DigitBlocks(top: top, middle: middle, low: low)
    let raw = UnsafeMutableRawPointer(out)
    if exponential || leading < -4 {
      // "d.ddde+XX"
      blocks.write(from: first, to: raw)
      var end = 1
      if significant > 1 {
        blocks.write(from: first &+ 1, to: raw + 2)
        out[1] = Text.period
        end = significant &+ 1
      }
      out[end] = Text.lowerE
      out[end &+ 1] = leading < 0 ? Text.minus : Text.plus
      end += 2
      var power = Int(leading.magnitude)
      if power >= 100 {
        let hundreds = power / 100
        out[end] = Text.zero &+ UInt8(truncatingIfNeeded: hundreds)
        power &-= hundreds &* 100
        end += 1
      }
      writePair(power, out + end)
      return end &+ 2
    }
    if leading < 0 {
      // "0.000ddd"
      raw.storeBytes(
        of: (Text.zeros & ~0xFF00 | UInt64(Text.period) << 8).littleEndian, as: UInt64.self)
      blocks.write(from: first, to: raw + (1 &- leading))
      return 1 &- leading &+ significant
    }
    if decimal.exponent &+ trailingZeros >= 0 {
      // An integer: its digits, then zeros if it has more places than digits (only 2^53 and
      // 2^24 come here: smaller integers take the shortcut in `write`).
      blocks.write(from: first, to: raw)
      if leading >= count {
        for word in 0..<3 {
          raw.storeBytes(of: Text.zeros, toByteOffset: count &+ 8 &* word, as: UInt64.self)
        }
      }
      return leading &+ 1
    }
    // "ddd.ddd"
    blocks.write(from: first, to: raw)
    blocks.write(from: first &+ leading &+ 1, to: raw + (leading &+ 2))
    out[leading &+ 1] = Text.period
    return significant &+ 1
  }

  /// 17 digit characters in three blocks: one, eight and eight (the first character of a block
  /// in its lowest byte).
  private struct DigitBlocks {
    let top: UInt64
    let middle: UInt64
    let low: UInt64

    /// Writes the characters from `index` (0...16) on at `out`, in whole words: up to 16 bytes
    /// past the last character may be overwritten.
    @inline(__always)
    func write(from index: Int, to out: UnsafeMutableRawPointer) {
      if index <= 8 {
        // Without a branch on whether there are 17 digits (about every other number).
        let head =
          index == 0 ? middle &<< 8 | (UInt64(Text.zero) &+ top) : middle &>> (8 &* (index &- 1))
        out.storeBytes(of: head.littleEndian, as: UInt64.self)
        out.storeBytes(
          of: UInt8(truncatingIfNeeded: middle &>> 56), toByteOffset: 8 &- index, as: UInt8.self)
        out.storeBytes(of: low.littleEndian, toByteOffset: 9 &- index, as: UInt64.self)
      } else {
        out.storeBytes(of: (low &>> (8 &* (index &- 9))).littleEndian, as: UInt64.self)
      }
    }
  }

  /// The eight decimal digits of `value` (< 10^8) as the characters of a word, the first in
  /// the lowest byte: `value / 10^6` in fixed point with 57 fraction bits, then two digits at a
  /// time by multiplying the fraction by 100 (exact for every value below 10^8: checked
  /// exhaustively), each pair looked up in `digitPairs`.
  @inline(__always)
  static func digitBlock(_ value: UInt32) -> UInt64 {
    let fraction: UInt64 = 1 &<< 57 &- 1
    var scaled = UInt64(value) &* 144_115_188_076  // ceil(2^57 / 10^6)
    let first = scaled &>> 57
    scaled = (scaled & fraction) &* 100
    let second = scaled &>> 57
    scaled = (scaled & fraction) &* 100
    let third = scaled &>> 57
    scaled = (scaled & fraction) &* 100
    let fourth = scaled &>> 57
    return digitPair(first) | digitPair(second) &<< 16 | digitPair(third) &<< 32
      | digitPair(fourth) &<< 48
  }

  /// The two characters of `pair` (0...99), the first in the low byte.
  @inline(__always)
  private static func digitPair(_ pair: UInt64) -> UInt64 {
    let digitPairs: StaticString = """
      00010203040506070809101112131415161718192021222324252627282930313233343536373839\
      40414243444546474849505152535455565758596061626364656667686970717273747576777879\
      8081828384858687888990919293949596979899
      """
    return UInt64(
      UInt16(
        littleEndian: UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(
          fromByteOffset: Int(truncatingIfNeeded: pair) &* 2, as: UInt16.self)))
  }

  // MARK: - Digits

  /// The shortest decimal `digits · 10^exponent` (digits possibly ending in zeros) in the
  /// rounding interval of `significand · 2^exponent`, the closest to it among the shortest.
  ///
  /// - Parameters:
  ///   - c: the significand.
  ///   - q: the binary exponent.
  ///   - lowerGapIsNarrow: the value is a power of two above the least normal one, so its lower
  ///     neighbour is half as far as its upper one.
  ///   - odd: the significand is odd: the interval's ends round away, so they are excluded.
  /// - Returns: the digits and the power of ten of the last one.
  @inline(__always)
  static func shortest(
    significand c: UInt64, exponent q: Int, lowerGapIsNarrow: Bool, odd: Bool
  ) -> (digits: UInt64, exponent: Int) {
    // Four times the value and the ends of its interval: the ends are half a unit away (a
    // quarter below a power of two whose lower neighbour is closer). Wrapping arithmetic from
    // here on: every value is in range (c < 2^53, the shift is 1...4 for every exponent).
    let out: UInt64 = odd ? 1 : 0
    let center = c &<< 2
    let upperEnd = center &+ 2
    let lowerEnd = center &- (lowerGapIsNarrow ? 1 : 2)
    let k = lowerGapIsNarrow ? floorLog10ThreeQuartersPow2(q) : floorLog10Pow2(q)
    // Scale by 10^-k: the power's mantissa is 10^-k · 2^(127 - floorLog2Pow10(-k)).
    let shift = UInt64(truncatingIfNeeded: q &+ floorLog2Pow10(0 &- k) &+ 1)
    let index = 2 &* (348 &- k)
    let (high, low) = powersOfTenMantissas.withUnsafeBufferPointer { table in
      (table[index], table[index &+ 1])
    }
    // Rounded up: the table rounds down.
    let powerLow = low &+ 1
    let powerHigh = high &+ (powerLow == 0 ? 1 : 0)
    let scaled = scaleRoundingToOdd(powerHigh, powerLow, center &<< shift)
    let scaledLower = scaleRoundingToOdd(powerHigh, powerLow, lowerEnd &<< shift) &+ out
    let scaledUpper = scaleRoundingToOdd(powerHigh, powerLow, upperEnd &<< shift) &- out

    // Every candidate is compared, then one is selected with integer arithmetic: which one
    // wins varies from number to number, so branches would be mispredicted half the time.
    @inline(__always) func bit(_ condition: Bool) -> UInt64 { condition ? 1 : 0 }
    let floor = scaled &>> 2
    // One digit fewer: the multiples of ten on either side (the interval is less than ten
    // units wide, so at most one of them is in it).
    let below = floor / 10 &* 10
    let belowIn = bit(scaledLower <= below &<< 2)
    let aboveIn = bit((below &+ 10) &<< 2 <= scaledUpper)
    let shorter = bit(floor >= 10) & (belowIn ^ aboveIn)
    let short = below &+ 10 &* (1 &- belowIn)
    // Otherwise the integer on either side in the interval (one of them is); both in: the
    // closer one, the even one on a tie.
    let floorIn = bit(scaledLower <= floor &<< 2)
    let ceilingIn = bit((floor &+ 1) &<< 2 <= scaledUpper)
    let floorIsCloser = bit(scaled &+ (floor & 1) <= (floor &<< 2) &+ 2)
    let long = floor &+ (ceilingIn & (1 ^ (floorIn & floorIsCloser)))
    let pick = 0 &- shorter
    return (short & pick | long & ~pick, k)
  }

  /// The top 64 bits of the 192-bit product of the 128-bit `high:low` and `factor`, with the
  /// lowest bit set when any of the next 64 bits is (rounding to odd; the last 64 bits only hold
  /// the error of the rounded-up power).
  @inline(__always)
  private static func scaleRoundingToOdd(_ high: UInt64, _ low: UInt64, _ factor: UInt64)
    -> UInt64
  {
    let upper = high.multipliedFullWidth(by: factor)
    let lower = low.multipliedFullWidth(by: factor)
    let (middle, carry) = upper.low.addingReportingOverflow(lower.high)
    let top = upper.high &+ (carry ? 1 : 0)
    return top | (middle != 0 ? 1 : 0)
  }

  /// floor(log10(2^e)) for |e| <= 1650.
  @inline(__always)
  static func floorLog10Pow2(_ e: Int) -> Int { (e &* 315_653) >> 20 }

  /// floor(log10(3/4 · 2^e)) for |e| <= 1650.
  @inline(__always)
  static func floorLog10ThreeQuartersPow2(_ e: Int) -> Int { (e &* 315_653 &- 131_237) >> 20 }

  /// floor(log2(10^e)) for |e| <= 400.
  @inline(__always)
  static func floorLog2Pow10(_ e: Int) -> Int { (e &* 1_741_647) >> 19 }

  // MARK: - Writing digits

  /// Writes `pair` (0...99) as two digits.
  @inline(__always)
  private static func writePair(_ pair: Int, _ out: UnsafeMutablePointer<UInt8>) {
    UnsafeMutableRawPointer(out).storeBytes(
      of: UInt16(truncatingIfNeeded: digitPair(UInt64(truncatingIfNeeded: pair))).littleEndian,
      as: UInt16.self)
  }
}

/// The characters of number text, as constants (a `static let` is read through an accessor
/// that checks it was initialised, on every use).
private enum Text {
  static var zero: UInt8 { 0x30 }
  static var minus: UInt8 { 0x2D }
  static var plus: UInt8 { 0x2B }
  static var period: UInt8 { 0x2E }
  static var lowerE: UInt8 { 0x65 }
  /// Eight "0" characters.
  static var zeros: UInt64 { 0x3030_3030_3030_3030 }
}

/// The floating-point types `ModelEncoder` writes through `ShortestDecimal`.
protocol JSONFloatingPoint: BinaryFloatingPoint {
  /// Writes finite `value` as `JSONEncoder` does at `out`, which has room for
  /// `ShortestDecimal.room` bytes; returns the number of bytes written.
  static func writeJSON(_ value: Self, to out: UnsafeMutablePointer<UInt8>) -> Int
}

extension Double: JSONFloatingPoint {
  @inline(__always)
  static func writeJSON(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
    ShortestDecimal.write(value, to: out)
  }
}

extension Float: JSONFloatingPoint {
  @inline(__always)
  static func writeJSON(_ value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
    ShortestDecimal.write(value, to: out)
  }
}
