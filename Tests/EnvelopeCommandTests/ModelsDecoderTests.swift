import EnvelopeCommand
import EnvelopeKit
import Foundation
import Testing

/// The decoder a generated set declares: built on a factory that adds the set's needs to a
/// decoder it is given, so that several sets share one decoder and one provider.
@Suite struct ModelsDecoderTests {
  struct DecoderCase: Sendable, CustomTestStringConvertible {
    var name: String
    var arguments: [String]
    /// What `forRoot(policy:)` does before it hands its decoder on.
    var envelope: [String]
    var testDescription: String { name }
  }

  @Test(arguments: [
    DecoderCase(
      name: "plain", arguments: [], envelope: ["    base.envelope = .plain\n"]),
    DecoderCase(name: "default envelope", arguments: ["--envelope"], envelope: []),
    DecoderCase(
      name: "--format", arguments: ["--format", "code,msg,data,\"000\""],
      envelope: [#"    base.envelope = EnvelopeFormat("#, #"success: ["000"])"#]),
  ])
  func eachSetAddsItsTransformsToADecoderItIsGiven(_ decoderCase: DecoderCase) {
    let body = #"{"code":"000","msg":"ok","data":{"user":{"joined_at":"2026-11-20T08:15:00Z"}}}"#
    let plainBody = #"{"user":{"joined_at":"2026-11-20T08:15:00Z"}}"#
    let outcome = run(
      ["models", "b.json", "--name", "Profile"] + decoderCase.arguments,
      files: ["b.json": decoderCase.arguments.isEmpty ? plainBody : body])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    // The set's needs, added to any decoder: its policy and envelope stay.
    #expect(
      source.contains(
        """
          static func forProfile(_ base: LenientDecoder) -> LenientDecoder {
            var decoder = base
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.transform(Profile.User.self, key: "joinedAt", .iso8601)
            return decoder
          }

        """), "\(source)")
    // `forProfile(policy:)` stays, built on it.
    #expect(source.contains("  static func forProfile(policy: DecodingPolicy = .lenient) -> "))
    if decoderCase.envelope.isEmpty {
      #expect(source.contains("    forProfile(LenientDecoder(policy: policy))\n"))
    } else {
      #expect(source.contains("    var base = LenientDecoder(policy: policy)\n"))
      for line in decoderCase.envelope { #expect(source.contains(line), "\(source)") }
      #expect(source.contains("    return forProfile(base)\n"))
    }
    #expect(source.contains("// Beside another generated set of the same API, on one decoder: "))
  }
}
