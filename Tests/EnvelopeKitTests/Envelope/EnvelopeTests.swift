import Foundation
import Testing

@testable import EnvelopeKit

@Suite struct EnvelopeTests {
  struct Item: Codable, Equatable, Sendable { var price: Double }
  struct Page: Codable, Equatable, Sendable { var items: [Item] }
  enum AppError: Error, Equatable { case tokenExpired }

  @Test func codesCompareByCanonicalText() {
    #expect(EnvelopeCode(integerLiteral: 0) == "0")
    #expect(EnvelopeCode(stringLiteral: "000") != 0)
    #expect(EnvelopeCode(booleanLiteral: false) == "false")
    #expect(EnvelopeCode(stringLiteral: "200").intValue == 200)
    #expect(
      "\(EnvelopeError.business(code: 1001, message: "token expired"))"
        == #"business(code: 1001, message: "token expired")"#)
  }

  @Test func businessFailureNeverTouchesData() throws {
    let body = Data(#"{"code":7,"msg":"nope","data":{"items":"garbage"}}"#.utf8)
    #expect(throws: EnvelopeError.business(code: 7, message: "nope")) {
      try LenientDecoder().decodeEnvelope(Page.self, from: body)
    }
    var strict = LenientDecoder()
    strict.policy = .strict
    #expect(throws: EnvelopeError.business(code: 7, message: "nope")) {
      try strict.decodeEnvelope(Page.self, from: body)
    }
  }

  @Test func mappedErrorsReplaceBusiness() {
    let format = EnvelopeFormat.default.mappingErrors { status in
      status.code == 401 || status.code == 1001 ? AppError.tokenExpired : nil
    }
    #expect(throws: AppError.tokenExpired) {
      try LenientDecoder().decodeEnvelope(
        Page.self, from: Data(#"{"code":1001,"msg":"x"}"#.utf8), format: format)
    }
  }

  @Test func optionalCodeCountsAsSuccess() throws {
    let format = EnvelopeFormat(code: "code", message: "msg", data: "data").codeOptional()
    let page = try LenientDecoder().decodeEnvelope(
      Page.self, from: Data(#"{"data":{"items":[]}}"#.utf8), format: format)
    #expect(page == Page(items: []))
  }

  @Test func decodingErrorsCarryThePathFromTheRoot() throws {
    var strict = LenientDecoder()
    strict.policy = .strict
    let body = Data(
      #"{"code":0,"data":{"items":[{"price":1},{"price":2},{"price":3},{"price":"x"}]}}"#.utf8)
    let error = try #require(throws: DecodingError.self) {
      try strict.decodeEnvelope(Page.self, from: body)
    }
    guard case .typeMismatch(_, let context) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(formatCodingPath(context.codingPath) == "data.items[3].price")
  }

  @Test func rootModelWorksWithFoundation() throws {
    let decoder = JSONDecoder()
    decoder.userInfo[.envelopeFormat] = EnvelopeFormat(
      code: "status", message: "info", data: "result", success: ["ok"])
    let success = try decoder.decode(
      RootModel<Page>.self, from: Data(#"{"status":"ok","result":{"items":[{"price":1.5}]}}"#.utf8))
    #expect(try success.validate() == Page(items: [Item(price: 1.5)]))
    let failure = try decoder.decode(
      RootModel<Page>.self, from: Data(#"{"status":"denied","info":"no","result":{"bad":1}}"#.utf8))
    #expect(failure.data == nil)
    #expect(throws: EnvelopeError.business(code: "denied", message: "no")) {
      try failure.validate()
    }
    let missing = try decoder.decode(RootModel<Page>.self, from: Data(#"{"status":"ok"}"#.utf8))
    #expect(throws: EnvelopeError.missingData(code: "ok")) { try missing.validate() }
  }

  @Test func rootModelWithLenientDecoderUsesItsFormat() throws {
    var decoder = LenientDecoder()
    decoder.envelope = EnvelopeFormat(code: "errno", message: "errmsg", data: "data", success: [0])
    let model = try decoder.decode(
      RootModel<[Int]>.self, from: Data(#"{"errno":"0","data":["1",2]}"#.utf8))
    #expect(try model.validate() == [1, 2])
  }

  @Test func moyaMapperParityCalls() throws {
    let body = Data(
      #"{"code":0,"msg":"ok","data":{"items":[{"price":1}],"total":12345678901234567890}}"#.utf8)
    let decoder = LenientDecoder()
    #expect(
      try decoder.envelopeStatus(from: body)
        == EnvelopeStatus(code: 0, message: "ok", isSuccess: true))
    let result = try decoder.decodeEnvelopeResult(Page.self, from: body)
    #expect(result.status.isSuccess && result.value == Page(items: [Item(price: 1)]))
    let list = try decoder.decode([Item].self, from: body, at: "data.items")
    #expect(list == [Item(price: 1)])
    #expect(try decoder.text(at: "data.total", from: body) == "12345678901234567890")
    #expect(try decoder.text(at: "data.items", from: body) == #"[{"price":1}]"#)
    let failed = try decoder.decodeEnvelopeResult(
      Page.self, from: Data(#"{"code":3,"msg":"x"}"#.utf8))
    #expect(failed.status.isSuccess == false && failed.value == nil)
  }

  @Test func missingCodeIsAnError() {
    #expect(throws: EnvelopeError.missingCode) {
      try LenientDecoder().envelopeStatus(from: Data(#"{"msg":"ok"}"#.utf8))
    }
  }
}
