import Foundation
import Testing

@testable import EnvelopeKit

/// The number conversions against the obvious answers on what the other generated tests do not
/// reach: lexemes copied to the very end of an allocation of their exact size, at every length
/// of integer and fraction part around the 8- and 16-byte words; exponents past the reader's
/// saturation offset by as many fraction digits; integers written with a fraction or exponent
/// into every width; and the same lexemes through the decoder.
@Suite struct NumberLexemeDifferentialTests {
  static func digits(_ count: Int, _ random: inout SeededGenerator) -> String {
    String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
  }

  /// Every integer part of 1 to 20 digits with every fraction of 0 to 26 digits, bare and with
  /// an exponent, so that each run of digits ends at every offset of a word and the lexeme at
  /// the end of its allocation.
  @Test func everyDigitRunLengthAtTheEndOfTheBufferMatchesDoubleFromText() {
    var random = SeededGenerator(state: 0xB0F_FE12)
    var failures: [String] = []
    for integerCount in 1...20 {
      for fractionCount in 0...26 {
        for form in 0..<6 {
          var integer = Self.digits(integerCount, &random)
          if integer.count > 1 && integer.first == "0" || form == 5 { integer = "0" }
          var text = integer
          if fractionCount > 0 { text += "." + Self.digits(fractionCount, &random) }
          switch form {
          case 1: text += "e" + String(Int.random(in: -40...40, using: &random))
          case 2: text += "E+" + String(Int.random(in: 0...9, using: &random))
          case 3: text = "-" + text
          case 4: text = "-" + text + "e-" + String(Int.random(in: 0...330, using: &random))
          default: break
          }
          if let failure = NumberOracle.doubleMismatch(text) { failures.append(failure) }
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.count) mismatches, first \(failures.prefix(5))")
  }

  /// The fraction's leading zeros lower the exponent by one each; an exponent of more than
  /// 1,000 (where the reader saturates) can bring the value back into range. Seeded, against
  /// `Double(String)`.
  @Test func exponentPastSaturationOffsetByFractionZerosMatchesDoubleFromText() {
    var random = SeededGenerator(state: 0x5A7_0E1A)
    var failures: [String] = []
    for _ in 0..<300 {
      let zeros = Int.random(in: 990...1_200, using: &random)
      let significant =
        String(Int.random(in: 1...9, using: &random))
        + Self.digits(Int.random(in: 0...18, using: &random), &random)
      let exponent = zeros + Int.random(in: -30...30, using: &random)
      var text = "0." + String(repeating: "0", count: zeros) + significant + "e" + String(exponent)
      if Bool.random(using: &random) { text = "-" + text }
      if let failure = NumberOracle.doubleMismatch(text) { failures.append(failure) }
    }
    // The same, the other way round: an integer part of many digits, a very negative exponent.
    for _ in 0..<100 {
      let zeros = Int.random(in: 990...1_200, using: &random)
      let text =
        String(Int.random(in: 1...9, using: &random)) + String(repeating: "0", count: zeros)
        + "e-" + String(zeros + Int.random(in: -30...30, using: &random))
      if let failure = NumberOracle.doubleMismatch(text) { failures.append(failure) }
    }
    // The lexemes are long: the message gives their ends, not the array.
    let count = failures.count
    #expect(count == 0, "\(count) mismatches, first \(failures.prefix(2).map { $0.suffix(120) })")
  }

  /// The value `0.<1,001 zeros>1e1002` is 1, through the decoder and `JSONNumber`.
  @Test func decodedDoubleWithCompensatedHugeExponentIsOne() throws {
    let text = "0." + String(repeating: "0", count: 1_001) + "1e1002"
    #expect(Double(text) == 1)
    #expect(try LenientDecoder().decode(Double.self, from: Data(text.utf8)) == 1)
    #expect(try LenientDecoder().decode([Double].self, from: Data("[\(text)]".utf8)) == [1])
    #expect(JSONNumber(text)?.doubleValue == 1)
  }

  /// Exponents written with many digits, 19, 20 and 40 significant digits, halfway points,
  /// leading zeros, negative zero, and lexemes ending exactly at 8 and 16 bytes.
  static let edgeCases: [String] = [
    "1e0000000000000000000001", "1e-0000000000000000000400", "1E+00000000000000000000000308",
    "1e-400", "123456789012345678901234567890e-30", "1234567890123456789012345678901234567890",
    "0.1234567890123456789012345678901234567890", "9007199254740993", "9007199254740993e-0",
    "2.2250738585072011e-308", "0.0000000000000000000000000001", "0.000000000000000000000000000",
    "-0", "-0.0", "-0e-999", "12345678", "1234567890123456", "0.234567", "0.2345678",
    "1.23456789012345", "-1.2345678901234", "99999999.99999999", "9999999999999999999",
    "99999999999999999999", "0.00000001", "0.0000000000000001", "1.0000000000000000",
    "0." + String(repeating: "0", count: 1_000) + "1e999", "1e1000", "1e1001", "1e-1001",
  ]

  /// Each edge case as a `Double` in an exact allocation, through `JSONNumber` and as a
  /// lenient numeric string (`"1.5"`, with spaces around): the bits of `Double(text)`.
  @Test(arguments: edgeCases)
  func edgeCaseMatchesDoubleFromTextOnEveryPath(_ text: String) throws {
    #expect(NumberOracle.doubleMismatch(text) == nil)
    let expected = try #require(Double(text))
    if expected.isFinite {
      #expect(JSONNumber(text)?.doubleValue?.bitPattern == expected.bitPattern)
    }
    // Underflow and overflow are refused by the decoder; the rest must be exact.
    let underflows =
      expected == 0 && text.prefix { $0 != "e" && $0 != "E" }.contains { "123456789".contains($0) }
    guard expected.isFinite, !underflows else { return }
    let decoded = try LenientDecoder().decode([Double].self, from: Data("[\" \(text) \"]".utf8))
    #expect(decoded.map(\.bitPattern) == [expected.bitPattern])
  }

  func integer<T: FixedWidthInteger>(_ text: String, as type: T.Type) -> T? {
    NumberOracle.withExactBytes(text) {
      try? NumberParsing.integer($0, isInteger: isIntegerLexeme($0), as: T.self).get()
    }
  }

  /// Integers of 1 to 22 significant digits written as `digits × 10^q` with the point anywhere
  /// and an exponent that makes up for it (`12.34e2`, `0.1234e4`, `123400e-2`), into every
  /// width: the value `T(String)` gives the plain integer, or nil when it is not integral or
  /// does not fit.
  @Test func integersWrittenWithFractionOrExponentMatchIntegerFromText() {
    var random = SeededGenerator(state: 0x1A7E_6E25)
    var failures: [String] = []
    func check<T: FixedWidthInteger>(_ lexeme: String, _ plain: String?, _ type: T.Type) {
      let expected = plain.flatMap { T($0) }
      let actual = integer(lexeme, as: T.self)
      if actual != expected {
        failures.append("\(lexeme) as \(T.self): \(String(describing: actual)) vs \(plain ?? "-")")
      }
    }
    for _ in 0..<20_000 {
      let count = Int.random(in: 1...22, using: &random)
      var significand =
        String(Int.random(in: 1...9, using: &random)) + Self.digits(count - 1, &random)
      if Int.random(in: 0..<3, using: &random) == 0 {
        significand += String(repeating: "0", count: Int.random(in: 1...4, using: &random))
      }
      let negative = Bool.random(using: &random)
      let sign = negative ? "-" : ""
      let q = Int.random(in: -4...4, using: &random)
      // The plain integer `significand × 10^q`, or nil when it has a fraction.
      var plain: String?
      if q >= 0 {
        plain = sign + significand + String(repeating: "0", count: q)
      } else if significand.hasSuffix(String(repeating: "0", count: -q)) {
        plain = sign + String(significand.dropLast(-q))
      }
      // The point after `k` digits, and the exponent that keeps the value.
      let k = Int.random(in: 0...significand.count, using: &random)
      var mantissa = significand
      if k == 0 {
        mantissa = "0." + significand
      } else if k < significand.count {
        mantissa = String(significand.prefix(k)) + "." + significand.dropFirst(k)
      }
      let exponent = q + (significand.count - k)
      let lexeme =
        exponent == 0 && k == significand.count && q == 0 && Bool.random(using: &random)
        ? sign + mantissa : sign + mantissa + "e" + String(exponent)
      check(lexeme, plain, Int.self)
      check(lexeme, plain, Int8.self)
      check(lexeme, plain, Int16.self)
      check(lexeme, plain, Int32.self)
      check(lexeme, plain, Int64.self)
      check(lexeme, plain, UInt.self)
      check(lexeme, plain, UInt8.self)
      check(lexeme, plain, UInt16.self)
      check(lexeme, plain, UInt32.self)
      check(lexeme, plain, UInt64.self)
    }
    #expect(failures.isEmpty, "\(failures.count) mismatches, first \(failures.prefix(5))")
  }

  /// Each width's bounds and their neighbours, in every sign and with leading `-0`, at the end
  /// of an exact allocation: what `T(String)` gives, and a failure exactly where it is nil.
  @Test func integerBoundsOfEveryWidthMatchIntegerFromText() {
    var failures: [String] = []
    func check<T: FixedWidthInteger>(_ type: T.Type) {
      var texts: [String] = ["0", "-0", "1", "-1", "9", "10", "99999999", "100000000"]
      for bound in [String(T.max), String(T.min)] {
        let magnitude = bound.hasPrefix("-") ? String(bound.dropFirst()) : bound
        let digits = magnitude.utf8.map { Int($0 - ASCII.zero) }
        for delta in -2...2 {
          // magnitude + delta in decimal, by hand (no wider type needed).
          var result = digits
          var carry = delta
          var k = result.count - 1
          while carry != 0 && k >= 0 {
            let sum = result[k] + carry
            result[k] = (sum % 10 + 10) % 10
            carry = sum < 0 ? -1 : sum / 10
            k -= 1
          }
          var text = result.map(String.init).joined()
          if carry > 0 { text = "1" + text }
          text = String(text.drop { $0 == "0" })
          if text.isEmpty { text = "0" }
          texts += [text, "-" + text]
        }
      }
      for text in texts {
        let actual = integer(text, as: T.self)
        if actual != T(text) {
          failures.append("\(text) as \(T.self): \(String(describing: actual))")
        }
      }
    }
    check(Int.self)
    check(Int8.self)
    check(Int16.self)
    check(Int32.self)
    check(Int64.self)
    check(UInt.self)
    check(UInt8.self)
    check(UInt16.self)
    check(UInt32.self)
    check(UInt64.self)
    #expect(failures.isEmpty, "\(failures.count) mismatches, first \(failures.prefix(5))")
  }

  /// `1<1,000,001 zeros>e-1000002` is 0.1: not an integer. `0.<1,000,001 zeros>1e1000002` is 1.
  /// (Exponents past the integer reader's saturation, offset by the digits.)
  @Test func integerWithCompensatedHugeExponentIsExact() {
    let zeros = String(repeating: "0", count: 1_000_001)
    #expect(integer("1" + zeros + "e-1000002", as: Int.self) == nil)
    #expect(integer("0." + zeros + "1e1000002", as: Int.self) == 1)
  }

  /// Lexemes of the first test through the decoder, as top-level values, in arrays and as the
  /// last bytes of the document: what `JSONDecoder` gives.
  @Test func decodedNumbersAtTheEndOfTheDocumentMatchFoundation() throws {
    var random = SeededGenerator(state: 0xE0D_0F0D)
    for _ in 0..<400 {
      var text = String(Int.random(in: 1...9, using: &random))
      text += Self.digits(Int.random(in: 0...19, using: &random), &random)
      if Bool.random(using: &random) {
        text += "." + Self.digits(Int.random(in: 1...24, using: &random), &random)
      }
      if Bool.random(using: &random) { text = "-" + text }
      let foundation = try JSONDecoder().decode(Double.self, from: Data(text.utf8))
      #expect(try LenientDecoder().decode(Double.self, from: Data(text.utf8)) == foundation)
      let array = try LenientDecoder().decode([Double].self, from: Data("[\(text)]".utf8))
      #expect(array == [foundation], "\(text)")
      if !text.contains("."), let expected = Int64(text) {
        #expect(try LenientDecoder().decode(Int64.self, from: Data(text.utf8)) == expected)
      }
    }
  }
}
