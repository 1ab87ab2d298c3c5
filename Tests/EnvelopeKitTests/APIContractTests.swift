import EnvelopeKit
import Foundation
import Testing

// The public contract of ../shared/API.md, spelled exactly as it is written there and imported
// without `@testable`, as a user (and the acceptance checks) see it. Each test names the API.md
// section it holds to; a name or label that drifts stops this file compiling.

// MARK: - Models the contract's examples use

private struct User: Codable, Equatable, Sendable {
  var id: Int
  var name: String
}

private struct ContractItem: Codable, Equatable, Sendable {
  var name: String
}

private struct Lenient: LenientDecodable, Equatable {
  var count = 7
  var label = "none"
  init() {}
}

private enum Color: String, CaseDefaultable, Equatable {
  case red, green, unknown
  static var defaultCase: Color { .unknown }
}

private struct Profile: Codable, Equatable, Sendable {
  var name: String
}

private struct Event: Codable, Equatable, Sendable {
  var at: Date
}

private struct Finishing: Decodable, DecodingFinishing, Equatable {
  var first: String
  var last: String
  var full = ""
  enum CodingKeys: String, CodingKey { case first, last }
  mutating func didFinishDecoding() { full = first + " " + last }
}

private struct ContractCircle: Codable, Equatable, Sendable { var radius: Double }
private struct ContractSquare: Codable, Equatable, Sendable { var side: Double }

private enum ContractShape: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
  case circle(ContractCircle)
  case square(ContractSquare)
  case other(String)

  static var tagPath: JSONPath { "type" }
  static var variants: [String: TaggedVariant<ContractShape>] {
    [
      "circle": TaggedVariant(ContractCircle.self) { .circle($0) },
      "square": TaggedVariant(ContractSquare.self, at: "payload") { .square($0) },
    ]
  }
  static func unknown(tag: String?, json: JSON) -> ContractShape? { .other(tag ?? "") }

  var tag: String {
    switch self {
    case .circle: "circle"
    case .square: "square"
    case .other(let tag): tag
    }
  }
  var variantValue: any Encodable {
    switch self {
    case .circle(let circle): circle
    case .square(let square): square
    case .other: [String: String]()
    }
  }
}

private struct Open: Codable, Equatable, Sendable {
  var id: Int
  @UnknownKeys var others: [String: JSON]
}

private func bytes(_ text: String) -> Data { Data(text.utf8) }

// MARK: - First round: EnvelopeKit

@Suite struct APIContractTests {
  @Test func jsonPathSpellingsAgree() {
    let text: JSONPath = "data.items.0.name"
    let components = JSONPath(["data", "items", 0, "name"])
    let literal: JSONPath = ["data", "items", 0, "name"]
    #expect(text == components)
    #expect(literal == components)
    #expect(JSONPath("data.items.0.name") == text)
    #expect(JSONPath("error>msg", separator: ">") == JSONPath(["error", "msg"]))
    #expect(JSONPath("a>b", separator: ".") == JSONPath(["a>b"]))
    #expect(JSONPath([JSONPath.Component.key("a.b"), .index(0)]) == ["a.b", 0])
    let component: JSONPath.Component = 3
    #expect(component == .index(3))
    #expect(!text.description.isEmpty)
    // Third round: a string literal without "." splits on ">".
    let moya: JSONPath = "data>list"
    #expect(moya == ["data", "list"])
  }

