import Foundation
import Testing

@testable import EnvelopeKit

/// `NumberParsing.float` rounds a lexeme's `Double` to `Float` only where that is the `Float`
/// nearest the text: against `Float(text)` (rounded once, from the text) to the bit, with the
/// same out-of-range rule, over generated lexemes, the points halfway between neighbouring
/// `Float`s (and text just either side of them), subnormals, overflow and underflow.
@Suite struct FloatParsingTests {
  /// The exact decimal text of `(2m + 1) * 2^(e - 1)`, the point halfway between the `Float`s
  /// `m * 2^e` and `(m + 1) * 2^e`.
  static func halfway(_ m: UInt64, _ e: Int) -> String {
    var digits = String(2 * m + 1).utf8.map { $0 - ASCII.zero }
    let power = e - 1
    if power >= 0 {
      for _ in 0..<power { digits = NumberFastPathTests.multiply(digits, by: 2) }
      return String(decoding: digits.map { $0 + ASCII.zero }, as: UTF8.self)
    }
    // Halving k times is multiplying by 5 k times and moving the point k places left.
    for _ in 0..<(-power) { digits = NumberFastPathTests.multiply(digits, by: 5) }
    return String(decoding: digits.map { $0 + ASCII.zero }, as: UTF8.self) + "e\(power)"
  }

  @Test func generatedLexemesMatchFloatFromText() async {
    await oneHeavyAtATime { generatedLexemesMatchFloatFromTextBody() }
  }

  func generatedLexemesMatchFloatFromTextBody() {
    for seed in GeneratedRuns.seeds(default: [0xF10A_7001]) {
      var random = SeededGenerator(state: seed)
      var failures: [String] = []
      for _ in 0..<GeneratedRuns.cases(default: 100_000) {
        var text =
          Bool.random(using: &random)
          ? NumberFastPathTests.shortLexeme(&random) : NumberFastPathTests.lexeme(&random)
        // Most of the 40-digit generator's exponents are past Float's range: bring half of
        // them into it.
        if Bool.random(using: &random), let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
          text = text[..<e] + "e" + String(Int.random(in: -50...40, using: &random))
        }
        if let failure = NumberOracle.floatMismatch(text) { failures.append(failure) }
      }
      #expect(
        failures.isEmpty, "seed \(seed): \(failures.count) mismatches, first \(failures.prefix(5))")
    }
  }

  /// Halfway points of normal and subnormal `Float`s, written exactly, one unit below in their
  /// last digit, with a `1` after them, and as the shortest text of their `Double` (a text near,
  /// not at, the halfway point that reads as the halfway `Double`: where rounding the `Double`
  /// would round a tie the text does not have).
  @Test func halfwayPointsMatchFloatFromText() {
    var random = SeededGenerator(state: 0xF10A_7A1F)
    var failures: [String] = []
    for round in 0..<4_000 {
      let subnormal = round % 4 == 0
      let m =
        subnormal
        ? UInt64.random(in: 0..<(1 << 23), using: &random)
        : UInt64.random(in: (1 << 23)..<(1 << 24), using: &random)
      // Normal Floats are m * 2^e with e in -149...104; subnormals m * 2^-149.
      let e = subnormal ? -149 : Int.random(in: -149...104, using: &random)
      let exact = Self.halfway(m, e)
      let mantissa = exact.prefix { $0 != "e" }
      let exponent = exact.dropFirst(mantissa.count)
      let last = Int(String(mantissa.last ?? "1")) ?? 1
      let below = mantissa.dropLast() + String(max(0, last - 1)) + exponent
      // One more digit: a tenth of a unit past it.
      let above =
        exponent.isEmpty
        ? mantissa + ".1" : mantissa + "1e\((Int(exponent.dropFirst()) ?? 0) - 1)"
      let point = Double(exact) ?? 0
      for text in [exact, String(below), String(above), "\(point)", "-\(exact)", "-\(point)"] {
        if let failure = NumberOracle.floatMismatch(text) { failures.append(failure) }
      }
    }
    #expect(failures.isEmpty, "\(failures.count) mismatches, first \(failures.prefix(5))")
  }

  static let edgeCases: [String] = [
    // The greatest Float, the halfway point past it (overflow), and around them.
    "3.4028234663852886e38", "3.4028235e38", "3.40282356779733661637539395458142568448e38",
    "3.40282356779733661637539395458142568447e38", "3.4028235677973366e38", "3.4028236e38",
    "1e39", "-1e39", "1e300",
    // The least normal Float, the greatest subnormal, the least subnormal and half of it.
    "1.17549435e-38", "1.1754942e-38",
    "1.17549421069244107548702944484928734882705242874589333385717453057158887e-38",
    "1.4e-45", "1.401298464324817e-45", "7.006492321624085e-46", "7.006492321624086e-46",
    "7.0064923216240854e-46", "7e-46", "1e-46", "-1e-46", "1e-50",
    // Zeros, short decimals, 2^24 and around it, the 0.1 family.
    "0", "-0", "0.0", "-0.0", "0e10", "12.5", "3.14", "-0.0625", "1999.99", "16777216",
    "16777217", "16777218", "16777219", "16777217.0", "1.6777217e7", "0.1", "0.2", "0.3",
    "1.00000005960464477539062", "1.000000059604644775390625", "1.00000005960464477539063",
  ]

  @Test(arguments: edgeCases)
  func edgeCaseMatchesFloatFromText(_ text: String) {
    #expect(NumberOracle.floatMismatch(text) == nil)
  }

  /// The decoder's `Float`, strict and lenient, is what it was: `Float(text)`, and the same
  /// error or report entry for a value out of `Float`'s range.
  @Test(arguments: [
    "[12.5, 3.14, -0.0625, 16777217, 1.000000059604644775390625]", "[1e39]", "[1e-46]",
  ])
  func decodedFloatsMatchFloatFromText(_ json: String) throws {
    let data = Data(json.utf8)
    let texts = json.dropFirst().dropLast().split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let expected = texts.map { NumberOracle.expectedFloat($0, allowsUnderflow: false) }
    let strict = LenientDecoder(policy: .strict)
    if expected.allSatisfy({ (try? $0.get()) != nil }) {
      let values = try strict.decode([Float].self, from: data)
      #expect(values.map(\.bitPattern) == expected.compactMap { try? $0.get().bitPattern })
      let lenient = try LenientDecoder().decodeWithReport([Float].self, from: data)
      #expect(lenient.value.map(\.bitPattern) == values.map(\.bitPattern))
      #expect(lenient.report.isEmpty)
    } else {
      #expect(throws: DecodingError.self) { try strict.decode([Float].self, from: data) }
      let lenient = try LenientDecoder().decodeWithReport([Float].self, from: data)
      #expect(!lenient.report.isEmpty)
    }
  }
}
