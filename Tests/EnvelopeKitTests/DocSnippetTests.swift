import EnvelopeKit
import Foundation
import Testing

// The Swift listings of README.md and the EnvelopeKit DocC articles (SnippetGettingStarted,
// SnippetEnvelopeShapes, LenientDecoding, SnippetEncodingModels, PolymorphicAndOpenModels) as a newcomer
// copies them, with the declarations they assume, and the results their comments promise.
// The migration guides are quoted from Tests/EnvelopeTestingTests/Migration instead.

// MARK: - SnippetGettingStarted.md

private enum SnippetGettingStarted {
  struct User: Codable { var id: Int; var name: String }
  struct Item: Codable { var id: Int }

  static func run() throws -> (User, Decoded<User>, [Item], [Item]) {
    let body = Data(#"{"code": 0, "msg": "ok", "data": {"id": "18", "name": "Ada"}}"#.utf8)
    let decoder = LenientDecoder()
    let user = try decoder.decodeEnvelope(User.self, from: body)  // id "18" becomes 18
    let result = try decoder.decodeEnvelopeWithReport(User.self, from: body)
    _ = LenientDecoder(policy: .strict)  // behaves like Foundation's JSONDecoder
    let listBody = Data(#"{"code": 0, "data": {"items": [{"id": 1}], "list": [{"id": 2}]}}"#.utf8)
    let items = try decoder.decode([Item].self, from: listBody, at: "data.items")
    let page = try decoder.decodeEnvelope([Item].self, from: listBody, at: "list")  // data.list
    return (user, result, items, page)
  }
}

// MARK: - SnippetEncodingModels.md

private enum SnippetEncodingModels {
  struct Profile: Codable { var name: String; var joined: Date; var vip: Bool; var userId: Int }

  static func run() throws -> String {
    let body = Data(#"{"nickname":"Han","joined":1700000000000,"vip":"Y","user_id":18}"#.utf8)
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.map(Profile.self, key: "name", to: "user.name", "nickname")
    decoder.transform(Profile.self, key: "joined", .millisecondsSince1970)
    decoder.transform(Profile.self, key: "vip", .flag(true: .string("Y"), false: .string("N")))

    let profile = try decoder.decode(Profile.self, from: body)
    var encoder = ModelEncoder(matching: decoder)
    encoder.outputFormatting = .sortedKeys
    let put = try encoder.encode(profile)
    return String(decoding: put, as: UTF8.self)
  }
}

// MARK: - SnippetEnvelopeShapes.md and LenientDecoding.md

private enum SnippetEnvelopeShapes {
  struct User: Codable { var id: Int; var name: String }
  struct Item: Codable { var id: Int }
  struct Event: Codable { var at: Date; var tags: [String]; var vip: Bool }
  enum AppError: Error { case tokenExpired }
  struct Token: Codable { var accessToken: String; var refreshToken: String }

  static func run() throws -> (User, [Item], Event) {
    let body = Data(#"{"code":0,"data":{"id":1,"name":"a","list":[{"id":2}]}}"#.utf8)
    let decoder = LenientDecoder()
    let user = try decoder.decodeEnvelope(User.self, from: body)  // data
    let items = try decoder.decodeEnvelope([Item].self, from: body, at: "list")  // data.list
    let app = EnvelopeFormat.default.mappingErrors { status in
      status.code == 1001 ? AppError.tokenExpired : nil
    }
    _ = app
    var mapping = LenientDecoder()
    mapping.map(User.self, key: "name", to: "profile.name", "nickname")  // first present path
    mapping.transform(Event.self, key: "at", .millisecondsSince1970)
    mapping.transform(Event.self, key: "tags", .separated(by: ","))
    mapping.transform(Event.self, key: "vip", .flag)  // 0/1, "Y"/"N"
    let event = try mapping.decode(
      Event.self, from: Data(#"{"at":1000,"tags":"a,b","vip":"Y"}"#.utf8))
    return (user, items, event)
  }

  static func requireTokens(_ body: String) throws -> Token {
    var decoder = LenientDecoder()
    decoder.require(Token.self, keys: "accessToken", "refreshToken")
    return try decoder.decode(Token.self, from: body)
  }
}

// MARK: - PolymorphicAndOpenModels.md

private enum SnippetPolymorphic {
  struct Push: Codable { var ref: String; var size: Int }
  struct Watch: Codable { var action: String }

  enum Event: TaggedDecodable, TaggedEncodable {
    case push(Push)
    case watch(Watch)
    case other(tag: String?, json: JSON)

    static let tagPath: JSONPath = "type"
    static let variants: [String: TaggedVariant<Event>] = [
      "PushEvent": TaggedVariant(Push.self, at: "payload") { .push($0) },
      "WatchEvent": TaggedVariant(Watch.self, at: "payload") { .watch($0) },
    ]
    static func unknown(tag: String?, json: JSON) -> Event? { .other(tag: tag, json: json) }

    var tag: String {
      switch self {
      case .push: "PushEvent"
      case .watch: "WatchEvent"
      case .other(let tag, _): tag ?? ""
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .push(let push): push
      case .watch(let watch): watch
      case .other(_, let json): json  // the whole object, written back as it was
      }
    }
  }

  struct Profile: Codable {
    var id: Int
    var firstName: String
    @UnknownKeys var others: [String: JSON]
  }

  static let feed = """
    [{"type": "PushEvent", "payload": {"ref": "main", "size": 3}},
     {"type": "WatchEvent", "payload": {"action": "started"}},
     {"type": "SponsorEvent", "payload": {"tier": 5}}]
    """

  static func profile() throws -> (Profile, String) {
    let body = Data(
      #"{"id":1,"first_name":"Ada","last_name":"Lovelace","flags":{"beta":true}}"#.utf8)
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    var profile = try decoder.decode(Profile.self, from: body)
    let others = profile.others
    profile.firstName = "Ada K."
    var encoder = ModelEncoder(matching: decoder)
    encoder.outputFormatting = .sortedKeys
    let put = try encoder.encode(profile)
    _ = others
    return (profile, String(decoding: put, as: UTF8.self))
  }
}

@Suite struct DocSnippetTests {
  @Test func gettingStartedDoesWhatItsCommentsSay() throws {
    let (user, result, items, page) = try SnippetGettingStarted.run()
    #expect(user.id == 18)
    #expect(result.value.id == 18)
    #expect(
      result.report.description.split(separator: "\n").map { $0.split(separator: " ") } == [
        ["path", "kind", "expected", "found"], ["data.id", "coerced", "Int", #"string"#, #""18""#],
      ])
    #expect(items.map(\.id) == [1])
    #expect(page.map(\.id) == [2])
  }

  @Test func encodingModelsWritesTheCommentedBody() throws {
    #expect(
      try SnippetEncodingModels.run()
        == #"{"joined":1700000000000,"user":{"name":"Han"},"user_id":18,"vip":"Y"}"#)
  }

  @Test func envelopeShapesSnippets() throws {
    let (user, items, event) = try SnippetEnvelopeShapes.run()
    #expect(user.id == 1)
    #expect(items.map(\.id) == [2])
    #expect(event.tags == ["a", "b"])
    #expect(event.vip)
    #expect(event.at == Date(timeIntervalSince1970: 1))
  }

  @Test func requireThrowsKeyNotFoundWithoutTheSnakeCaseStrategy() throws {
    let error = try #require(throws: DecodingError.self) {
      try SnippetEnvelopeShapes.requireTokens(#"{"access_token": "a", "refresh_token": "b"}"#)
    }
    guard case .keyNotFound(let key, _) = error else {
      Issue.record("expected keyNotFound, got \(error)")
      return
    }
    #expect(key.stringValue == "accessToken")
  }

  @Test func taggedFeedDecodesAndWritesBack() throws {
    let events = try LenientDecoder().decode(
      [SnippetPolymorphic.Event].self, from: SnippetPolymorphic.feed)
    #expect(events.map(\.tag) == ["PushEvent", "WatchEvent", "SponsorEvent"])
    let foundation = try JSONDecoder().decode(
      [SnippetPolymorphic.Event].self, from: Data(SnippetPolymorphic.feed.utf8))
    #expect(foundation.map(\.tag) == events.map(\.tag))
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(
      try encoder.encodeString(events)
        == #"[{"payload":{"ref":"main","size":3},"type":"PushEvent"},"#
        + #"{"payload":{"action":"started"},"type":"WatchEvent"},"#
        + #"{"payload":{"tier":5},"type":"SponsorEvent"}]"#)
  }

  @Test func unknownKeysUnderSnakeCaseRoundTrip() throws {
    let (profile, put) = try SnippetPolymorphic.profile()
    #expect(Set(profile.others.keys) == ["last_name", "flags"])
    #expect(put == #"{"first_name":"Ada K.","flags":{"beta":true},"id":1,"last_name":"Lovelace"}"#)
  }
}

// MARK: - README.md, "Use"

private enum SnippetReadmeUse {
  struct User: Codable { var id: Int; var name: String }
  struct Item: Codable { var id: Int }
  struct Profile: Codable { var name: String; var joined: Date }

  static func decoding() throws -> (User, [Item], Decoded<User>, User, User, [Item]) {
    let body = Data(
      #"{"code":0,"msg":"ok","data":{"id":"18","name":"Ada","items":[{"id":1}],"list":[{"id":2}]}}"#
        .utf8)
    let decoder = LenientDecoder()
    let user = try decoder.decodeEnvelope(User.self, from: body)  // throws .business(code:message:)
    let items = try decoder.decode([Item].self, from: body, at: "data.items")
    let result = try decoder.decodeWithReport(User.self, from: body, at: "data")
    var strict = LenientDecoder()
    strict.policy = .strict  // Foundation's JSONDecoder behaviour: any drift throws
    _ = strict
    let fromText = try decoder.decode(User.self, from: #"{"id":"18","name":"Ada"}"#)
    let fromDictionary = try decoder.decode(User.self, fromJSONObject: ["id": 18, "name": "Ada"])
    let list = try decoder.decode([Item].self, from: body, at: "data>list")  // MoyaMapper's path
    return (user, items, result, fromText, fromDictionary, list)
  }

  static func bothDirections() throws -> (String, String, JSON) {
    let body = Data(#"{"user_name":"Han","joined":1700000000000}"#.utf8)
    var decoder = LenientDecoder()
    decoder.map(Profile.self, key: "name", to: "user_name", "name")
    decoder.transform(Profile.self, key: "joined", .millisecondsSince1970)
    let profile = try decoder.decode(Profile.self, from: body)

    let encoder = ModelEncoder(matching: decoder)
    let put = try encoder.encode(profile)  // {"user_name":"Han","joined":1700000000000}
    let text = try encoder.encodeString(profile)  // toJSONString(); .prettyPrinted for pretty
    let json = try encoder.encodeJSON(profile)  // toJSON(), as a JSON value
    return (String(decoding: put, as: UTF8.self), text, json)
  }

  static func formats() throws -> (EnvelopeStatus, EnvelopeStatus) {
    let bank = EnvelopeFormat(
      code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])
    let nested = EnvelopeFormat(
      code: "error>errorStatus",
      message: "error>errMsg",
      data: "results", success: [false])
    let decoder = LenientDecoder()
    return (
      try decoder.envelopeStatus(
        from: Data(#"{"retStatus":"000","retMsg":"ok"}"#.utf8), format: bank),
      try decoder.envelopeStatus(
        from: Data(#"{"error":{"errorStatus":false,"errMsg":"fine"}}"#.utf8), format: nested)
    )
  }
}

extension DocSnippetTests {
  @Test func readmeUseSnippets() throws {
    let (user, items, result, fromText, fromDictionary, list) = try SnippetReadmeUse.decoding()
    #expect(user.id == 18)
    #expect(items.map(\.id) == [1])
    #expect(result.report.entries.map(\.path) == ["data.id"])
    #expect(fromText.id == 18 && fromDictionary.id == 18)
    #expect(list.map(\.id) == [2])
  }

  @Test func readmeEncoderSnippetWritesTheCommentedBody() throws {
    let (put, text, json) = try SnippetReadmeUse.bothDirections()
    #expect(put == #"{"user_name":"Han","joined":1700000000000}"#)
    #expect(text == put)
    #expect(json["user_name"] == .string("Han"))
  }

  @Test func readmeFormatsReadTheirEnvelopes() throws {
    let (bank, nested) = try SnippetReadmeUse.formats()
    #expect(bank.isSuccess && bank.message == "ok")
    #expect(nested.isSuccess && nested.message == "fine")
  }
}
