import EnvelopeCommand
import EnvelopeKit
import Foundation
import Testing

/// `--enums` and `--require-keys`: closed sets of strings as enums with an unknown case, and a
/// decoder that never invents a missing value.
@Suite struct ModelsEnumTests {
  let orders = #"""
    [{"id":1,"status":"in_progress","note":"a"},{"id":2,"status":"done","note":"b"},
     {"id":3,"status":"done","note":"c"},{"id":4,"status":"in_progress","note":"d"}]
    """#

  @Test func aSmallClosedSetOfStringsIsAnEnumWithAnUnknownCase() {
    let outcome = run(["models", "o.json", "--enums"], files: ["o.json": orders])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    #expect(source.contains("  let status: Status\n"))
    #expect(source.contains("  let note: String\n"))  // four values in four samples: open
    #expect(
      source.contains(
        """
          enum Status: String, Codable, Sendable, CaseDefaultable {
            case inProgress = "in_progress"
            case done
            case unknown

            static let defaultCase = Status.unknown
          }
        """), "\(source)")
    #expect(
      source.contains(#"// Samples of "status" hold 2 values (--enums): any other is `unknown`"#))
    // Without the flag: strings.
    let plain = run(["models", "o.json"], files: ["o.json": orders]).output
    #expect(plain.contains("  let status: String\n"))
    #expect(!plain.contains("CaseDefaultable"))
  }

  @Test func aValueNamedUnknownIsTheFallbackAndKeywordsAreEscaped() {
    let body = #"[{"s":"unknown"},{"s":"default"},{"s":"unknown"},{"s":"default"}]"#
    let source = run(["models", "b.json", "--enums"], files: ["b.json": body]).output
    #expect(source.contains("    case unknown\n    case `default`\n\n"), "\(source)")
    #expect(source.contains("    static let defaultCase = S.unknown\n"))
  }

  @Test func theHeaderRecommendsMissingKeysErrorAndRequireKeysWritesIt() {
    let body = #"{"id":1}"#
    let plain = run(["models", "b.json"], files: ["b.json": body]).output
    #expect(plain.contains("// For models that must not invent values, set `missingKeys = .error`"))
    #expect(!plain.contains("base.missingKeys = .error"))
    let required = run(["models", "b.json", "--require-keys"], files: ["b.json": body]).output
    #expect(
      required.contains("    base.envelope = .plain\n    base.missingKeys = .error\n"),
      "\(required)")
    let enveloped = run(
      ["models", "e.json", "--envelope", "--require-keys"],
      files: ["e.json": #"{"code":0,"data":{"id":1}}"#]
    ).output
    #expect(
      enveloped.contains(
        "    var base = LenientDecoder(policy: policy)\n    base.missingKeys = .error\n"
          + "    return forRoot(base)\n"), "\(enveloped)")
  }
}
