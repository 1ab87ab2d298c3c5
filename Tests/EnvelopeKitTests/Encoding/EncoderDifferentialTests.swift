import Foundation
import Testing

@testable import EnvelopeKit

// "Same bytes as JSONEncoder", checked by generation (`EncodingOracle`): generated values through
// every part of the Encoder API under every option, and the generated models of the invariant
// test, encoded by both encoders; the models also round-trip through a decoder's mapping.

@Suite struct EncoderDifferentialTests {
  /// `ENVELOPEKIT_SEED` and `ENVELOPEKIT_CASES` run other seeds and counts (`GeneratedRuns`).
  static let seeds = GeneratedRuns.seeds(default: Array(1...8))
  static let casesPerSeed = GeneratedRuns.cases(default: 600)

  @Test(arguments: seeds)
  func modelEncoderWritesWhatJSONEncoderWrites(seed: UInt64) async {
    await oneHeavyAtATime { modelEncoderWritesWhatJSONEncoderWritesBody(seed: seed) }
  }

  func modelEncoderWritesWhatJSONEncoderWritesBody(seed: UInt64) {
    var source = SeededSource(seed: seed)
    var outcome = EncodingOracle.Outcome()
    for _ in 0..<Self.casesPerSeed { EncodingOracle.runOne(&source, into: &outcome) }
    #expect(
      outcome.violations.isEmpty,
      "seed \(seed): \(outcome.violations.count) violations\n\(outcome.violations.prefix(6).joined(separator: "\n"))"
    )
    // Both sides of the comparison are reached.
    #expect(outcome.encoded > Self.casesPerSeed / 3, "seed \(seed): encoded \(outcome.encoded)")
    #expect(outcome.threw > Self.casesPerSeed / 50, "seed \(seed): threw \(outcome.threw)")
    #expect(outcome.roundTrips > Self.casesPerSeed / 10, "seed \(seed): \(outcome.roundTrips)")
  }
}
