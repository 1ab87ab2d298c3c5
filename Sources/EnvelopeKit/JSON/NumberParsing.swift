import Foundation

// Exact conversions from a JSON number lexeme to Swift numbers. Every conversion either gives
// the exact value or says why it cannot: nothing here rounds an integer, wraps or traps.

/// Why a number lexeme did not convert to the requested type.
enum NumberConversionFailure: Error, Equatable {
  /// The text is not a JSON number.
  case invalid
  /// The value has a fractional part and the type is an integer.
  case notIntegral
  /// The value does not fit the type.
  case outOfRange
}

enum NumberParsing {
  private static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// Whether `bytes` is exactly one JSON number (RFC 8259 grammar).
  static func isJSONNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    func digit(_ k: Int) -> Bool { k < n && bytes[k] &- ASCII.zero < 10 }
    if i < n && bytes[i] == ASCII.minus { i += 1 }
    guard digit(i) else { return false }
    if bytes[i] == ASCII.zero {
      i += 1
    } else {
      while digit(i) { i += 1 }
    }
    if i < n && bytes[i] == ASCII.period {
      i += 1
      guard digit(i) else { return false }
      while digit(i) { i += 1 }
    }
    if i < n && (bytes[i] == ASCII.lowerE || bytes[i] == ASCII.upperE) {
      i += 1
      if i < n && (bytes[i] == ASCII.plus || bytes[i] == ASCII.minus) { i += 1 }
      guard digit(i) else { return false }
      while digit(i) { i += 1 }
    }
    return i == n
  }

  /// Converts a valid JSON number lexeme to an integer type, exactly.
  @inline(__always)
  static func integer<T: FixedWidthInteger>(
    _ bytes: UnsafeBufferPointer<UInt8>, isInteger: Bool, as type: T.Type = T.self
  ) -> Result<T, NumberConversionFailure> {
    if isInteger { return plainInteger(bytes) }
    return scientificInteger(bytes)
  }

  /// `-?[0-9]+` to T with overflow checks.
  @inline(__always)
  static func plainInteger<T: FixedWidthInteger>(_ bytes: UnsafeBufferPointer<UInt8>)
    -> Result<T, NumberConversionFailure>
  {
    // Up to 18 digits cannot overflow an Int64: read them eight at a time, then check T's
    // range once. (Twitter's ids have 18 digits.)
    if T.bitWidth <= 64, let base = bytes.baseAddress, bytes.count > 0 {
      let negative = base[0] == ASCII.minus
      let start = negative ? 1 : 0
      if bytes.count &- start <= 18 {
        var i = start
        var magnitude: UInt64 = 0
        let digits = DecimalDigits.read(base, &i, bytes.count, into: &magnitude)
        guard digits > 0, i == bytes.count else { return .failure(.invalid) }
        let positive = Int64(truncatingIfNeeded: magnitude)
        let value = negative ? 0 &- positive : positive
        guard let exact = T(exactly: value) else { return .failure(.outOfRange) }
        return .success(exact)
      }
    }
    var i = 0
    let negative = bytes.count > 0 && bytes[0] == ASCII.minus
    if negative { i = 1 }
    guard i < bytes.count else { return .failure(.invalid) }
    var value: T = 0
    while i < bytes.count {
      let digit = bytes[i] &- ASCII.zero
      guard digit < 10 else { return .failure(.invalid) }
      let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (added, overflow2) =
        negative
        ? multiplied.subtractingReportingOverflow(T(digit))
        : multiplied.addingReportingOverflow(T(digit))
      guard !overflow1 && !overflow2 else { return .failure(.outOfRange) }
      value = added
      i += 1
    }
    return .success(value)
  }

  /// A lexeme with a fraction or exponent (`3.0`, `1e2`, `1.5e1`) to T when it is integral.
  static func scientificInteger<T: FixedWidthInteger>(_ bytes: UnsafeBufferPointer<UInt8>)
    -> Result<T, NumberConversionFailure>
  {
    guard let parts = DecimalParts(bytes) else { return .failure(.invalid) }
    if parts.digits.isEmpty { return .success(0) }
    guard parts.exponent >= 0 else { return .failure(.notIntegral) }
    // T.max has at most 39 digits; anything longer cannot fit.
    guard parts.digits.count + parts.exponent <= 40 else { return .failure(.outOfRange) }
    var text = parts.negative ? [ASCII.minus] : []
    text += parts.digits
    text += [UInt8](repeating: ASCII.zero, count: parts.exponent)
    return text.withUnsafeBufferPointer { plainInteger($0) }
  }

  /// A valid JSON number lexeme to Double. Fails with `outOfRange` when it overflows to
  /// infinity or underflows to zero (`1e-400`), as Foundation's `JSONDecoder` does.
  /// With `allowsUnderflow`, a value too small to represent is 0 (what `Double(text)` gives).
  @inline(__always)
  static func double(_ bytes: UnsafeBufferPointer<UInt8>, allowsUnderflow: Bool = false)
    -> Result<Double, NumberConversionFailure>
  {
    if let fast = fastDouble(bytes) { return .success(fast) }
    guard let value = Double(String(decoding: bytes, as: UTF8.self)) else {
      return .failure(.invalid)
    }
    return checkedRange(value, bytes, allowsUnderflow: allowsUnderflow)
  }

  /// A valid JSON number lexeme to Float, rounded once from the text; `outOfRange` on overflow
  /// and underflow.
  static func float(_ bytes: UnsafeBufferPointer<UInt8>, allowsUnderflow: Bool = false)
    -> Result<Float, NumberConversionFailure>
  {
    if let double = fastDouble(bytes), let value = floatRoundedOnce(double) {
      return checkedRange(value, bytes, allowsUnderflow: allowsUnderflow)
    }
    return floatFromText(bytes, allowsUnderflow: allowsUnderflow)
  }

  /// `Float(String)`, for the lexemes `float` cannot round from their `Double`.
  @inline(never)
  private static func floatFromText(_ bytes: UnsafeBufferPointer<UInt8>, allowsUnderflow: Bool)
    -> Result<Float, NumberConversionFailure>
  {
    guard let value = Float(String(decoding: bytes, as: UTF8.self)) else {
      return .failure(.invalid)
    }
    return checkedRange(value, bytes, allowsUnderflow: allowsUnderflow)
  }

  /// `double`, the correctly rounded `Double` of a lexeme, rounded to the `Float` nearest the
  /// lexeme itself; nil when rounding twice could differ from rounding the text once.
  ///
  /// Every `Float` and every point halfway between two neighbouring `Float`s is a `Double`, and
  /// rounding is monotonic: when the text lies strictly between a `Float` and the next halfway
  /// point, so does its `Double` (or it equals the `Float`), and that `Double` rounds to the
  /// same `Float`. Only a `Double` that is itself a halfway point can have come from text on
  /// either side of it (`Float` would then round the tie to even, whatever side the text was):
  /// nil. In the binades of normal `Float`s (2^-126 up to 2^128, where `Float` overflows: the
  /// last halfway point, between the greatest `Float` and 2^128, is one too) a halfway point is
  /// a `Double` whose 29 bits below the `Float`'s 24-bit significand are exactly `1 << 28`.
  /// Zero is exact; below 2^-126 (`Float`'s subnormals, where its precision is not 24 bits)
  /// and from 2^128 up: nil, and the caller reads the text.
  @inline(__always)
  static func floatRoundedOnce(_ double: Double) -> Float? {
    let magnitude = double.magnitude
    if magnitude == 0 { return Float(double) }
    guard magnitude >= 0x1p-126, magnitude < 0x1p128,
      double.bitPattern & 0x1FFF_FFFF != 0x1000_0000
    else { return nil }
    return Float(double)
  }

  /// Infinity (overflow) and zero from a lexeme with a nonzero digit (underflow) do not fit.
  private static func checkedRange<F: BinaryFloatingPoint>(
    _ value: F, _ bytes: UnsafeBufferPointer<UInt8>, allowsUnderflow: Bool
  ) -> Result<F, NumberConversionFailure> {
    guard value.isFinite else { return .failure(.outOfRange) }
    if value == 0, !allowsUnderflow {
      for byte in bytes {
        if byte == ASCII.lowerE || byte == ASCII.upperE { break }
        if byte > ASCII.zero && byte <= ASCII.nine { return .failure(.outOfRange) }
      }
    }
    return .success(value)
  }

  /// A valid JSON number lexeme to Decimal, from its text (never through Double).
  static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<
    Decimal, NumberConversionFailure
  > {
    guard let value = Decimal(string: String(decoding: bytes, as: UTF8.self), locale: nil),
      !value.isNaN
    else { return .failure(.outOfRange) }
    return .success(value)
  }

  /// Reads an exponent's optional sign and digits from `i` (just after the `e`), leaving `i`
  /// after them; the magnitude saturates just above `limit`.
  @inline(__always)
  static func readExponent(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, limit: Int) -> Int {
    let n = bytes.count
    var negative = false
    if i < n, bytes[i] == ASCII.minus || bytes[i] == ASCII.plus {
      negative = bytes[i] == ASCII.minus
      i += 1
    }
    var magnitude = 0
    while i < n, bytes[i] &- ASCII.zero < 10 {
      magnitude = min(magnitude * 10 + Int(bytes[i] &- ASCII.zero), limit + 1)
      i += 1
    }
    return negative ? -magnitude : magnitude
  }

  /// The common lexemes without `strtod`: at most 19 significant digits and a moderate
  /// exponent. Clinger's exact path first (53-bit mantissa, exact power of ten), then
  /// Eisel-Lemire; nil when neither can prove its answer is the correctly rounded one, and the
  /// caller falls back to `Double(String)`. Pays on canada.json, where `strtod` was a fifth of
  /// the decode (17-digit coordinates); the digits are read eight at a time (`DecimalDigits`),
  /// a short lexeme's integer part and fraction one word each.
  @inline(__always)
  private static func fastDouble(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    guard let base = bytes.baseAddress else { return nil }
    let n = bytes.count
    let negative = n > 0 && base[0] == ASCII.minus
    var i = negative ? 1 : 0
    // Every digit; past 19 significant ones the mantissa no longer fits a UInt64 (it may even
    // wrap to exactly zero: 2^64 has 20 digits), so a long lexeme is checked exactly below.
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
    if n <= 12 {
      // A short lexeme (`12.5`, `3.14`, `-122.4194`): the integer part and the fraction are
      // each one word, whatever their lengths, which vary from one number to the next where
      // a loop's exit, taken per digit, would be mispredicted.
      let integer = DecimalDigits.run(base, i, n)
      mantissa = integer.value
      digits = integer.count
      i &+= integer.count
      if integer.count == 8 { digits &+= DecimalDigits.read(base, &i, n, into: &mantissa) }
      if i < n, base[i] == ASCII.period {
        i &+= 1
        let fraction = DecimalDigits.run(base, i, n)
        mantissa = mantissa &* DecimalDigits.scales[fraction.count] &+ fraction.value
        i &+= fraction.count
        var count = fraction.count
        if count == 8 { count &+= DecimalDigits.read(base, &i, n, into: &mantissa) }
        digits &+= count
        exponent = -count
      }
    } else {
      // The integer part one digit at a time: it is short in the lexemes with a fraction, and
      // its end, found this way, is predicted where a word's would wait for the word.
      let integerStart = i
      while i < n, base[i] &- ASCII.zero < 10 {
        mantissa = mantissa &* 10 &+ UInt64(base[i] &- ASCII.zero)
        i &+= 1
      }
      digits = i &- integerStart
      if i < n, base[i] == ASCII.period {
        i &+= 1
        let fraction = DecimalDigits.read(base, &i, n, into: &mantissa)
        digits &+= fraction
        exponent = -fraction
      }
    }
    guard digits > 0 else { return nil }
    if i < n {
      // Exponent part. A saturated one (past 1,000) goes to `Double(String)`: the fraction's
      // digits, one less each, could bring it back into range (`0.<1,001 zeros>1e1002` is 1).
      i &+= 1
      let written = readExponent(bytes, &i, limit: 1_000)
      guard written >= -1_000, written <= 1_000 else { return nil }
      exponent &+= written
    }
    guard digits <= 19 || significantDigits(bytes) <= 19 else { return nil }
    if mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
      var value = Double(mantissa)
      if exponent < 0 {
        value /= powersOfTen[-exponent]
      } else {
        value *= powersOfTen[exponent]
      }
      return negative ? -value : value
    }
    guard let magnitude = eiselLemire(mantissa, exponent) else { return nil }
    return negative ? -magnitude : magnitude
  }

  /// The digits of a lexeme's mantissa from its first nonzero one (leading zeros, in the
  /// integer or the fraction part, do not count).
  private static func significantDigits(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var count = 0
    for byte in bytes {
      if byte == ASCII.lowerE || byte == ASCII.upperE { break }
      guard byte &- ASCII.zero < 10 else { continue }
      if count > 0 || byte != ASCII.zero { count += 1 }
    }
    return count
  }

  /// `mantissa * 10^exponent` correctly rounded, by the Eisel-Lemire algorithm (Lemire, "Number
  /// Parsing at a Gigabyte per Second", 2021): one or two 64x64-bit products with a 128-bit
  /// approximation of the power of ten. Nil when the approximation cannot decide the rounding,
  /// or the result would be subnormal or infinite; the caller then falls back.
  @inline(__always)
  static func eiselLemire(_ mantissa: UInt64, _ exponent: Int) -> Double? {
    if mantissa == 0 { return 0 }
    guard exponent >= -348, exponent <= 347 else { return nil }
    let leadingZeros = mantissa.leadingZeroBitCount
    let normalized = mantissa << leadingZeros
    // floor(exponent * log2(10)) + 64 + bias, less the normalising shift.
    var binaryExponent = ((217_706 &* exponent) >> 16) &+ 64 &+ 1023 &- leadingZeros
    let row = 2 &* (exponent &+ 348)
    let powers = powersOfTenMantissas
    var (high, low) = normalized.multipliedFullWidth(by: powers[row])
    // The lower 9 bits of `high` all set: the truncated low word of the power might carry into
    // them, so take it into account.
    if high & 0x1FF == 0x1FF, low &+ normalized < low {
      let (extraHigh, extraLow) = normalized.multipliedFullWidth(by: powers[row &+ 1])
      var mergedHigh = high
      let (mergedLow, carried) = low.addingReportingOverflow(extraHigh)
      if carried { mergedHigh &+= 1 }
      if mergedHigh & 0x1FF == 0x1FF, mergedLow &+ 1 == 0, extraLow &+ normalized < extraLow {
        return nil
      }
      (high, low) = (mergedHigh, mergedLow)
    }
    let topBit = high >> 63
    var result = high >> (topBit &+ 9)
    binaryExponent &-= Int(1 ^ topBit)
    // Exactly half-way between two doubles: the approximation cannot say which way to round.
    if low == 0, high & 0x1FF == 0, result & 3 == 1 { return nil }
    result &+= result & 1
    result >>= 1
    if result >> 53 > 0 {
      result >>= 1
      binaryExponent &+= 1
    }
    // Zero or below: subnormal; 0x7FF or above: infinite. Both go to the slow path.
    guard binaryExponent >= 1, binaryExponent < 0x7FF else { return nil }
    return Double(
      bitPattern: UInt64(binaryExponent) << 52 | result & 0x000F_FFFF_FFFF_FFFF)
  }
}

