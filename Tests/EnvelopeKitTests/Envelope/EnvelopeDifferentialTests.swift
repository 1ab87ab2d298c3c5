import Foundation
import Testing

@testable import EnvelopeKit

// The envelope promise, checked by generation: `decodeEnvelope`, `RootModel` decoded by our
// decoder and `RootModel` decoded by Foundation's `JSONDecoder` give one answer for every
// generated envelope (`EnvelopeOracle`), minus the documented differences, which are checked on
// both sides below. `Fuzz/PromiseFuzzTarget.swift` runs the same oracle.

@Suite struct EnvelopeDifferentialTests {
  /// 8 seeds of 1,000 envelopes: 8,000 generated bodies, each read by three entry points in
  /// both policies. `ENVELOPEKIT_SEED` and `ENVELOPEKIT_CASES` run others (`GeneratedRuns`).
  static let seeds = GeneratedRuns.seeds(default: Array(5201...5208))
  static let casesPerSeed = GeneratedRuns.cases(default: 1_000)

  @Test(arguments: seeds)
  func everyEntryPointGivesOneAnswer(seed: UInt64) async {
    await oneHeavyAtATime { everyEntryPointGivesOneAnswerBody(seed: seed) }
  }

  func everyEntryPointGivesOneAnswerBody(seed: UInt64) {
    var source = SeededSource(seed: seed)
    var outcome = EnvelopeOracle.Outcome()
    for _ in 0..<Self.casesPerSeed { EnvelopeOracle.runOne(&source, into: &outcome) }
    let violations = outcome.violations.count
    #expect(
      violations == 0,
      """
      seed \(seed): \(violations) violations
      \(outcome.violations.prefix(8).joined(separator: "\n"))
      """)
    // The generator reaches every answer, and Foundation, to test them.
    for kind in ["value", "business", "missingCode", "invalidCode", "missingData", "decoding"] {
      #expect(outcome.kinds[kind, default: 0] > Self.casesPerSeed / 500, "seed \(seed): \(kind)")
    }
    #expect(outcome.lenientReported > Self.casesPerSeed / 20, "seed \(seed)")
    #expect(outcome.comparedWithFoundation == Self.casesPerSeed)
    #expect(outcome.documentedDifferences < Self.casesPerSeed / 3, "seed \(seed)")
  }

  static func body(_ text: String) -> Data { Data(text.utf8) }

  /// Data of another kind than the model (`[]` for a struct) is the payload, decoded as `T` by
  /// every entry point: leniently a reported fallback, strictly a type error; only null or
  /// missing data is `missingData`.
  @Test(arguments: [#"[]"#, #""x""#, "5", "true", #"[{"id":1}]"#])
  func dataOfAnotherKindIsThePayloadEverywhere(_ payload: String) throws {
    let body = Self.body(#"{"code":0,"msg":"ok","data":\#(payload)}"#)
    let lenient = LenientDecoder()
    let fromEnvelope = try lenient.decodeEnvelopeWithReport(EItem.self, from: body)
    let decoded = try lenient.decodeWithReport(RootModel<EItem>.self, from: body)
    #expect(try decoded.value.validate() == fromEnvelope.value)
    #expect(decoded.report.entries == fromEnvelope.report.entries)
    #expect(!fromEnvelope.report.isEmpty)
    let strict = LenientDecoder(policy: .strict)
    #expect(throws: DecodingError.self) { try strict.decodeEnvelope(EItem.self, from: body) }
    #expect(throws: DecodingError.self) { try strict.decode(RootModel<EItem>.self, from: body) }
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(RootModel<EItem>.self, from: body)
    }
  }

  /// A code is the integer it stands for at any size: `9223372036854775808.0` is the code
  /// `9223372036854775808` (a business failure) from every entry point, as its integer literal
  /// is; past 309 digits it is `invalidCode` from ours.
  @Test(arguments: [
    ("9223372036854775808.0", "9223372036854775808"),
    ("-9223372036854775809.0", "-9223372036854775809"),
    ("9223372036854775808", "9223372036854775808"),
    ("18446744073709551616e0", "18446744073709551616"),
    ("1e30", "1" + String(repeating: "0", count: 30)),
    ("1.2e19", "12000000000000000000"),
  ])
  func aCodePastIntIsThatInteger(_ literal: String, _ digits: String) throws {
    let body = Self.body(#"{"code":\#(literal),"msg":"m","data":{"id":1}}"#)
    let expected = EnvelopeError.business(
      code: EnvelopeCode(storage: .number(digits)), message: "m")
    for policy in [DecodingPolicy.lenient, .strict] {
      let decoder = LenientDecoder(policy: policy)
      #expect(throws: expected) { try decoder.decodeEnvelope(EItem.self, from: body) }
      #expect(try decoder.envelopeStatus(from: body).code?.stringValue == digits)
      let model = try decoder.decode(RootModel<EItem>.self, from: body)
      #expect(throws: expected) { try model.validate() }
    }
    let foundation = try JSONDecoder().decode(RootModel<EItem>.self, from: body)
    #expect(throws: expected) { try foundation.validate() }
    #expect(foundation.code?.description == digits)
  }

  @Test func aCodeOfMoreThan309DigitsIsInvalid() throws {
    let decoder = LenientDecoder()
    let longest = "9" + String(repeating: "0", count: 308)
    #expect(
      try decoder.envelopeStatus(from: Self.body(#"{"code":\#(longest)}"#)).code?.stringValue
        == longest)
    #expect(
      try decoder.envelopeStatus(from: Self.body(#"{"code":9e308}"#)).code?.stringValue == longest)
    for literal in ["1e309", "1" + String(repeating: "0", count: 309), "1e1000000000"] {
      #expect(throws: EnvelopeError.invalidCode(found: "number \(messageSnippet(literal))")) {
        try decoder.envelopeStatus(from: Self.body(#"{"code":\#(literal)}"#))
      }
    }
  }

  /// The documented differences (`EnvelopeOracle.documentedDifferences`), checked on both
  /// sides, so that a Foundation that starts to agree is noticed.
  @Test func documentedDifferences() throws {
    #expect(EnvelopeOracle.documentedDifferences.count == 3)
    let ours = LenientDecoder(policy: .strict)
    // 1. A number message: ours keeps the literal, JSONDecoder gives Decimal's text.
    for (literal, decimal) in [("1.50", "1.5"), ("1E2", "100")] {
      let body = Self.body(#"{"code":1,"msg":\#(literal)}"#)
      #expect(try ours.envelopeStatus(from: body).message == literal)
      #expect(try ours.decode(RootModel<EItem>.self, from: body).message == literal)
      #expect(try JSONDecoder().decode(RootModel<EItem>.self, from: body).message == decimal)
    }
    let hugeMessage = Self.body(#"{"code":1,"msg":1e400}"#)
    #expect(try ours.decode(RootModel<EItem>.self, from: hugeMessage).message == "1e400")
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(RootModel<EItem>.self, from: hugeMessage)
    }
    // 2. A code past Decimal's 38 digits is rounded by JSONDecoder; past Double it is unreadable.
    let digits40 = "1234567890123456789012345678901234567891"
    let long = Self.body(#"{"code":\#(digits40)}"#)
    #expect(try ours.decode(RootModel<EItem>.self, from: long).code?.stringValue == digits40)
    #expect(
      try JSONDecoder().decode(RootModel<EItem>.self, from: long).code?.stringValue != digits40)
    // Past Double's range JSONDecoder cannot read the code: ours is the integer up to 309
    // digits (5e308), invalidCode past them (1e400).
    let pastDouble = Self.body(#"{"code":5e308}"#)
    #expect(
      try ours.decode(RootModel<EItem>.self, from: pastDouble).code?.stringValue
        == "5" + String(repeating: "0", count: 308))
    let huge = Self.body(#"{"code":1e400}"#)
    #expect(throws: EnvelopeError.invalidCode(found: "number 1e400")) {
      try ours.decode(RootModel<EItem>.self, from: huge).validate()
    }
    for body in [pastDouble, huge] {
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(RootModel<EItem>.self, from: body)
      }
    }
    // 3. An invalid number code's snippet: JSONDecoder writes the number as Decimal does.
    let fraction = Self.body(#"{"code":1.50}"#)
    #expect(throws: EnvelopeError.invalidCode(found: "number 1.50")) {
      try ours.decode(RootModel<EItem>.self, from: fraction).validate()
    }
    #expect(throws: EnvelopeError.invalidCode(found: "number 1.5")) {
      try JSONDecoder().decode(RootModel<EItem>.self, from: fraction).validate()
    }
  }
}
