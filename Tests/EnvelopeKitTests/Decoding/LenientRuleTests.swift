import Foundation
import Testing

@testable import EnvelopeKit

struct Box<T: Codable & Equatable & Sendable>: Codable, Equatable, Sendable { var v: T }
/// `var v: Int?` declared Optional, so synthesized code calls `decodeIfPresent`.
struct OptionalBox: Codable, Equatable, Sendable { var v: Int? }
struct Item: Codable, Equatable, Sendable { var id: Int; var name: String }
enum Role: String, Codable, Equatable, Sendable { case admin, member }
enum Tier: Int, Codable, Equatable, Sendable, CaseDefaultable {
  case free = 0, pro = 1, unknown = -1
  static let defaultCase = Tier.unknown
}
struct Settings: Codable, Equatable, Sendable, LenientDecodable {
  var pageSize = 20
  var theme = "light"
  var tags = ["new"]
}

/// One rule: the JSON `{"v": …}`, the value in lenient policy with its report, and whether
/// strict policy throws.
struct RuleCase: Sendable, CustomTestStringConvertible {
  var json: String
  var expected: String
  var report: [String]
  var strictThrows: Bool
  var decode: @Sendable (LenientDecoder, Data) throws -> Decoded<String>
  var testDescription: String { json }

  static func box<T: Codable & Equatable & Sendable>(
    _ type: T.Type, _ json: String, _ expected: T, _ report: [String] = [], strict: Bool = true
  ) -> RuleCase {
    RuleCase(
      json: json, expected: String(describing: expected), report: report, strictThrows: strict
    ) { decoder, data in
      let result = try decoder.decodeWithReport(Box<T>.self, from: data)
      return Decoded(value: String(describing: result.value.v), report: result.report)
    }
  }
}

extension RuleCase {
  static func optional(_ json: String, _ expected: Int?, _ report: [String], strict: Bool = true)
    -> RuleCase
  {
    RuleCase(
      json: json, expected: String(describing: expected), report: report, strictThrows: strict
    ) { decoder, data in
      let result = try decoder.decodeWithReport(OptionalBox.self, from: data)
      return Decoded(value: String(describing: result.value.v), report: result.report)
    }
  }
}

