import Foundation
import Testing

@testable import EnvelopeKit

@Suite struct EnvelopePathTests {
  struct Item: Codable, Equatable, Sendable { var price: Double }

  let body = Data(
    #"{"code":0,"msg":"ok","data":{"page":2,"list":[{"price":1},{"price":2},{"price":3},{"price":"x"}]}}"#
      .utf8)

  @Test func anObjectAnArrayAndAScalarInsideData() throws {
    struct Page: Decodable { var page: Int }
    let decoder = LenientDecoder()
    #expect(try decoder.decodeEnvelope(Int.self, from: body, at: "page") == 2)
    #expect(try decoder.decodeEnvelope(Item.self, from: body, at: ["list", 1]) == Item(price: 2))
    #expect(try decoder.decodeEnvelope(Page.self, from: body, at: .root).page == 2)
    let bank = Data(#"{"status":0,"result":{"body":{"rows":[{"price":9}]}}}"#.utf8)
    var custom = LenientDecoder()
    custom.envelope = EnvelopeFormat(
      code: "status", messages: ["message"], data: JSONPath("result>body", separator: ">"),
      success: [0])
    #expect(try custom.decodeEnvelope([Item].self, from: bank, at: "rows") == [Item(price: 9)])
  }

  @Test func errorPathsStartAtTheDocumentRoot() {
    for policy in [DecodingPolicy.lenient, .strict] {
      var decoder = LenientDecoder()
      decoder.policy = policy
      do {
        _ = try decoder.decodeEnvelope([Item].self, from: body, at: "list")
        if policy == .strict { Issue.record("\"x\" decoded as a Double") }
      } catch DecodingError.typeMismatch(_, let context) {
        #expect(context.codingPath.map(\.stringValue) == ["data", "list", "Index 3", "price"])
      } catch {
        Issue.record("\(error)")
      }
    }
    let report = try? LenientDecoder().decodeEnvelopeWithReport([Item].self, from: body, at: "list")
      .report
    #expect(report?.entries.first?.path == "data.list[3].price")
  }

  @Test func aMissingPathIsKeyNotFoundAndAnOptionalIsNil() throws {
    #expect(try LenientDecoder().decodeEnvelope([Item]?.self, from: body, at: "items") == nil)
    #expect {
      try LenientDecoder().decodeEnvelope([Item].self, from: body, at: "items")
    } throws: { error in
      guard case DecodingError.keyNotFound(let key, let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["data"] && key.stringValue == "items"
    }
    let noData = Data(#"{"code":0}"#.utf8)
    #expect(throws: EnvelopeError.missingData(code: 0)) {
      try LenientDecoder().decodeEnvelope([Item].self, from: noData, at: "list")
    }
  }

  @Test func aBusinessFailureNeverTouchesData() {
    let failed = Data(#"{"code":9,"msg":"no","data":{"list":"garbage"}}"#.utf8)
    for policy in [DecodingPolicy.lenient, .strict] {
      var decoder = LenientDecoder()
      decoder.policy = policy
      #expect(throws: EnvelopeError.business(code: 9, message: "no")) {
        try decoder.decodeEnvelope([Item].self, from: failed, at: "list")
      }
    }
  }
}
