import Foundation
import Testing

@testable import EnvelopeKit

// The promise, checked by generation: over seeded, generated inputs for every shape the public
// API offers (`PromiseGenerator`), lenient's report is empty exactly when strict decodes, and to
// the same value; lenient throws only where strict throws; and strict decodes what Foundation's
// `JSONDecoder` decodes (`PromiseOracle`). `Fuzz/PromiseFuzzTarget.swift` runs the same oracle.

@Suite struct ReportInvariantTests {
  /// 16 seeds of 1,300 cases: over 20,000 generated inputs (some cases check several decodes).
  /// `ENVELOPEKIT_SEED` and `ENVELOPEKIT_CASES` run other seeds and counts (`GeneratedRuns`).
  static let seeds = GeneratedRuns.seeds(default: Array(1...16))
  static let casesPerSeed = GeneratedRuns.cases(default: 1_300)

  @Test(arguments: seeds)
  func reportIsEmptyExactlyWhenStrictAgrees(seed: UInt64) async {
    await oneHeavyAtATime { reportIsEmptyExactlyWhenStrictAgreesBody(seed: seed) }
  }

  func reportIsEmptyExactlyWhenStrictAgreesBody(seed: UInt64) {
    var generator = PromiseGenerator(SeededSource(seed: seed))
    var violations: [String] = []
    var strictDecoded = 0
    var lenientReported = 0
    var comparedWithFoundation = 0
    for _ in 0..<Self.casesPerSeed {
      var outcome = PromiseOracle.Outcome()
      PromiseOracle.runOne(&generator, into: &outcome)
      violations += outcome.violations
      if outcome.strictDecoded { strictDecoded += 1 }
      if outcome.lenientReported { lenientReported += 1 }
      if outcome.comparedWithFoundation { comparedWithFoundation += 1 }
    }
    #expect(
      violations.isEmpty,
      "seed \(seed): \(violations.count) violations\n\(violations.prefix(8).joined(separator: "\n"))"
    )
    // The generator must produce both sides of the invariant, and reach Foundation, to test it.
    #expect(strictDecoded > Self.casesPerSeed / 10, "seed \(seed): strict decoded \(strictDecoded)")
    #expect(
      lenientReported > Self.casesPerSeed / 10, "seed \(seed): lenient reported \(lenientReported)")
    #expect(
      comparedWithFoundation > Self.casesPerSeed / 3, "seed \(seed): \(comparedWithFoundation)")
  }

  /// The generator reaches the depth limit through stringified JSON, so the depth rule is
  /// checked on both sides.
  @Test func theDepthRuleIsExercised() async {
    await oneHeavyAtATime { theDepthRuleIsExercisedBody() }
  }

  func theDepthRuleIsExercisedBody() {
    var generator = PromiseGenerator(SeededSource(seed: 7))
    var outcome = PromiseOracle.Outcome()
    for _ in 0..<3_000 { PromiseOracle.runOne(&generator, into: &outcome) }
    #expect(outcome.violations.isEmpty, "\(outcome.violations.prefix(3))")
    #expect(outcome.depthLimitsPassed > 5, "\(outcome.depthLimitsPassed)")
  }

  /// The number generator reaches the whole grammar: long mantissas, huge exponents, powers of
  /// two past UInt64.
  @Test func theNumberGeneratorCoversTheGrammar() {
    var generator = PromiseGenerator(SeededSource(seed: 99))
    let literals = (0..<5_000).map { _ in generator.numberLiteral() }
    #expect(literals.contains { $0.filter(\.isNumber).count >= 30 })
    #expect(literals.contains { $0.contains("e-3") || $0.contains("e-4") })
    #expect(literals.contains { $0.hasPrefix("340282366920938463463374607431768211") })
    #expect(
      literals.contains { $0 == "18446744073709551616" || $0.hasPrefix("18446744073709551616") })
    #expect(
      literals.allSatisfy { literal in
        Array(literal.utf8).withUnsafeBufferPointer { NumberParsing.isJSONNumber($0) }
      })
  }
}
