import Foundation

/// SplitMix64: small, seeded, the same sequence on every platform, so a failing random case
/// names an input that reproduces.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The seeds and case counts of the generated tests: the defaults, unless the environment names
/// others (`ENVELOPEKIT_SEED=101,102,103`, `ENVELOPEKIT_CASES=5000`), so that a failing seed can
/// be rerun and new seeds tried without editing the tests. The default run is unchanged.
enum GeneratedRuns {
  static func seeds(default seeds: [UInt64]) -> [UInt64] {
    guard let text = ProcessInfo.processInfo.environment["ENVELOPEKIT_SEED"] else { return seeds }
    let named = text.split(separator: ",").compactMap {
      UInt64($0.trimmingCharacters(in: .whitespaces))
    }
    return named.isEmpty ? seeds : named
  }

  static func cases(default cases: Int) -> Int {
    guard let text = ProcessInfo.processInfo.environment["ENVELOPEKIT_CASES"],
      let named = Int(text), named > 0
    else { return cases }
    return named
  }
}
