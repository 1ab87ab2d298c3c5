import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

// The oracle of "a float is written as JSONEncoder writes it" (`ShortestDecimal`): JSONEncoder
// writes `description` without a trailing ".0", so each generated `Double` and `Float` must
// come out as exactly that text; a batch of them, encoded as an array by `ModelEncoder` and by
// `JSONEncoder`, must be the same bytes. The generator aims where number text goes wrong:
// random bit patterns and decimals, powers of two and ten, subnormals, the ends of the normal
// range, integers up to 2^53 (2^24) and past it, and the magnitudes where the layout switches
// between "0.0001"/"1e-05" and "9007199254740992"/"9.007199254740994e+15", each with its
// neighbours one unit in the last place away. `FloatingPointTextTests` runs it seeded;
// `EncodingOracle` (and so `Fuzz/EncodingFuzzTarget.swift`) runs batches of it too.

/// Generates floating-point values where their shortest text is hard to get right.
struct FloatingPointGenerator<Source: EntropySource> {
  var source: Source

  init(_ source: Source) { self.source = source }

  /// 64 random bits, 16 at a time (a fuzzer's byte source gives at most 16 per choice).
  mutating func bits() -> UInt64 {
    (0..<4).reduce(0) { word, _ in word << 16 | UInt64(source.next(1 << 16)) }
  }

  /// `digits` random decimal digits (the first not zero).
  mutating func digits(_ count: Int) -> String {
    String(1 + source.next(9)) + (1..<max(count, 1)).map { _ in String(source.next(10)) }.joined()
  }

  /// The value, or a neighbour one unit in the last place away, either sign.
  mutating func nudged(_ value: Double) -> Double {
    let nudged = [value, value.nextUp, value.nextDown][source.next(3)]
    return source.next(2) == 0 ? nudged : -nudged
  }

  mutating func nudged(_ value: Float) -> Float {
    let nudged = [value, value.nextUp, value.nextDown][source.next(3)]
    return source.next(2) == 0 ? nudged : -nudged
  }

  /// A finite `Double` (a decimal past the range reads as infinity: it becomes the largest).
  mutating func double() -> Double {
    let value = anyDouble()
    return value.isFinite
      ? value : value.sign == .minus ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude
  }

  /// A finite `Float`.
  mutating func float() -> Float {
    let value = anyFloat()
    return value.isFinite
      ? value : value.sign == .minus ? -.greatestFiniteMagnitude : .greatestFiniteMagnitude
  }

  private mutating func anyDouble() -> Double {
    switch source.next(9) {
    case 0, 1:
      let value = Double(bitPattern: bits())
      return value.isFinite ? value : Double(bitPattern: bits() & ~(0x7FF << 52))
    case 2:
      let text = "\(digits(1 + source.next(17)))e\(source.next(650) - 340)"
      return nudged(Double(text) ?? 0)
    case 3: return nudged(Double(sign: .plus, exponent: source.next(2098) - 1074, significand: 1))
    case 4: return nudged(Double("1e\(source.next(632) - 323)") ?? 0)
    case 5:
      return nudged(
        [
          .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 1, 0,
          9_007_199_254_740_992, 18_014_398_509_481_984, 1e-4, 1e-5, 1e15, 1e16, 1e21, 1e22,
          0.1, 0.3, 2.5, 1e23, .leastNonzeroMagnitude, 1.5, 1e-300, 1e300,
        ][source.next(21)])
    case 6:
      // Integers below 2^53, then any 64-bit integer, shifted down by a random amount.
      let integer = source.next(2) == 0 ? bits() >> 11 : bits() >> UInt64(source.next(64))
      return nudged(Double(integer))
    case 7:
      // Subnormals, mostly small significands.
      let fraction = bits() >> UInt64(12 + source.next(52))
      return nudged(Double(bitPattern: fraction))
    default:
      // Around the layout's switches: 1e-4 and 1e-5, 2^53 and 1e16.
      let exponent = [-5, -4, -3, 14, 15, 16][source.next(6)]
      let count = 1 + source.next(17)
      return nudged(Double("\(digits(count))e\(exponent - count + 1)") ?? 0)
    }
  }

  private mutating func anyFloat() -> Float {
    switch source.next(8) {
    case 0, 1:
      let value = Float(bitPattern: UInt32(truncatingIfNeeded: bits()))
      return value.isFinite ? value : Float(bitPattern: UInt32(truncatingIfNeeded: bits() >> 34))
    case 2:
      return nudged(Float("\(digits(1 + source.next(9)))e\(source.next(90) - 50)") ?? 0)
    case 3: return nudged(Float(sign: .plus, exponent: source.next(277) - 149, significand: 1))
    case 4:
      return nudged(
        [
          Float.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 1, 0,
          16_777_216, 33_554_432, 1e-4, 1e-5, 1e7, 1e8, 0.1, 1e38, 1e-38,
        ][source.next(14)])
    case 5: return nudged(Float(bits() >> UInt64(source.next(64))))
    case 6: return nudged(Float(bitPattern: UInt32(truncatingIfNeeded: bits() >> 41)))
    default:
      let exponent = [-5, -4, -3, 6, 7, 8][source.next(6)]
      let count = 1 + source.next(9)
      return nudged(Float("\(digits(count))e\(exponent - count + 1)") ?? 0)
    }
  }
}

enum FloatingPointOracle {
  /// What `JSONEncoder` writes for a finite value: `description` without a trailing ".0".
  static func expected<Number: BinaryFloatingPoint & CustomStringConvertible>(
    _ value: Number
  ) -> String {
    let text = value.description
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }

  /// A violation for `value`, or nil.
  static func check(_ value: Double) -> String? {
    guard value.isFinite else { return nil }
    let actual = ShortestDecimal.text(value)
    let wanted = expected(value)
    return actual == wanted
      ? nil : "Double(bitPattern: \(value.bitPattern)): wrote \(actual), JSONEncoder \(wanted)"
  }

  static func check(_ value: Float) -> String? {
    guard value.isFinite else { return nil }
    let actual = ShortestDecimal.text(value)
    let wanted = expected(value)
    return actual == wanted
      ? nil : "Float(bitPattern: \(value.bitPattern)): wrote \(actual), JSONEncoder \(wanted)"
  }

  /// `count` generated doubles and floats, each checked, then both arrays encoded by both
  /// encoders (which must write the same bytes).
  static func runBatch<S: EntropySource>(
    _ source: inout S, count: Int, into outcome: inout EncodingOracle.Outcome
  ) {
    var generator = FloatingPointGenerator(source)
    defer { source = generator.source }
    let doubles = (0..<count).map { _ in generator.double() }
    let floats = (0..<count).map { _ in generator.float() }
    outcome.violations += doubles.compactMap(check) + floats.compactMap(check)
    EncodingOracle.compare("doubles", doubles, GOptions(), into: &outcome)
    EncodingOracle.compare("floats", floats, GOptions(), into: &outcome)
  }
}
