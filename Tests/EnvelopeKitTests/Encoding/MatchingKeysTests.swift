import Foundation
import Testing

@testable import EnvelopeKit

// "What the decoder reads, the matching encoder writes": keys `ModelEncoder(matching:)` writes
// read back through the decoder it matches, for every key decoding strategy.

/// A generated model's keys as `envelope models` writes them for PascalCase and acronym JSON.
private struct Generated: Codable, Equatable {
  var adaptivePlugin: Int
  var sctmExecutor: Int
  var urlscm: Int
  var firstName: Int

  enum CodingKeys: String, CodingKey {
    case adaptivePlugin = "AdaptivePlugin"
    case sctmExecutor = "SCTMExecutor"
    case urlscm = "URLSCM"
    case firstName
  }
}

/// A key that no JSON key reads back as under `.convertFromSnakeCase`.
private struct Unreadable: Codable, Equatable {
  var value: Int
  enum CodingKeys: String, CodingKey { case value = "first_name" }
}

@Suite struct MatchingKeysTests {
  @Test(arguments: [DecodingPolicy.strict, .lenient])
  func pascalCaseAndAcronymKeysReadBackUnderSnakeCase(_ policy: DecodingPolicy) throws {
    var decoder = LenientDecoder(policy: policy)
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let json = #"{"AdaptivePlugin":1,"SCTMExecutor":2,"URLSCM":3,"first_name":4}"#
    let model = try decoder.decode(Generated.self, from: Data(json.utf8))
    let written = try ModelEncoder(matching: decoder).encodeString(model)
    // camelCase keys as JSONEncoder's .convertToSnakeCase writes them; the others as they are.
    #expect(written == #"{"AdaptivePlugin":1,"SCTMExecutor":2,"URLSCM":3,"first_name":4}"#)
    #expect(try decoder.decode(Generated.self, from: Data(written.utf8)) == model)
  }

  @Test func aKeyNoJSONKeyReadsBackThrows() throws {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    #expect {
      try ModelEncoder(matching: decoder).encode(Unreadable(value: 1))
    } throws: { error in
      guard case EncodingError.invalidValue(let value, let context) = error else { return false }
      return value as? String == "first_name"
        && context.codingPath.map(\.stringValue) == ["first_name"]
        && context.debugDescription.contains("convertFromSnakeCase")
    }
    // Without `matching:` the encoder is JSONEncoder's: the key as .convertToSnakeCase makes it.
    var plain = ModelEncoder()
    plain.keyEncodingStrategy = .convertToSnakeCase
    #expect(try plain.encodeString(Unreadable(value: 1)) == #"{"first_name":1}"#)
  }

  /// Setting a key strategy yourself replaces the matched one.
  @Test func anExplicitKeyStrategyReplacesTheMatchedOne() throws {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    var encoder = ModelEncoder(matching: decoder)
    encoder.keyEncodingStrategy = .convertToSnakeCase
    #expect(try encoder.encodeString(Unreadable(value: 1)) == #"{"first_name":1}"#)
  }

  static let seeds: [UInt64] = Array(1...6)

  /// decode → encode → decode is the identity for generated keys of every case style, under
  /// every key strategy; a declared key is written so that it reads back, or throws when no
  /// JSON key does.
  @Test(arguments: seeds)
  func matchingEncoderWritesKeysItsDecoderReadsBack(seed: UInt64) {
    var source = SeededSource(seed: seed)
    var outcome = EncodingOracle.Outcome()
    for _ in 0..<400 { KeyRoundTripOracle.runOne(&source, into: &outcome) }
    #expect(
      outcome.violations.isEmpty,
      "seed \(seed): \(outcome.violations.count) violations\n\(outcome.violations.prefix(8).joined(separator: "\n"))"
    )
    #expect(outcome.roundTrips > 500, "seed \(seed): \(outcome.roundTrips) round trips")
    #expect(outcome.threw > 10, "seed \(seed): \(outcome.threw) unreadable keys")
  }
}