/// A number as significant digits times a power of ten, for exact integer checks.
struct DecimalParts {
  var negative: Bool
  /// Significant digits without leading or trailing zeros; empty for zero.
  var digits: [UInt8]
  var exponent: Int

  init?(_ bytes: UnsafeBufferPointer<UInt8>) {
    var i = 0
    let n = bytes.count
    negative = n > 0 && bytes[0] == ASCII.minus
    if negative { i = 1 }
    var digits: [UInt8] = []
    var exponent = 0
    while i < n, bytes[i] &- ASCII.zero < 10 {
      digits.append(bytes[i])
      i += 1
    }
    if i < n, bytes[i] == ASCII.period {
      i += 1
      while i < n, bytes[i] &- ASCII.zero < 10 {
        digits.append(bytes[i])
        exponent -= 1
        i += 1
      }
    }
    if i < n, bytes[i] == ASCII.lowerE || bytes[i] == ASCII.upperE {
      i += 1
      // Saturate: a huge exponent only matters as "huge". Past the number of digits, so that
      // they cannot offset a saturated one back into range (`1<1,000,001 zeros>e-1000002`).
      exponent += NumberParsing.readExponent(bytes, &i, limit: 1_000_000 + n)
    }
    guard i == n else { return nil }
    // Strip leading zeros, then trailing zeros into the exponent.
    let firstNonZero = digits.firstIndex { $0 != ASCII.zero } ?? digits.count
    digits.removeFirst(firstNonZero)
    while let last = digits.last, last == ASCII.zero {
      digits.removeLast()
      exponent += 1
    }
    self.digits = digits
    self.exponent = digits.isEmpty ? 0 : exponent
  }
}
