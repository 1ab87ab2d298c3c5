import EnvelopeKit
import Foundation
import Testing

/// `EnvelopeFormat.plain`: no envelope, the whole body is the value, at every entry point.
struct PlainFormatTests {
  struct Repo: Codable, Equatable {
    var id: Int
    var code: Int
  }

  /// A body with a `code` member that would be a business failure under `.default`.
  static let body = Data(#"{"id":"7","code":1001,"msg":"not an envelope"}"#.utf8)

  static var plainDecoder: LenientDecoder {
    var decoder = LenientDecoder()
    decoder.envelope = .plain
    return decoder
  }

  @Test func theFlagIsOnPlainAndItsCopiesOnly() {
    #expect(EnvelopeFormat.plain.isPlain)
    #expect(EnvelopeFormat.plain.codeOptional().isPlain)
    #expect(!EnvelopeFormat.default.isPlain)
    #expect(!EnvelopeFormat(code: "code", data: "").isPlain)
  }

  @Test func decodeEnvelopeReadsTheWholeBody() throws {
    let expected = Repo(id: 7, code: 1001)
    #expect(
      try LenientDecoder().decodeEnvelope(Repo.self, from: Self.body, format: .plain) == expected)
    #expect(try Self.plainDecoder.decodeEnvelope(Repo.self, from: Self.body) == expected)
    // The report's paths are from the root: there is no `data.` in front.
    let decoded = try Self.plainDecoder.decodeEnvelopeWithReport(Repo.self, from: Self.body)
    #expect(decoded.report.entries.map(\.path) == ["id"])
    // A path is from the root too.
    #expect(
      try Self.plainDecoder.decodeEnvelope(String.self, from: Self.body, at: "msg")
        == "not an envelope")
    // Under the default format the same body is a business failure.
    #expect(throws: EnvelopeError.business(code: 1001, message: "not an envelope")) {
      try LenientDecoder().decodeEnvelope(Repo.self, from: Self.body)
    }
  }

  /// Issue 37: a missing code names every way out, `at:` (one call's body read with no
  /// envelope) among them.
  @Test func theMissingCodeNamesEveryWayOut() {
    let text = "\(EnvelopeError.missingCode)"
    for way in ["EnvelopeFormat.plain", "codeOptional()", "at: .root"] {
      #expect(text.contains(way), "\(text) does not name \(way)")
    }
  }

  @Test func theStatusIsASuccessWithoutCode() throws {
    let status = try Self.plainDecoder.envelopeStatus(from: Self.body)
    #expect(status == EnvelopeStatus(code: nil, message: nil, isSuccess: true))
    let result = try Self.plainDecoder.decodeEnvelopeResult(Repo.self, from: Self.body)
    #expect(result.value == Repo(id: 7, code: 1001))
    #expect(result.status.isSuccess)
  }

  @Test func nullAndMissingAreNotEmptyData() throws {
    // An envelope's null data is the empty payload; a plain body of null is a value like any
    // other: nil for an Optional, an error (strict) for an array.
    let null = Data("null".utf8)
    #expect(try Self.plainDecoder.decodeEnvelope(Repo?.self, from: null) == nil)
    var strict = Self.plainDecoder
    strict.policy = .strict
    #expect(throws: DecodingError.self) { try strict.decodeEnvelope([Repo].self, from: null) }
    #expect(throws: DecodingError.self) { try strict.decodeEnvelope(Repo.self, from: null) }
    #expect(throws: (any Error).self) {
      try strict.decodeEnvelope(Int.self, from: Self.body, at: "missing")
    }
  }

  @Test func rootModelUnderAnyDecoderHoldsTheBody() throws {
    let foundation = JSONDecoder()
    foundation.userInfo[.envelopeFormat] = EnvelopeFormat.plain
    let viaFoundation = try foundation.decode(RootModel<[String: JSON]>.self, from: Self.body)
    #expect(viaFoundation.code == nil)
    #expect(viaFoundation.message == nil)
    #expect(try viaFoundation.validate()["code"] == .number(JSONNumber(1001)))
    let viaLenient = try Self.plainDecoder.decode(RootModel<Repo>.self, from: Self.body)
    #expect(try viaLenient.validate() == Repo(id: 7, code: 1001))
  }
}
