import Foundation
import Testing

@testable import EnvelopeKit

// `ModelEncoder` writes a Double or Float with its own shortest-digit writer (`ShortestDecimal`)
// and must write exactly what JSONEncoder writes: checked on a table of edge cases against
// JSONEncoder itself, and by generation (`FloatingPointOracle`) against `description`.

@Suite struct FloatingPointTextTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let value: Double
    let text: String
    var testDescription: String { text }
  }

  static let doubleCases: [Case] = [
    Case(value: 0, text: "0"),
    Case(value: -0.0, text: "-0"),
    Case(value: 1, text: "1"),
    Case(value: -1, text: "-1"),
    Case(value: 100, text: "100"),
    Case(value: 0.1, text: "0.1"),
    Case(value: 0.3, text: "0.3"),
    Case(value: 1.0 / 3, text: "0.3333333333333333"),
    Case(value: 123.456, text: "123.456"),
    Case(value: 1e-4, text: "0.0001"),
    Case(value: 0.00012, text: "0.00012"),
    Case(value: 9.999e-5, text: "9.999e-05"),
    Case(value: 1e-5, text: "1e-05"),
    Case(value: 2.5e-5, text: "2.5e-05"),
    Case(value: 1e15, text: "1000000000000000"),
    Case(value: 123_456_789_012_345.6, text: "123456789012345.6"),
    Case(value: 9_007_199_254_740_991, text: "9007199254740991"),
    Case(value: 9_007_199_254_740_992, text: "9007199254740992"),
    Case(value: 9_007_199_254_740_994, text: "9.007199254740994e+15"),
    Case(value: 18_014_398_509_481_984, text: "1.8014398509481984e+16"),
    Case(value: 1e16, text: "1e+16"),
    Case(value: 1.5e16, text: "1.5e+16"),
    Case(value: 1e20, text: "1e+20"),
    Case(value: 1e21, text: "1e+21"),
    Case(value: 1e22, text: "1e+22"),
    Case(value: 1e23, text: "1e+23"),
    Case(value: 123_456_789_012_345_683_968, text: "1.2345678901234568e+20"),
    Case(value: 1e100, text: "1e+100"),
    Case(value: 1.5e-10, text: "1.5e-10"),
    Case(value: 1e-100, text: "1e-100"),
    Case(value: .greatestFiniteMagnitude, text: "1.7976931348623157e+308"),
    Case(value: -.greatestFiniteMagnitude, text: "-1.7976931348623157e+308"),
    Case(value: .leastNormalMagnitude, text: "2.2250738585072014e-308"),
    Case(value: Double.leastNormalMagnitude.nextDown, text: "2.225073858507201e-308"),
    Case(value: .leastNonzeroMagnitude, text: "5e-324"),
    Case(value: -.leastNonzeroMagnitude, text: "-5e-324"),
    Case(value: Double(bitPattern: 2), text: "1e-323"),
    Case(value: Double(bitPattern: 16), text: "8e-323"),
    Case(value: Double(bitPattern: 0x000F_FFFF_FFFF_FFFF), text: "2.225073858507201e-308"),
    // Powers of two whose lower neighbour is closer than the upper one.
    Case(value: 0x1p-1022 * 2, text: "4.450147717014403e-308"),
    Case(value: 0x1p60, text: "1.152921504606847e+18"),
    Case(value: 0x1p-60, text: "8.673617379884035e-19"),
    Case(value: 0x1p1023, text: "8.98846567431158e+307"),
    // Ties broken by the last digit's parity, and two digits ending in zero.
    Case(value: Double(bitPattern: 3), text: "1.5e-323"),
    Case(value: 4.35, text: "4.35"),
    Case(value: 2.0e-7, text: "2e-07"),
    Case(value: 1_234_567.0, text: "1234567"),
    Case(value: 0.000_123_456_789_012_345_67, text: "0.00012345678901234567"),
  ]

  @Test(arguments: doubleCases)
  func doubleIsWrittenAsJSONEncoderWritesIt(_ row: Case) throws {
    // The table is JSONEncoder's own output (a row that drifts from it fails here first).
    let foundation = try JSONEncoder().encode([row.value])
    #expect(String(decoding: foundation, as: UTF8.self) == "[\(row.text)]")
    #expect(ShortestDecimal.text(row.value) == row.text)
    #expect(try ModelEncoder().encode([row.value]) == foundation)
    #expect(try ModelEncoder().encode(row.value) == JSONEncoder().encode(row.value))
  }

  static let floatCases: [(Float, String)] = [
    (0, "0"), (-0.0, "-0"), (1, "1"), (0.1, "0.1"), (1.0 / 3, "0.33333334"),
    (16_777_216, "16777216"), (16_777_218, "1.6777218e+07"), (33_554_432, "3.3554432e+07"),
    (1e7, "10000000"), (1e8, "1e+08"), (1e-4, "0.0001"), (1e-5, "1e-05"),
    (.greatestFiniteMagnitude, "3.4028235e+38"), (.leastNormalMagnitude, "1.1754944e-38"),
    (.leastNonzeroMagnitude, "1e-45"), (Float(bitPattern: 2), "3e-45"),
    (Float(bitPattern: 7), "1e-44"), (Float(bitPattern: 8), "1.1e-44"), (0x1p60, "1.1529215e+18"),
  ]

  @Test func floatIsWrittenAsJSONEncoderWritesIt() throws {
    for (value, text) in Self.floatCases {
      let foundation = try JSONEncoder().encode([value])
      #expect(String(decoding: foundation, as: UTF8.self) == "[\(text)]")
      #expect(ShortestDecimal.text(value) == text, "\(text)")
      #expect(try ModelEncoder().encode([value]) == foundation, "\(text)")
    }
  }

  /// `ENVELOPEKIT_SEED` and `ENVELOPEKIT_CASES` run other seeds and counts (`GeneratedRuns`).
  static let seeds = GeneratedRuns.seeds(default: [1, 2, 3, 4])
  static let casesPerSeed = GeneratedRuns.cases(default: 12_000)

  @Test(arguments: seeds)
  func generatedDoublesAndFloatsAreWrittenAsJSONEncoderWritesThem(seed: UInt64) {
    var source = SeededSource(seed: seed)
    var outcome = EncodingOracle.Outcome()
    // Batches of 200: each value against `description`, each batch against JSONEncoder.
    for _ in 0..<(Self.casesPerSeed / 200) {
      FloatingPointOracle.runBatch(&source, count: 200, into: &outcome)
    }
    #expect(
      outcome.violations.isEmpty,
      "seed \(seed): \(outcome.violations.count) violations\n\(outcome.violations.prefix(6).joined(separator: "\n"))"
    )
    #expect(outcome.encoded == 2 * (Self.casesPerSeed / 200))
  }

  /// The generator reaches every kind of value it is meant to.
  @Test func generatorReachesEveryKindOfValue() {
    var generator = FloatingPointGenerator(SeededSource(seed: 7))
    let doubles = (0..<4_000).map { _ in generator.double() }
    #expect(doubles.contains { $0.isSubnormal && $0.bitPattern & 0xFFFF_FFFF < 1_000 })
    #expect(doubles.contains { $0.magnitude < 1e-4 && $0.magnitude > 1e-5 })
    #expect(doubles.contains { $0.magnitude > 0x1p53 && $0.magnitude < 1e17 })
    #expect(doubles.contains { $0.magnitude > 1e300 })
    #expect(doubles.contains { $0 < 0 })
    #expect(doubles.contains { $0 == $0.rounded() && $0.magnitude < 0x1p53 && $0 != 0 })
    let floats = (0..<2_000).map { _ in generator.float() }
    #expect(floats.contains { $0.isSubnormal })
    #expect(floats.contains { $0.magnitude > 0x1p24 && $0.magnitude < 1e9 })
  }
}
