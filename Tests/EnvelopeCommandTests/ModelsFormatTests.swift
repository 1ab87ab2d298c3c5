import EnvelopeCommand
import EnvelopeKit
import Foundation
import Testing

/// `envelope models --format` and `inspect --format` for envelopes that are not `code/msg/data`,
/// and generated types nested in the root type.
@Suite struct ModelsFormatTests {
  let ret = #"{"retStatus":"000","retMsg":"ok","retBody":{"order_id":7,"issue":{"id":1}}}"#

  @Test(arguments: [#"retStatus,retMsg,retBody,000"#, #"retStatus,retMsg,retBody,"000""#])
  func inspectReadsALeadingZeroCodeAsTheStringItIsInTheSamples(format: String) {
    let outcome = run(["inspect", "r.json", "--format", format], files: ["r.json": ret])
    #expect(outcome.status == 0, "\(outcome.error)")
    #expect(outcome.output.hasPrefix("status   success"), "\(outcome.output)")
  }

  @Test func modelsWithAFormatAreOfItsDataAndTheDecoderSetsIt() {
    let outcome = run(
      ["models", "r.json", "--format", #"retStatus,retMsg,retBody,"000""#, "--name", "Order"],
      files: ["r.json": ret])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    #expect(source.contains("  let orderId: Int\n"))
    #expect(source.contains("LenientDecoder.forOrder().decodeEnvelope(Order.self, from: body)"))
    #expect(
      source.contains(
        #"    decoder.envelope = EnvelopeFormat(code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])"#
      ) || source.contains(#"success: ["000"]"#))
    #expect(source.contains(#"code: "retStatus""#))
    #expect(!source.contains(".plain"))
  }

  @Test func modelsRefuseAFormatUnderWhichASampleIsNotASuccess() {
    let outcome = run(
      ["models", "r.json", "--format", "retStatus,retMsg,retBody,0"], files: ["r.json": ret])
    #expect(outcome.status == 2)
    #expect(outcome.error.contains("r.json"), "\(outcome.error)")
    #expect(outcome.error.contains("000"), "\(outcome.error)")
  }

  @Test func nestedTypesAreNestedInTheRootType() {
    let body = #"{"list":[{"issue":{"id":1,"at":"2026-11-20T08:15:00Z"}}],"total":1}"#
    let source = run(["models", "p.json", "--name", "OrderPage"], files: ["p.json": body]).output
    #expect(source.contains("struct OrderPage: Codable, Sendable {\n  let list: [ListItem]\n"))
    #expect(
      source.contains("\n  struct ListItem: Codable, Sendable {\n    let issue: Issue\n  }\n"))
    #expect(source.contains("\n  struct Issue: Codable, Sendable {\n"))
    #expect(!source.contains("\nstruct Issue"))
    #expect(source.contains("decoder.transform(OrderPage.Issue.self, key: \"at\", .iso8601)"))
  }
}
