import Foundation
import Testing

@testable import EnvelopeKit

@Suite struct KeyMappingTests {
  struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var city: String?
  }

  static func decoder(_ policy: DecodingPolicy = .lenient) -> LenientDecoder {
    var decoder = LenientDecoder(policy: policy)
    decoder.map(User.self, key: "name", to: "profile.name", "nickname")
    decoder.map(User.self, key: "city", to: ["address", "lines", 1])
    return decoder
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func nestedPathsAndAlternatives(policy: DecodingPolicy) throws {
    let decoder = Self.decoder(policy)
    let nested = Data(
      #"{"id":1,"profile":{"name":"Ada"},"nickname":"ada","address":{"lines":["1 Road","Leeds"]}}"#
        .utf8)
    #expect(try decoder.decode(User.self, from: nested) == User(id: 1, name: "Ada", city: "Leeds"))
    let alternative = Data(#"{"id":2,"profile":{"name":null},"nickname":"bob"}"#.utf8)
    #expect(try decoder.decode(User.self, from: alternative) == User(id: 2, name: "bob"))
    // The model's own key is not read once it is mapped elsewhere.
    let ownKey = Data(#"{"id":3,"name":"ignored","nickname":"cy"}"#.utf8)
    #expect(try decoder.decode(User.self, from: ownKey).name == "cy")
  }

  @Test func mappingsApplyInArraysOfModelsAndInsideEnvelopes() throws {
    let body = Data(
      #"{"code":0,"data":{"list":[{"id":1,"nickname":"a"},{"id":2,"profile":{"name":"b"}}]}}"#.utf8)
    let users = try Self.decoder(.strict).decodeEnvelope([User].self, from: body, at: "list")
    #expect(users.map(\.name) == ["a", "b"])
  }

  @Test func aMissingMappedKeyNamesThePathTried() {
    #expect {
      try Self.decoder(.strict).decode(User.self, from: Data(#"{"id":1}"#.utf8))
    } throws: { error in
      guard case DecodingError.keyNotFound(let key, let context) = error else { return false }
      return key.stringValue == "name" && context.codingPath.map(\.stringValue) == ["profile"]
    }
  }

  @Test func lenientCoercionAndReportsWorkAtMappedPaths() throws {
    let result = try Self.decoder().decodeWithReport(
      User.self, from: Data(#"{"id":1,"nickname":18}"#.utf8))
    #expect(result.value.name == "18")
    #expect(result.report.entries.map(\.path) == ["nickname"])
  }

  @Test func modelsWithoutMappingsAreUntouched() throws {
    struct Other: Codable, Equatable { var name: String }
    let decoder = Self.decoder(.strict)
    #expect(try decoder.decode(Other.self, from: Data(#"{"name":"x"}"#.utf8)) == Other(name: "x"))
  }
}

@Suite struct ValueTransformTests {
  struct Event: Codable, Equatable, Sendable {
    var at: Date
    var link: URL?
    var tags: [String]
    var active: Bool
  }

  static func decoder(_ policy: DecodingPolicy, at: ValueTransform<Date>) -> LenientDecoder {
    var decoder = LenientDecoder(policy: policy)
    decoder.transform(Event.self, key: "at", at)
    decoder.transform(Event.self, key: "link", .url)
    decoder.transform(Event.self, key: "tags", .separated(by: ","))
    decoder.transform(Event.self, key: "active", .flag)
    return decoder
  }

  struct DateCase: Sendable, CustomTestStringConvertible {
    var name: String
    var transform: ValueTransform<Date>
    var json: String
    var seconds: Double
    var testDescription: String { name }
  }

  static let dates: [DateCase] = [
    DateCase(
      name: "seconds", transform: .secondsSince1970, json: "1700000000", seconds: 1_700_000_000),
    DateCase(
      name: "seconds string", transform: .secondsSince1970, json: "\"1700000000.5\"",
      seconds: 1_700_000_000.5),
    DateCase(
      name: "milliseconds", transform: .millisecondsSince1970, json: "1700000000250",
      seconds: 1_700_000_000.25),
    DateCase(
      name: "iso8601", transform: .iso8601, json: "\"2023-11-14T22:13:20Z\"", seconds: 1_700_000_000
    ),
    DateCase(
      name: "iso8601 fraction", transform: .iso8601, json: "\"2023-11-14T23:13:20.250+01:00\"",
      seconds: 1_700_000_000.25),
    DateCase(
      name: "formatted", transform: .formatted("yyyy-MM-dd HH:mm:ss"),
      json: "\"2023-11-14 22:13:20\"", seconds: 1_700_000_000),
  ]

  @Test(arguments: dates)
  func everyDateTransformInBothPolicies(_ row: DateCase) throws {
    let body = Data(
      #"{"at":\#(row.json),"link":"https://x.test/a","tags":"a, b,c","active":"Y"}"#.utf8)
    for policy in [DecodingPolicy.lenient, .strict] {
      let event = try Self.decoder(policy, at: row.transform).decode(Event.self, from: body)
      #expect(abs(event.at.timeIntervalSince1970 - row.seconds) < 0.0005)
      #expect(event.link == URL(string: "https://x.test/a"))
      #expect(event.tags == ["a", "b", "c"])
      #expect(event.active)
    }
  }

  @Test(arguments: [
    ("1", true), ("0", false), ("\"N\"", false), ("\"yes\"", true), ("true", true),
    ("\"0\"", false),
  ])
  func flags(json: String, value: Bool) throws {
    let body = Data(#"{"at":0,"tags":[],"active":\#(json)}"#.utf8)
    let event = try Self.decoder(.strict, at: .secondsSince1970).decode(Event.self, from: body)
    #expect(event.active == value)
  }

  @Test func aFailingTransformIsAStrictErrorWithTheFullPath() {
    let body = Data(#"{"code":0,"data":[{"at":"soon","tags":"","active":1}]}"#.utf8)
    let strict = Self.decoder(.strict, at: .millisecondsSince1970)
    #expect {
      try strict.decodeEnvelope([Event].self, from: body)
    } throws: { error in
      guard case DecodingError.dataCorrupted(let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["data", "Index 0", "at"]
        && context.underlyingError is ValueTransformError
        && context.debugDescription.contains("Event.at")
    }
  }

  @Test func aFailingTransformIsALenientFallbackWhereOneExists() throws {
    let decoder = Self.decoder(.lenient, at: .iso8601)
    // An Optional becomes nil, reported.
    let body = Data(#"{"at":"2023-11-14T22:13:20Z","link":"","tags":"x","active":"maybe"}"#.utf8)
    // `active` falls back as an unusable Bool at its key does: false, reported `defaulted`.
    let unusable = try decoder.decodeWithReport(Event.self, from: body)
    #expect(unusable.value.active == false)
    #expect(
      unusable.report.entries.map { "\($0.path) \($0.kind)" } == [
        "link nulled", "active defaulted",
      ])
    let fixed = Data(#"{"at":"2023-11-14T22:13:20Z","link":"","tags":"x","active":"N"}"#.utf8)
    let result = try decoder.decodeWithReport(Event.self, from: fixed)
    #expect(result.value.link == nil)
    #expect(result.report.entries.map { "\($0.path) \($0.kind)" } == ["link nulled"])
  }

  struct Settings: LenientDecodable, Equatable {
    var theme = "light"
    var beta = false
  }

  @Test func aLenientDecodableFallsBackToItsDeclaredValue() throws {
    var decoder = LenientDecoder()
    decoder.transform(Settings.self, key: "beta", .flag)
    let result = try decoder.decodeWithReport(
      Settings.self, from: Data(#"{"theme":"dark","beta":"perhaps"}"#.utf8))
    #expect(result.value == Settings(theme: "dark", beta: false))
    #expect(result.report.entries.map { "\($0.path) \($0.kind)" } == ["beta defaulted"])
  }

  @Test func aTransformOfTheWrongTypeNamesTheModelAndKey() {
    struct Wrong: Decodable { var at: String }
    var decoder = LenientDecoder()
    decoder.transform(Wrong.self, key: "at", .secondsSince1970)
    #expect {
      try decoder.decode(Wrong.self, from: Data(#"{"at":1}"#.utf8))
    } throws: { error in
      guard case DecodingError.typeMismatch(_, let context) = error else { return false }
      return context.debugDescription.contains("Wrong.at produces Date, but the property is String")
    }
  }

  @Test func aClosureTransformOverJSON() throws {
    struct Price: Decodable, Equatable { var cents: Int }
    var decoder = LenientDecoder(policy: .strict)
    decoder.transform(
      Price.self, key: "cents",
      ValueTransform { json in
        guard let text = json.stringValue, let value = Decimal(string: text) else {
          throw ValueTransformError(expected: "a price", found: json)
        }
        return NSDecimalNumber(decimal: value * 100).intValue
      })
    #expect(
      try decoder.decode(Price.self, from: Data(#"{"cents":"12.34"}"#.utf8)) == Price(cents: 1234))
  }
}
