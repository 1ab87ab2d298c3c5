import Foundation
import Testing

@testable import EnvelopeKit

/// The number fast paths (digits read eight at a time, Clinger, Eisel-Lemire, the 18-digit
/// integer path) against the slow, obvious answers: `Double(String)` (correctly rounded) to the
/// bit, `Int64(String)` and friends, and a digit-at-a-time reader.
@Suite struct NumberFastPathTests {
  /// Lexemes of 1 to 40 significant digits with leading zeros, a decimal point anywhere (or
  /// none) and any exponent, written the ways JSON allows.
  static func lexeme(_ random: inout SeededGenerator) -> String {
    let count = Int.random(in: 1...40, using: &random)
    var digits = (0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) }
    // Runs of nines and zeros land near halfway points and powers of ten.
    if Int.random(in: 0..<4, using: &random) == 0 {
      let filler: Character = Bool.random(using: &random) ? "9" : "0"
      let from = Int.random(in: 0..<count, using: &random)
      for k in from..<count { digits[k] = filler }
    }
    digits[0] = Character(String(Int.random(in: 1...9, using: &random)))
    let zeros = String(
      repeating: "0", count: [0, 0, 0, 1, 5, 12][Int.random(in: 0..<6, using: &random)])
    let all = zeros + String(digits)
    var text: String
    let point = Int.random(in: 0...all.count, using: &random)
    if point == 0 || point == all.count || Int.random(in: 0..<5, using: &random) == 0 {
      text = String(all.drop { $0 == "0" })
      if text.isEmpty { text = "0" }
    } else {
      var integer = String(all.prefix(point).drop { $0 == "0" })
      if integer.isEmpty { integer = "0" }
      text = integer + "." + all.dropFirst(point)
    }
    switch Int.random(in: 0..<4, using: &random) {
    case 0: break
    case 1: text += "e" + String(Int.random(in: -30...30, using: &random))
    case 2: text += "E+" + String(Int.random(in: 0...330, using: &random))
    default: text += "e-" + String(Int.random(in: 0...360, using: &random))
    }
    return Bool.random(using: &random) ? "-" + text : text
  }

  @Test func generatedLexemesOfUpTo40DigitsMatchDoubleFromText() async {
    await oneHeavyAtATime { generatedLexemesOfUpTo40DigitsMatchDoubleFromTextBody() }
  }

  func generatedLexemesOfUpTo40DigitsMatchDoubleFromTextBody() {
    for seed in GeneratedRuns.seeds(default: [0x5EED_D16175]) {
      var random = SeededGenerator(state: seed)
      var failures: [String] = []
      for _ in 0..<GeneratedRuns.cases(default: 200_000) {
        if let failure = NumberOracle.doubleMismatch(Self.lexeme(&random)) {
          failures.append(failure)
        }
      }
      #expect(
        failures.isEmpty, "seed \(seed): \(failures.count) mismatches, first \(failures.prefix(5))")
    }
  }

  /// Short lexemes, the ones of 12 bytes or fewer that read their integer part and fraction a
  /// word each: 1 to 9 integer digits, none or 1 to 9 fraction digits (8 and 9 cross the word),
  /// either sign, sometimes an exponent.
  static func shortLexeme(_ random: inout SeededGenerator) -> String {
    func digits(_ count: Int) -> String {
      String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }
    var text = Bool.random(using: &random) ? "-" : ""
    let integerCount = Int.random(in: 1...9, using: &random)
    var integer = digits(integerCount).drop { $0 == "0" }
    if integer.isEmpty { integer = "0" }
    text += integer
    if Int.random(in: 0..<8, using: &random) != 0 {
      text += "." + digits(Int.random(in: 1...9, using: &random))
    }
    switch Int.random(in: 0..<8, using: &random) {
    case 0: text += "e" + String(Int.random(in: -30...30, using: &random))
    case 1: text += "E+" + String(Int.random(in: 0...9, using: &random))
    default: break
    }
    return text
  }

  @Test func generatedShortLexemesMatchDoubleFromText() {
    for seed in GeneratedRuns.seeds(default: [0x5407_F10A7]) {
      var random = SeededGenerator(state: seed)
      var failures: [String] = []
      var short = 0
      let cases = GeneratedRuns.cases(default: 200_000)
      for _ in 0..<cases {
        let text = Self.shortLexeme(&random)
        if text.utf8.count <= 12 { short += 1 }
        if let failure = NumberOracle.doubleMismatch(text) { failures.append(failure) }
      }
      #expect(short > cases / 2, "seed \(seed): most lexemes are short")
      #expect(
        failures.isEmpty, "seed \(seed): \(failures.count) mismatches, first \(failures.prefix(5))")
    }
  }

  /// Halfway points and their neighbours, 2^53 and around it, the ends of the normal and
  /// subnormal ranges, the 0.1 family, 19 and 20 digits, overflow and underflow.
  static let edgeCases: [String] = {
    [
      "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994",
      "9007199254740995", "9007199254740993.0", "9007199254740993e0", "900719925474099.3e1",
      "18014398509481985", "18014398509481987",
      "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
      "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
      "2.2250738585072014e-308", "2.2250738585072013e-308", "2.2250738585072012e-308",
      "2.2250738585072011e-308", "2.225073858507201136057409796709131975934819546351645648e-308",
      "4.9406564584124654e-324", "4.9406564584124655e-324", "2.4703282292062327e-324",
      "2.4703282292062328e-324", "2.47032822920623272088e-324", "3e-324", "7e-324",
      "1e-400", "-1e-400", "0.0000001e-320", "1e400", "-1e400", "1e309", "123456789e300",
      "0.1", "0.2", "0.3", "0.7", "0.01", "0.001", "1.1", "2.2", "3.3", "0.30000000000000004",
      "0.1000000000000000055511151231257827", "0.1000000000000000055511151231257828",
      "1.00000000000000011102230246251565404236316680908203125",
      "1.00000000000000011102230246251565404236316680908203124",
      "1.00000000000000011102230246251565404236316680908203126",
      "9999999999999999999", "10000000000000000000", "18446744073709551615",
      "18446744073709551616", "18446744073709551617", "1234567890123456789",
      "12345678901234567890", "0.1234567890123456789", "0.12345678901234567890",
      "1e22", "1e23", "1e-22", "1e-23", "8.988465674311579e307", "-0", "-0.0", "0e0", "-0e-0",
      "0.000000000000000000000000000000000000000000000000001", "00", "1.5", "12345678",
      "123456789", "1234567.8", "12345678.9", "-65.613616999999977", "65.6136169999999",
      "7.3177701707893310e+15", "3.4028235677973366e38", "1.17549435e-38",
      // Short lexemes around the word: 8 integer or fraction digits, 12 bytes and 13.
      "12345678.5", "1.12345678", "-1234567.8", "12345678.123", "-12345678.12", "0.123456789",
      "123456789012", "-99999999.99", "99999999.999", "1.5e-7", "-0.5", "0.0", "9.9e9",

    ]
  }()

  @Test(arguments: edgeCases)
  func edgeCaseMatchesDoubleFromText(_ text: String) {
    #expect(NumberOracle.doubleMismatch(text) == nil)
  }

  /// `digits * multiplier`, digits most significant first.
  static func multiply(_ digits: [UInt8], by multiplier: UInt8) -> [UInt8] {
    var result: [UInt8] = []
    var carry = 0
    for digit in digits.reversed() {
      let product = Int(digit) * Int(multiplier) + carry
      result.append(UInt8(product % 10))
      carry = product / 10
    }
    while carry > 0 {
      result.append(UInt8(carry % 10))
      carry /= 10
    }
    return result.reversed()
  }

  /// The exact decimal text of the point halfway between two neighbouring doubles
  /// (`(2m + 1) * 2^(e - 1)`), and of one unit in its last digit either side: the cases where
  /// rounding is decided by the last digit of a long lexeme.
  @Test func halfwayPointsMatchDoubleFromText() {
    var random = SeededGenerator(state: 0x4A1F_3A7)
    var failures: [String] = []
    for _ in 0..<5_000 {
      let significand = UInt64.random(in: (1 << 52)..<(1 << 53), using: &random)
      var digits = String(2 * significand + 1).utf8.map { $0 - ASCII.zero }
      // Halving j times is multiplying by 5 j times and moving the point j places left.
      let halvings = Int.random(in: 1...80, using: &random)
      let doublings = Int.random(in: 0...11, using: &random)
      if doublings > 0 && Bool.random(using: &random) {
        for _ in 0..<(doublings - 1) { digits = Self.multiply(digits, by: 2) }
        let text = String(decoding: digits.map { $0 + ASCII.zero }, as: UTF8.self)
        for candidate in [text, text + "e0", text + "e-1"] {
          if let failure = NumberOracle.doubleMismatch(candidate) { failures.append(failure) }
        }
        continue
      }
      for _ in 0..<halvings { digits = Self.multiply(digits, by: 5) }
      let text = String(decoding: digits.map { $0 + ASCII.zero }, as: UTF8.self)
      // `text` e-halvings is the halfway point itself; other exponents keep the long digits.
      let shift =
        Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: -250...250, using: &random) : 0
      let exponent = -halvings + shift
      let below = String(text.dropLast()) + String(Int(digits[digits.count - 1]) - 1)
      for candidate in [text, below, text + "1"] {
        if let failure = NumberOracle.doubleMismatch("\(candidate)e\(exponent)") {
          failures.append(failure)
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.count) mismatches, first \(failures.prefix(5))")
  }

  /// `DecimalDigits.run` at every start in lexemes around the word size, against a reader that
  /// takes one byte at a time.
  @Test func digitRunsMatchOneByteAtATime() {
    var random = SeededGenerator(state: 0xD161_7515)
    let alphabet = Array("0123456789.eE-+".utf8) + [0, 0x2F, 0x3A, 0x80, 0xFF, 0xBA]
    for _ in 0..<20_000 {
      let length = Int.random(in: 1...20, using: &random)
      let bytes = (0..<length).map { _ in
        Int.random(in: 0..<3, using: &random) == 0
          ? alphabet.randomElement(using: &random) ?? 0
          : UInt8.random(in: ASCII.zero...ASCII.nine, using: &random)
      }
      bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        for start in 0...length {
          let run = DecimalDigits.run(base, start, length)
          var count = 0
          var value: UInt64 = 0
          while count < 8, start + count < length, bytes[start + count] &- ASCII.zero < 10 {
            value = value * 10 + UInt64(bytes[start + count] &- ASCII.zero)
            count += 1
          }
          #expect(run.count == count && run.value == value, "\(bytes) from \(start)")
        }
      }
    }
  }

  func integer<T: FixedWidthInteger>(_ text: String, as type: T.Type) -> T? {
    var text = text
    return text.withUTF8 { try? NumberParsing.plainInteger($0).get() as T }
  }

  /// Integers of 1 to 21 digits, either sign, into every width: the value `T(text)` gives, or
  /// the failure it implies (`T(text)` is nil exactly when the value does not fit).
  @Test func generatedIntegersMatchIntegerFromText() {
    var random = SeededGenerator(state: 0x1D5_1D5)
    var failures: [String] = []
    func check<T: FixedWidthInteger>(_ text: String, _ type: T.Type) {
      if integer(text, as: T.self) != T(text) { failures.append("\(text) as \(T.self)") }
    }
    for _ in 0..<50_000 {
      let count = Int.random(in: 1...21, using: &random)
      var text = String(UInt64.random(in: 1...9, using: &random))
      text += (1..<count).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
      if Bool.random(using: &random) { text = "-" + text }
      check(text, Int.self)
      check(text, Int8.self)
      check(text, Int16.self)
      check(text, Int32.self)
      check(text, Int64.self)
      check(text, UInt.self)
      check(text, UInt8.self)
      check(text, UInt32.self)
      check(text, UInt64.self)
    }
    for text in [
      "0", "-0", "127", "128", "-128", "-129", "255", "256", "-1", "9223372036854775807",
      "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
      "18446744073709551615", "18446744073709551616", "999999999999999999",
      "-999999999999999999", "1000000000000000000", "505874924095815681",
    ] {
      check(text, Int8.self)
      check(text, UInt8.self)
      check(text, Int64.self)
      check(text, UInt64.self)
    }
    #expect(failures.isEmpty, "\(failures.count) mismatches, first \(failures.prefix(5))")
  }

  @Test(arguments: ["", "-", "1-", "12a", "--1", "1.5", "1e2", " 1", "123456789012345678x"])
  func nonDigitsAreInvalidIntegers(_ text: String) {
    var text = text
    let result = text.withUTF8 {
      NumberParsing.plainInteger($0) as Result<Int, NumberConversionFailure>
    }
    #expect(result == .failure(.invalid))
  }
}