  @Test func jsonReadsRawValues() throws {
    let json = try JSON(
      data: bytes(#"{"data":{"a.b":1,"items":[{"name":"x","n":1.10,"ok":true}]},"z":null}"#))
    #expect(json["data.items.0.name"] == .string("x"))
    #expect(json[["data", "a.b"]]?.rawText == "1")
    #expect(json["data.items.0.n"]?.stringValue == "1.10")
    #expect(json["data.items.0.ok"]?.stringValue == "true")
    #expect(json["data.items.0.missing"] == nil)
    #expect(json["z"] == .null)
    guard case .number(let number)? = json["data.items.0.n"] else {
      Issue.record("expected a number")
      return
    }
    #expect(number.text == "1.10")
    #expect(json["data.items"]?.rawText == #"[{"name":"x","n":1.10,"ok":true}]"#)
    let cases: [JSON] = [.null, .bool(true), .string("s"), .array([]), .number(number)]
    #expect(cases.count == 5)
    if case .object(let object)? = json["data"] {
      #expect(object.map { $0.0 } == ["a.b", "items"])  // key order kept
    } else {
      Issue.record("expected an object")
    }
  }

  @Test func jsonErrorsCarryOffsetLineAndColumn() {
    do {
      _ = try JSON(data: bytes("{\n  \"a\": tru\n}"))
      Issue.record("expected a throw")
    } catch {
      let text = "\(error)"
      #expect(text.contains("line 2"), "\(text)")
      #expect(text.contains("column"), "\(text)")
      #expect(text.contains("offset"), "\(text)")
    }
  }

  @Test func jsonNumberKeepsTheLexeme() throws {
    let text = "123456789012345678901234567890.000000000000000000001"
    let json = try JSON(data: bytes(text))
    guard case .number(let number) = json else {
      Issue.record("expected a number")
      return
    }
    #expect(number.text == text)
  }

  @Test func lenientDecoderDefaultsAndProperties() throws {
    var decoder = LenientDecoder()
    #expect(decoder.policy == .lenient)
    #expect(decoder.maxDepth == 512)
    #expect(decoder.missingKeys == .fallBack)
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.keyDecodingStrategy = .useDefaultKeys
    decoder.dateDecodingStrategy = .iso8601
    decoder.dateDecodingStrategy = .secondsSince1970
    decoder.dateDecodingStrategy = .millisecondsSince1970
    decoder.dateDecodingStrategy = .deferredToDate
    decoder.envelope = .default
    decoder.userInfo = [CodingUserInfoKey.envelopeFormat: EnvelopeFormat.default]
    decoder.maxDepth = 10
    decoder.policy = .strict
    let policies: [DecodingPolicy] = [.lenient, .strict]
    #expect(policies.count == 2)
    struct Snake: Decodable { var userName: String }
    var snake = LenientDecoder()
    snake.keyDecodingStrategy = .convertFromSnakeCase
    #expect(try snake.decode(Snake.self, from: bytes(#"{"user_name":"a"}"#)).userName == "a")
    var custom = LenientDecoder()
    custom.keyDecodingStrategy = .custom { path in path[path.count - 1] }
    #expect(try custom.decode(Snake.self, from: bytes(#"{"userName":"a"}"#)).userName == "a")
  }

  @Test func decodeForms() throws {
    let decoder = LenientDecoder()
    let body = bytes(#"{"data":{"items":[{"name":"a"},{"name":"b"}]}}"#)
    let items: [ContractItem] = try decoder.decode(
      [ContractItem].self, from: body, at: "data.items")
    #expect(items == [ContractItem(name: "a"), ContractItem(name: "b")])
    #expect(try decoder.decode(User.self, from: bytes(#"{"id":"18","name":"Ada"}"#)).id == 18)
    let result: Decoded<User> = try decoder.decodeWithReport(
      User.self, from: bytes(#"{"data":{"id":"18","name":"Ada"}}"#), at: "data")
    #expect(result.value == User(id: 18, name: "Ada"))
    #expect(!result.report.isEmpty)
    let entry = try #require(result.report.entries.first)
    #expect(entry.path == "data.id")
    #expect(entry.kind == .coerced)
    #expect(entry.expected == "Int")
    #expect(entry.found == #"string "18""#)
    #expect(Array(result.report).count == result.report.entries.count)
    #expect(result.report.description.contains("data.id"))
    let plain = try decoder.decodeWithReport(User.self, from: bytes(#"{"id":1,"name":"a"}"#))
    #expect(plain.report.isEmpty)
  }

  @Test func reportPathsUseBracketsForIndexes() throws {
    struct Person: Decodable { var age: Int }
    struct Page: Decodable { var items: [Person] }
    let body = bytes(#"{"data":{"items":[{"age":1},{"age":2},{"age":"18"}]}}"#)
    let result = try LenientDecoder().decodeWithReport(Page.self, from: body, at: "data")
    #expect(result.report.entries.map(\.path) == ["data.items[2].age"])
  }

  @Test(arguments: [#"{"count":null,"label":5}"#, "{}", #"{"count":"x"}"#])
  func lenientDecodableFallsBackToInitialValues(body: String) throws {
    let result = try LenientDecoder().decodeWithReport(Lenient.self, from: bytes(body))
    #expect(result.value.count == 7)
    #expect(result.report.entries.contains { $0.kind == .defaulted && $0.path == "count" })
  }

  @Test func reportKindsHaveTheFourNames() {
    let kinds: [DecodingReport.Entry.Kind] = [.coerced, .defaulted, .dropped, .nulled]
    #expect(Set(kinds).count == 4)
  }

  @Test func caseDefaultableTakesTheDefaultCase() throws {
    struct Box: Decodable { var color: Color }
    let decoded = try LenientDecoder().decode(Box.self, from: bytes(#"{"color":"purple"}"#))
    #expect(decoded.color == .unknown)
    let missing = try LenientDecoder().decode(Box.self, from: bytes(#"{}"#))
    #expect(missing.color == .unknown)
  }

  @Test func envelopeCodesCompareByCanonicalText() {
    let zero: EnvelopeCode = 0
    let text: EnvelopeCode = "0"
    let padded: EnvelopeCode = "000"
    let no: EnvelopeCode = false
    #expect(zero == text)
    #expect(padded != zero)
    #expect(no == "false")
    #expect(zero.intValue == 0)
    #expect(padded.stringValue == "000")
    #expect(no.intValue == nil)
    #expect(zero.description == "0")
    #expect(Set<EnvelopeCode>([0, "0"]).count == 1)
  }

  @Test func envelopeFormats() throws {
    let standard = EnvelopeFormat.default
    let built = EnvelopeFormat(code: "code", message: "msg", data: "data", success: [0])
    let defaulted = EnvelopeFormat()
    let closure = EnvelopeFormat(
      code: "retStatus", message: "retMsg", data: "retBody", isSuccess: { $0 == "000" })
    let decoder = LenientDecoder()
    for format in [standard, built, defaulted] {
      let status = try decoder.envelopeStatus(
        from: bytes(#"{"code":0,"message":"hi","data":1}"#), format: format)
      #expect(status.isSuccess)
    }
    // "msg" then "message".
    let status: EnvelopeStatus = try decoder.envelopeStatus(
      from: bytes(#"{"code":3,"message":"later"}"#))
    #expect(status == EnvelopeStatus(code: 3, message: "later", isSuccess: false))
    let first = try decoder.envelopeStatus(from: bytes(#"{"code":3,"msg":"a","message":"b"}"#))
    #expect(first.message == "a")
    let bank = try decoder.envelopeStatus(
      from: bytes(#"{"retStatus":"000","retMsg":"ok"}"#), format: closure)
    #expect(bank.isSuccess)
    #expect(bank.code == "000")
    #expect(bank.message == "ok")
  }

  @Test func decodeEnvelopeChecksTheCodeBeforeData() throws {
    let decoder = LenientDecoder()
    #expect(throws: EnvelopeError.business(code: 1001, message: "expired")) {
      try decoder.decodeEnvelope(
        User.self, from: bytes(#"{"code":1001,"msg":"expired","data":"garbage"}"#))
    }
    #expect(throws: EnvelopeError.missingCode) {
      try decoder.decodeEnvelope(User.self, from: bytes(#"{"data":{"id":1,"name":"a"}}"#))
    }
    #expect(throws: EnvelopeError.missingData(code: 0)) {
      try decoder.decodeEnvelope(User.self, from: bytes(#"{"code":0,"msg":"ok"}"#))
    }
    let user = try decoder.decodeEnvelope(
      User.self, from: bytes(#"{"code":0,"data":{"id":"2","name":"b"}}"#), format: nil)
    #expect(user == User(id: 2, name: "b"))
    let bank = EnvelopeFormat(
      code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])
    let fromBank = try decoder.decodeEnvelope(
      User.self, from: bytes(#"{"retStatus":"000","retBody":{"id":3,"name":"c"}}"#), format: bank)
    #expect(fromBank.id == 3)
    let optional = try decoder.decodeEnvelope(User?.self, from: bytes(#"{"code":0}"#))
    #expect(optional == nil)
  }

  @Test func envelopeFormatOnTheDecoderApplies() throws {
    var decoder = LenientDecoder()
    decoder.envelope = EnvelopeFormat(code: "status", message: "info", data: "result", success: [1])
    let user = try decoder.decodeEnvelope(
      User.self, from: bytes(#"{"status":1,"result":{"id":4,"name":"d"}}"#))
    #expect(user.id == 4)
  }

  @Test(arguments: ["null", "[0]", #"{"a":0}"#, "1.5"])
  func invalidCodesThrowOneAnswerEverywhere(code: String) throws {
    let body = bytes(#"{"code":\#(code),"msg":"m","data":{"id":1,"name":"a"}}"#)
    let decoder = LenientDecoder()
    let fromEnvelope = try #require(throws: EnvelopeError.self) {
      try decoder.decodeEnvelope(User.self, from: body)
    }
    let fromStatus = try #require(throws: EnvelopeError.self) {
      try decoder.envelopeStatus(from: body)
    }
    // RootModel keeps the status it read and answers with validate() (API.md's
    // ModelVerifiable), so decode + validate agrees with decodeEnvelope under any Decoder.
    let foundationRoot = try JSONDecoder().decode(RootModel<User>.self, from: body)
    let fromRoot = try #require(throws: EnvelopeError.self) { try foundationRoot.validate() }
    let lenientRoot = try decoder.decode(RootModel<User>.self, from: body)
    let fromLenientRoot = try #require(throws: EnvelopeError.self) { try lenientRoot.validate() }
    #expect(foundationRoot.code == nil)
    guard case .invalidCode = fromEnvelope else {
      Issue.record("expected invalidCode, got \(fromEnvelope)")
      return
    }
    #expect(fromStatus == fromEnvelope)
    #expect(fromRoot == fromEnvelope)
    #expect(fromLenientRoot == fromEnvelope)
  }

  @Test func rootModelAndModelVerifiable() throws {
    let ok = try JSONDecoder().decode(
      RootModel<User>.self, from: bytes(#"{"code":0,"msg":"ok","data":{"id":1,"name":"a"}}"#))
    #expect(ok.code == 0)
    #expect(ok.message == "ok")
    #expect(ok.data == User(id: 1, name: "a"))
    #expect(try ok.validate() == User(id: 1, name: "a"))
    let failed = try LenientDecoder().decode(
      RootModel<User>.self, from: bytes(#"{"code":7,"msg":"no"}"#))
    #expect(throws: EnvelopeError.business(code: 7, message: "no")) { try failed.validate() }
    let empty = try LenientDecoder().decode(RootModel<User>.self, from: bytes(#"{"code":0}"#))
    #expect(throws: EnvelopeError.missingData(code: 0)) { try empty.validate() }
    func verify<V: ModelVerifiable>(_ value: V) throws -> V.Model { try value.validate() }
    #expect(try verify(ok).name == "a")
    // Keys from userInfo[.envelopeFormat].
    let decoder = JSONDecoder()
    decoder.userInfo[.envelopeFormat] = EnvelopeFormat(
      code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])
    let bank = try decoder.decode(
      RootModel<User>.self,
      from: bytes(#"{"retStatus":"000","retMsg":"ok","retBody":{"id":9,"name":"z"}}"#))
    #expect(try bank.validate().id == 9)
    var lenient = LenientDecoder()
    lenient.envelope = EnvelopeFormat(code: "s", message: "m", data: "d", success: [1])
    let viaDecoder = try lenient.decode(
      RootModel<User>.self, from: bytes(#"{"s":1,"d":{"id":5,"name":"e"}}"#))
    #expect(try viaDecoder.validate().id == 5)
    let sendable: any Sendable = ok
    #expect(sendable is RootModel<User>)
  }

  @Test func decodableWrapperWorksWithFoundation() throws {
    let decoder = JSONDecoder()
    decoder.userInfo[.decodingPath] = JSONPath("data.items")
    let wrapped = try decoder.decode(
      DecodableWrapper<[ContractItem]>.self, from: bytes(#"{"data":{"items":[{"name":"a"}]}}"#))
    #expect(wrapped.value == [ContractItem(name: "a")])
    decoder.userInfo[.decodingPath] = JSONPath("data.count")
    let scalar = try decoder.decode(
      DecodableWrapper<Int>.self, from: bytes(#"{"data":{"count":3}}"#))
    #expect(scalar.value == 3)
    var lenient = LenientDecoder()
    lenient.userInfo[.decodingPath] = JSONPath(["data", "a.b"])
    let dotted = try lenient.decode(
      DecodableWrapper<String>.self, from: bytes(#"{"data":{"a.b":"x"}}"#))
    #expect(dotted.value == "x")
  }

  @Test func oneOrMany() throws {
    let one = try JSONDecoder().decode(OneOrMany<Int>.self, from: bytes("1"))
    let many = try JSONDecoder().decode(OneOrMany<Int>.self, from: bytes("[1,2]"))
    #expect(one.values == [1])
    #expect(many.values == [1, 2])
    #expect(
      try LenientDecoder().decode(OneOrMany<ContractItem>.self, from: bytes(#"{"name":"a"}"#))
        .values.count == 1)
  }

  @Test func typeErrorsAreDecodingErrorsWithTheFullPath() throws {
    var strict = LenientDecoder()
    strict.policy = .strict
    let body = bytes(#"{"code":0,"data":{"items":[{"name":"a"},{"name":1}]}}"#)
    let error = try #require(throws: DecodingError.self) {
      try strict.decode([ContractItem].self, from: body, at: "data.items")
    }
    guard case .typeMismatch(_, let context) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["data", "items", "Index 1", "name"])
    // Foundation's wording for a type error; the position is the malformed-JSON errors' part.
    #expect(context.debugDescription == "Expected to decode String but found number instead.")
    let malformed = try #require(throws: DecodingError.self) {
      try LenientDecoder().decode(User.self, from: bytes("{\n\"id\": 1,,\n}"))
    }
    guard case .dataCorrupted(let corrupt) = malformed else {
      Issue.record("unexpected \(malformed)")
      return
    }
    #expect(corrupt.debugDescription.contains("line 2"), "\(corrupt.debugDescription)")
    #expect(corrupt.debugDescription.contains("column"), "\(corrupt.debugDescription)")
    #expect(corrupt.debugDescription.contains("offset"), "\(corrupt.debugDescription)")
  }

  // MARK: - Second round

  @Test func decodeEnvelopeAtAPathInsideData() throws {
    let decoder = LenientDecoder()
    let body = bytes(#"{"code":0,"data":{"list":[{"name":"a"}]}}"#)
    let items = try decoder.decodeEnvelope([ContractItem].self, from: body, at: "list")
    #expect(items == [ContractItem(name: "a")])
    let nested = EnvelopeFormat(
      code: "error>errorStatus", message: "error>errMsg", data: "results", success: [false])
    let other = bytes(#"{"error":{"errorStatus":false},"results":{"list":[{"name":"b"}]}}"#)
    #expect(
      try decoder.decodeEnvelope([ContractItem].self, from: other, format: nested, at: "list") == [
        ContractItem(name: "b")
      ])
    #expect(throws: EnvelopeError.business(code: 5, message: nil)) {
      try decoder.decodeEnvelope([ContractItem].self, from: bytes(#"{"code":5}"#), at: "list")
    }
  }

  @Test func mapReadsTheFirstPresentPath() throws {
    var decoder = LenientDecoder()
    decoder.map(Profile.self, key: "name", to: "profile.name", "nickname")
    #expect(try decoder.decode(Profile.self, from: bytes(#"{"profile":{"name":"a"}}"#)).name == "a")
    #expect(try decoder.decode(Profile.self, from: bytes(#"{"nickname":"b"}"#)).name == "b")
  }

  @Test func builtInTransforms() throws {
    var decoder = LenientDecoder()
    decoder.transform(Event.self, key: "at", .millisecondsSince1970)
    let event = try decoder.decode(Event.self, from: bytes(#"{"at":1700000000000}"#))
    #expect(event.at == Date(timeIntervalSince1970: 1_700_000_000))
    let seconds: ValueTransform<Date> = .secondsSince1970
    let iso: ValueTransform<Date> = .iso8601
    let formatted: ValueTransform<Date> = .formatted("yyyy-MM-dd")
    let url: ValueTransform<URL> = .url
    let list: ValueTransform<[String]> = .separated(by: ",")
    let flag: ValueTransform<Bool> = .flag
    struct All: Decodable {
      var a: Date
      var b: Date
      var c: Date
      var d: URL
      var e: [String]
      var f: Bool
      var g: Bool
    }
    var all = LenientDecoder()
    all.transform(All.self, key: "a", seconds)
    all.transform(All.self, key: "b", iso)
    all.transform(All.self, key: "c", formatted)
    all.transform(All.self, key: "d", url)
    all.transform(All.self, key: "e", list)
    all.transform(All.self, key: "f", flag)
    all.transform(All.self, key: "g", flag)
    let value = try all.decode(
      All.self,
      from: bytes(
        #"{"a":1,"b":"1970-01-01T00:00:02Z","c":"1970-01-02","d":"https://x.test/a","e":"x,y","f":1,"g":"N"}"#
      ))
    #expect(value.a == Date(timeIntervalSince1970: 1))
    #expect(value.b == Date(timeIntervalSince1970: 2))
    #expect(value.c == Date(timeIntervalSince1970: 86_400))
    #expect(value.d == URL(string: "https://x.test/a"))
    #expect(value.e == ["x", "y"])
    #expect(value.f)
    #expect(!value.g)
    let custom = ValueTransform<Int> { json in (json.stringValue?.count) ?? 0 }
    var counting = LenientDecoder()
    struct Count: Decodable { var n: Int }
    counting.transform(Count.self, key: "n", custom)
    #expect(try counting.decode(Count.self, from: bytes(#"{"n":"abc"}"#)).n == 3)
  }

  @Test func jsonIsCodableWithFoundation() throws {
    struct Loose: Codable { var age: JSON }
    let a = try JSONDecoder().decode(Loose.self, from: bytes(#"{"age":"18"}"#))
    let b = try JSONDecoder().decode(Loose.self, from: bytes(#"{"age":18}"#))
    #expect(a.age == .string("18"))
    #expect(b.age.stringValue == "18")
    let text = String(decoding: try JSONEncoder().encode(b), as: UTF8.self)
    #expect(text == #"{"age":18}"#)
  }

  // MARK: - Third round

  @Test func missingKeysAndRequire() throws {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    #expect(throws: DecodingError.self) {
      try decoder.decode(User.self, from: bytes(#"{"id":"1"}"#))
    }
    #expect(try decoder.decode(User.self, from: bytes(#"{"id":"1","name":"a"}"#)).id == 1)
    var one = LenientDecoder()
    one.require(User.self, keys: "name")
    #expect(throws: DecodingError.self) { try one.decode(User.self, from: bytes(#"{"id":1}"#)) }
    #expect(try one.decode(User.self, from: bytes(#"{"name":"a"}"#)).id == 0)
    var all = LenientDecoder()
    all.require(User.self)
    #expect(throws: DecodingError.self) { try all.decode(User.self, from: bytes(#"{"name":"a"}"#)) }
    let both: [MissingKeys] = [.fallBack, .error]
    #expect(both.count == 2)
  }

  @Test func inputForms() throws {
    let decoder = LenientDecoder()
    let fromString: User = try decoder.decode(User.self, from: #"{"id":"18","name":"Ada"}"#)
    let fromJSON: User = try decoder.decode(
      User.self, from: JSON.object(try objectOf(#"{"id":18,"name":"Ada"}"#)))
    let fromObject: User = try decoder.decode(User.self, fromJSONObject: ["id": 18, "name": "Ada"])
    #expect(fromString == fromJSON)
    #expect(fromJSON == fromObject)
    let envelope = #"{"code":0,"data":{"list":[{"name":"a"}]}}"#
    let json = try JSON(data: bytes(envelope))
    let object: Any = try JSONSerialization.jsonObject(with: bytes(envelope))
    #expect(try decoder.decode([ContractItem].self, from: envelope, at: "data.list").count == 1)
    #expect(try decoder.decode([ContractItem].self, from: json, at: "data.list").count == 1)
    #expect(
      try decoder.decode([ContractItem].self, fromJSONObject: object, at: "data.list").count == 1)
    #expect(
      try decoder.decodeWithReport([ContractItem].self, from: envelope, at: "data.list").value.count
        == 1)
    #expect(
      try decoder.decodeWithReport([ContractItem].self, from: json, at: "data.list").value.count
        == 1)
    #expect(
      try decoder.decodeWithReport([ContractItem].self, fromJSONObject: object, at: "data.list")
        .value.count == 1)
    #expect(try decoder.decodeEnvelope([ContractItem].self, from: envelope, at: "list").count == 1)
    #expect(try decoder.decodeEnvelope([ContractItem].self, from: json, at: "list").count == 1)
    #expect(
      try decoder.decodeEnvelope([ContractItem].self, fromJSONObject: object, at: "list").count == 1
    )
    let report = try decoder.decodeWithReport(User.self, from: #"{"id":"18","name":"Ada"}"#)
    #expect(report.report.entries.map(\.path) == ["id"])
  }

  @Test func didFinishDecodingRunsOnce() throws {
    let value = try LenientDecoder().decode(
      Finishing.self, from: bytes(#"{"first":"A","last":"B"}"#))
    #expect(value.full == "A B")
    var strict = LenientDecoder()
    strict.policy = .strict
    #expect(
      try strict.decode(Finishing.self, from: bytes(#"{"first":"A","last":"B"}"#)).full == "A B")
  }

  @Test func modelEncoderMatchesJSONEncoder() throws {
    struct Model: Codable {
      var userName: String; var when: Date; var blob: Data; var ratio: Double
    }
    let model = Model(
      userName: "a", when: Date(timeIntervalSince1970: 1), blob: Data([1, 2]), ratio: 0.5)
    var encoder = ModelEncoder()
    let foundation = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    foundation.outputFormatting = [.sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    foundation.keyEncodingStrategy = .convertToSnakeCase
    encoder.dateEncodingStrategy = .secondsSince1970
    foundation.dateEncodingStrategy = .secondsSince1970
    encoder.dataEncodingStrategy = .base64
    encoder.nonConformingFloatEncodingStrategy = .throw
    encoder.userInfo = [:]
    #expect(try encoder.encode(model) == foundation.encode(model))
    #expect(
      try encoder.encodeString(model) == String(decoding: foundation.encode(model), as: UTF8.self))
    let json: JSON = try encoder.encodeJSON(model)
    #expect(json["user_name"] == .string("a"))
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    foundation.outputFormatting = [.sortedKeys, .prettyPrinted]
    #expect(
      try encoder.encodeString(model) == String(decoding: foundation.encode(model), as: UTF8.self))
  }

  @Test func modelEncoderReversesTheDecodersMappings() throws {
    struct Stamp: Codable, Equatable { var name: String; var joined: Date }
    var decoder = LenientDecoder()
    decoder.map(Stamp.self, key: "name", to: "user_name", "name")
    decoder.transform(Stamp.self, key: "joined", .millisecondsSince1970)
    let body = bytes(#"{"user_name":"Han","joined":1700000000000}"#)
    let stamp = try decoder.decode(Stamp.self, from: body)
    let encoder = ModelEncoder(matching: decoder)
    #expect(try encoder.encodeString(stamp) == #"{"user_name":"Han","joined":1700000000000}"#)
    var manual = ModelEncoder()
    manual.map(Stamp.self, key: "name", to: "profile.name")
    manual.transform(Stamp.self, key: "joined", .secondsSince1970)
    manual.outputFormatting = [.sortedKeys]
    #expect(try manual.encodeString(stamp) == #"{"joined":1700000000,"profile":{"name":"Han"}}"#)
    let both = ValueTransform<Int>(
      read: { json in Int(json.stringValue ?? "") ?? 0 }, write: { .string(String($0)) })
    struct Counter: Codable { var n: Int }
    var writer = ModelEncoder()
    writer.transform(Counter.self, key: "n", both)
    #expect(try writer.encodeString(Counter(n: 4)) == #"{"n":"4"}"#)
  }

  // MARK: - Fourth round

  @Test func plainFormat() throws {
    #expect(EnvelopeFormat.plain.isPlain)
    #expect(!EnvelopeFormat.default.isPlain)
    let user = try LenientDecoder().decodeEnvelope(
      User.self, from: bytes(#"{"id":1,"name":"a"}"#), format: .plain)
    #expect(user.id == 1)
    let status = try LenientDecoder().envelopeStatus(from: bytes(#"{"code":5}"#), format: .plain)
    #expect(status.isSuccess)
  }

  @Test func taggedDecodableAndEncodable() throws {
    let body = bytes(
      #"[{"type":"circle","radius":1},{"type":"square","payload":{"side":2}},{"type":"hex"}]"#)
    let shapes = try LenientDecoder().decode([ContractShape].self, from: body)
    #expect(
      shapes == [
        .circle(ContractCircle(radius: 1)), .square(ContractSquare(side: 2)), .other("hex"),
      ])
    let viaFoundation = try JSONDecoder().decode([ContractShape].self, from: body)
    #expect(viaFoundation == shapes)
    var encoder = ModelEncoder()
    encoder.outputFormatting = [.sortedKeys]
    #expect(
      try encoder.encodeString(ContractShape.circle(ContractCircle(radius: 1)))
        == #"{"radius":1,"type":"circle"}"#)
    #expect(
      try encoder.encodeString(ContractShape.square(ContractSquare(side: 2)))
        == #"{"payload":{"side":2},"type":"square"}"#)
  }

  @Test func unknownTagsThrowByDefault() throws {
    enum Strictly: TaggedDecodable {
      case circle(ContractCircle)
      static var tagPath: JSONPath { "type" }
      static var variants: [String: TaggedVariant<Strictly>] {
        ["circle": TaggedVariant(ContractCircle.self) { .circle($0) }]
      }
    }
    #expect(throws: (any Error).self) {
      try LenientDecoder().decode(Strictly.self, from: bytes(#"{"type":"hex"}"#))
    }
    #expect(Strictly.unknown(tag: "hex", json: .null) == nil)
  }

  @Test func unknownKeysAreKeptAndWrittenBack() throws {
    let body = bytes(#"{"id":1,"extra":"x","n":2}"#)
    let open = try LenientDecoder().decode(Open.self, from: body)
    #expect(open.others == ["extra": .string("x"), "n": try JSON(data: bytes("2"))])
    var encoder = ModelEncoder()
    encoder.outputFormatting = [.sortedKeys]
    #expect(try encoder.encodeString(open) == #"{"extra":"x","id":1,"n":2}"#)
    let empty = UnknownKeys(wrappedValue: [:])
    #expect(empty.wrappedValue.isEmpty)
    #expect(UnknownKeys().wrappedValue.isEmpty)
  }
}

private func objectOf(_ text: String) throws -> JSONObject {
  guard case .object(let object) = try JSON(data: Data(text.utf8)) else {
    throw CocoaError(.coderInvalidValue)
  }
  return object
}

// MARK: - Conformances API.md declares, checked by the compiler

private func conforms<T: Sendable & Hashable>(_: T.Type) {}
private func sendable<T: Sendable>(_: T.Type) {}
private func describes<T: CustomStringConvertible>(_: T.Type) {}

extension APIContractTests {
  @Test func declaredConformancesHold() {
    conforms(JSONPath.self)
    conforms(JSONPath.Component.self)
    conforms(JSON.self)
    conforms(JSONNumber.self)
    conforms(DecodingReport.Entry.self)
    conforms(DecodingReport.Entry.Kind.self)
    conforms(EnvelopeCode.self)
    conforms(EnvelopeStatus.self)
    conforms(MissingKeys.self)
    conforms(UnknownKeys.self)
    sendable(DecodingPolicy.self)
    sendable(LenientDecoder.self)
    sendable(DecodingReport.self)
    sendable(EnvelopeFormat.self)
    sendable(EnvelopeError.self)
    sendable(RootModel<User>.self)
    sendable(ModelEncoder.self)
    sendable(ValueTransform<Int>.self)
    sendable(TaggedVariant<ContractShape>.self)
    describes(JSONPath.self)
    describes(DecodingReport.self)
    describes(EnvelopeCode.self)
    let codable: any Codable.Type = JSON.self
    let unknownKeys: any Codable.Type = UnknownKeys.self
    let errors: any (Error & Equatable).Type = EnvelopeError.self
    #expect("\(codable) \(unknownKeys) \(errors)".contains("JSON"))
    #expect(DecodingPolicy.lenient != .strict)
  }

  @Test(arguments: [100, 512, 513, 5_000])
  func maxDepthIsAThrowNotACrash(depth: Int) throws {
    let body = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    let decoder = LenientDecoder()
    if depth <= decoder.maxDepth {
      #expect(throws: Never.self) { try decoder.decode(JSON.self, from: body) }
    } else {
      #expect(throws: DecodingError.self) { try decoder.decode(JSON.self, from: body) }
    }
  }
}

extension APIContractTests {
  /// API.md's third round: the input forms exist for every decode; the report variant of
  /// `decodeEnvelope` has them too (it had only `Data`).
  @Test func envelopeWithReportTakesEveryInputForm() throws {
    let text = #"{"code":0,"data":{"list":[{"name":"a"}],"id":"7","name":"n"}}"#
    let object: Any = try JSONSerialization.jsonObject(with: Data(text.utf8))
    let decoder = LenientDecoder()
    let fromText = try decoder.decodeEnvelopeWithReport(User.self, from: text)
    let fromJSON = try decoder.decodeEnvelopeWithReport(
      User.self, from: try JSON(data: Data(text.utf8)))
    let fromObject = try decoder.decodeEnvelopeWithReport(User.self, fromJSONObject: object)
    for result in [fromText, fromJSON, fromObject] {
      #expect(result.value == User(id: 7, name: "n"))
      #expect(result.report.entries.map(\.path) == ["data.id"])
    }
    let list = try decoder.decodeEnvelopeWithReport(
      [ContractItem].self, from: text, format: .default, at: "list")
    #expect(list.value == [ContractItem(name: "a")])
  }
}