@Suite struct LenientRuleTests {
  static let cases: [RuleCase] = [
    // Rule 1: lossless coercions.
    .box(Int.self, #"{"v":"18"}"#, 18, ["v coerced"]),
    .box(Int.self, #"{"v":" 18 "}"#, 18, ["v coerced"]),
    .box(Int.self, #"{"v":3.0}"#, 3, [], strict: false),
    .box(Int.self, #"{"v":1e2}"#, 100, [], strict: false),
    .box(Int.self, #"{"v":true}"#, 1, ["v coerced"]),
    .box(Int64.self, #"{"v":"9223372036854775807"}"#, Int64.max, ["v coerced"]),
    .box(UInt64.self, #"{"v":"18446744073709551615"}"#, UInt64.max, ["v coerced"]),
    .box(Double.self, #"{"v":"1.5"}"#, 1.5, ["v coerced"]),
    .box(Double.self, #"{"v":false}"#, 0, ["v coerced"]),
    .box(Decimal.self, #"{"v":"0.1"}"#, Decimal(string: "0.1") ?? 0, ["v coerced"]),
    .box(
      Decimal.self, #"{"v":12345678901234567890.12}"#,
      Decimal(string: "12345678901234567890.12") ?? 0, [], strict: false),
    .box(String.self, #"{"v":12345678901234567890}"#, "12345678901234567890", ["v coerced"]),
    .box(String.self, #"{"v":0.1}"#, "0.1", ["v coerced"]),
    .box(String.self, #"{"v":1e2}"#, "1e2", ["v coerced"]),
    .box(String.self, #"{"v":true}"#, "true", ["v coerced"]),
    .box(Bool.self, #"{"v":1}"#, true, ["v coerced"]),
    .box(Bool.self, #"{"v":"Yes"}"#, true, ["v coerced"]),
    .box(Bool.self, #"{"v":"n"}"#, false, ["v coerced"]),
    .box(Bool.self, #"{"v":"F"}"#, false, ["v coerced"]),
    .box([Int].self, #"{"v":5}"#, [5], ["v coerced"]),
    .box([Int].self, #"{"v":"[1,2]"}"#, [1, 2], ["v coerced"]),
    .box(Item.self, #"{"v":"{\"id\":1,\"name\":\"a\"}"}"#, Item(id: 1, name: "a"), ["v coerced"]),
    .box(Role.self, #"{"v":"admin"}"#, .admin, [], strict: false),
    .box(Tier.self, #"{"v":"1"}"#, .pro, ["v coerced"]),
    // Rule 2: fallbacks.
    .box(Int.self, #"{}"#, 0, ["v defaulted"]),
    .box(Int.self, #"{"v":null}"#, 0, ["v defaulted"]),
    .box(Int.self, #"{"v":"x"}"#, 0, ["v defaulted"]),
    .box(Int.self, #"{"v":3.5}"#, 0, ["v defaulted"]),
    .box(String.self, #"{"v":[1]}"#, "", ["v defaulted"]),
    .optional(#"{}"#, nil, [], strict: false),
    .optional(#"{"v":null}"#, nil, [], strict: false),
    .optional(#"{"v":"x"}"#, nil, ["v nulled"]),
    .optional(#"{"v":"7"}"#, 7, ["v coerced"]),
    .box([Int].self, #"{"v":null}"#, [], ["v defaulted"]),
    .box([String: Int].self, #"{"v":null}"#, [:], ["v defaulted"]),
    .box(
      Item.self, #"{"v":null}"#, Item(id: 0, name: ""),
      ["v defaulted", "v.id defaulted", "v.name defaulted"]),
    .box(
      Item.self, #"{"v":"not json"}"#, Item(id: 0, name: ""),
      ["v defaulted", "v.id defaulted", "v.name defaulted"]),
    .box(Tier.self, #"{"v":7}"#, .unknown, ["v defaulted"]),
    .box(Tier.self, #"{}"#, .unknown, ["v defaulted"]),
    .box([Int].self, #"{"v":[1,"x",3]}"#, [1, 3], ["v[1] dropped"]),
    .box(
      [Int].self, #"{"v":[1,null,2.5,"4"]}"#, [1, 4],
      ["v[1] dropped", "v[2] dropped", "v[3] coerced"]),
    .box(
      [Item].self, #"{"v":[{"id":1,"name":"a"},{"id":"x","name":"b"}]}"#,
      [Item(id: 1, name: "a"), Item(id: 0, name: "b")], ["v[1].id defaulted"]),
    .box(
      [Item].self, #"{"v":["s",{"id":2,"name":"b"}]}"#, [Item(id: 2, name: "b")], ["v[0] dropped"]),
    .box([Role].self, #"{"v":["admin","boss"]}"#, [.admin], ["v[1] dropped"]),
    // Rule 3: no overflow wraps or traps.
    .box(Int8.self, #"{"v":300}"#, 0, ["v defaulted"]),
    .box(Int.self, #"{"v":1e20}"#, 0, ["v defaulted"]),
    .box(Int.self, #"{"v":9223372036854775808}"#, 0, ["v defaulted"]),
    .box(UInt.self, #"{"v":-1}"#, 0, ["v defaulted"]),
    .box(Float.self, #"{"v":1e300}"#, 0, ["v defaulted"]),
  ]

  @Test(arguments: cases)
  func lenient(_ rule: RuleCase) throws {
    let result = try rule.decode(LenientDecoder(), Data(rule.json.utf8))
    #expect(result.value == rule.expected)
    #expect(result.report.entries.map { "\($0.path) \($0.kind)" } == rule.report)
  }

  @Test(arguments: cases)
  func strict(_ rule: RuleCase) throws {
    var decoder = LenientDecoder()
    decoder.policy = .strict
    if rule.strictThrows {
      #expect(throws: DecodingError.self) { try rule.decode(decoder, Data(rule.json.utf8)) }
    } else {
      let result = try rule.decode(decoder, Data(rule.json.utf8))
      #expect(result.value == rule.expected)
      #expect(result.report.isEmpty)
    }
  }

  @Test func nonOptionalEnumWithoutDefaultThrowsWithFullPath() throws {
    let data = Data(#"{"data":{"items":[{"v":"boss"}]}}"#.utf8)
    struct Holder: Decodable { var items: [Box<Role>]; var role: Role }
    let error = try #require(throws: DecodingError.self) {
      try LenientDecoder().decode(Box<Role>.self, from: Data(#"{"v":"boss"}"#.utf8))
    }
    guard case .dataCorrupted(let context) = error else {
      Issue.record("expected dataCorrupted, got \(error)")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["v"])
    _ = data
  }

  @Test func lenientDecodableTakesInitialValues() throws {
    let result = try LenientDecoder().decodeWithReport(
      Settings.self, from: Data(#"{"pageSize":"lots","tags":null}"#.utf8))
    #expect(result.value == Settings())
    #expect(result.report.entries.map(\.path) == ["pageSize", "theme", "tags"])
  }

  @Test func reportEntryCarriesTypeAndSnippet() throws {
    let result = try LenientDecoder().decodeWithReport(
      Box<Int>.self, from: Data(#"{"data":{"v":"18"}}"#.utf8), at: "data")
    let entry = try #require(result.report.entries.first)
    #expect(entry == .init(path: "data.v", kind: .coerced, expected: "Int", found: #"string "18""#))
    #expect(result.report.description.contains("data.v"))
  }
}
