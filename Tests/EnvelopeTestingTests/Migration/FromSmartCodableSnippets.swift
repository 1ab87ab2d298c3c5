import EnvelopeKit
import Foundation
import Testing

// The snippets of "Migrating from SmartCodable, ObjectMapper and BetterCodable"
// (EnvelopeKit.docc/MigratingFromLenientCodable.md). `MigrationGuideTests` checks that every
// swift block of the article is quoted from these files; the tests below run the snippets.

/// The types the lenient-libraries guide's snippets use.
enum LenientGuide {
  // MARK: - SmartCodable

  struct Profile: Codable, Equatable, DecodingFinishing {
    var name: String
    var age: Int
    var joined: Date
    var homepage: URL?
    var tags: [String]
    var summary = ""  // not in the JSON: set by didFinishDecoding

    enum CodingKeys: String, CodingKey { case name, age, joined, homepage, tags }

    mutating func didFinishDecoding() { summary = "\(name), \(age)" }
  }

  static func profileDecoder() -> LenientDecoder {
    var decoder = LenientDecoder()
    // mappingForKey: alternatives and nested paths
    decoder.map(Profile.self, key: "name", to: "nickName", "realName")
    decoder.map(Profile.self, key: "age", to: "info.age")
    // mappingForValue: value transformers
    decoder.transform(Profile.self, key: "joined", .secondsSince1970)
    decoder.transform(Profile.self, key: "tags", .separated(by: ","))
    return decoder
  }

  static let profileText = """
    {"code": 0, "data": {"user": {
      "nickName": "Ada", "info": {"age": "36"}, "joined": 1700000000,
      "homepage": "", "tags": "swift, math"}}}
    """

  // MARK: - ObjectMapper

  struct Badge: Codable, Equatable {
    var title: String
    var color: Int
  }

  /// TransformType: `transformFromJSON` is `read`, `transformToJSON` is `write`.
  static let hexColor = ValueTransform<Int>(
    read: { json in
      guard let text = json.stringValue, text.hasPrefix("#"),
        let value = Int(text.dropFirst(), radix: 16)
      else { throw ValueTransformError(expected: "a #RRGGBB color", found: json) }
      return value
    },
    write: { value in .string("#" + String(value, radix: 16, uppercase: true)) })

  static func badgeDecoder() -> LenientDecoder {
    var decoder = LenientDecoder()
    decoder.map(Badge.self, key: "title", to: "label.text")  // map["label.text"]
    decoder.transform(Badge.self, key: "color", hexColor)  // (map["color"], HexColorTransform())
    decoder.require(Badge.self, keys: "title")  // init?(map:) returning nil without it
    return decoder
  }

  // MARK: - BetterCodable

  struct Settings: Codable, Equatable, LenientDecodable {
    var pageSize = 20  // @DefaultCodable<PageSizeStrategy>
    var notifications = true  // @DefaultTrue
    var muted: [Int] = []  // @DefaultEmptyArray
  }

  struct Line: Codable, Equatable {
    var title: String
    var price: Double
  }

  struct Cart: Codable, Equatable {
    var lines: [Line]  // @LossyArray
    var count: Int  // @LosslessValue
    var code: String  // @LosslessValue
  }
}

@Suite struct MigrationLenientCodableSnippets {
  typealias Profile = LenientGuide.Profile
  typealias Badge = LenientGuide.Badge
  typealias Settings = LenientGuide.Settings
  typealias Cart = LenientGuide.Cart
  typealias Line = LenientGuide.Line

  @Test func deserializeAtADesignatedPath() throws {
    let text = LenientGuide.profileText
    let decoder = LenientGuide.profileDecoder()
    // Profile.deserialize(from: text, designatedPath: "data.user")
    let profile = try decoder.decode(Profile.self, from: text, at: "data.user")

    #expect(profile.name == "Ada")
    #expect(profile.age == 36)
    #expect(profile.joined == Date(timeIntervalSince1970: 1_700_000_000))
    #expect(profile.homepage == nil)
    #expect(profile.tags == ["swift", "math"])
    #expect(profile.summary == "Ada, 36")
  }

  @Test func whatTheReportSays() throws {
    let decoder = LenientGuide.profileDecoder()
    let text = LenientGuide.profileText
    let decoded = try decoder.decodeWithReport(Profile.self, from: text, at: "data.user")
    let lines = decoded.report.map(\.description)  // path: kind, expected type, JSON found

    #expect(
      lines == [
        #"data.user.info.age: coerced Int from string "36""#,
        #"data.user.homepage: nulled URL from string """#,
      ])
  }

  @Test func strictShowsWhatLenientAccepted() throws {
    var strict = LenientGuide.profileDecoder()
    strict.policy = .strict  // in tests: fail where lenient would coerce or fall back
    #expect(throws: DecodingError.self) {
      try strict.decode(Profile.self, from: LenientGuide.profileText, at: "data.user")
    }
  }

  @Test func foundationObjectsAndJSONValues() throws {
    let decoder = LenientGuide.profileDecoder()
    let object: [String: Any] = [
      "realName": "Ada", "info": ["age": 36], "joined": 1_700_000_000, "tags": ["swift"],
    ]
    // Profile.deserialize(from: dictionary)
    let profile = try decoder.decode(Profile.self, fromJSONObject: object)

    #expect(profile.name == "Ada" && profile.tags == ["swift"])
  }

  @Test func objectMapperBothWays() throws {
    let decoder = LenientGuide.badgeDecoder()
    let text = ##"{"label": {"text": "New"}, "color": "#FF8800"}"##
    // Mapper<Badge>().map(JSONString: text)
    let badge = try decoder.decode(Badge.self, from: text)
    // badge.toJSONString(): the same mapping and transform, reversed
    var encoder = ModelEncoder(matching: decoder)
    encoder.outputFormatting = .sortedKeys
    let written = try encoder.encodeString(badge)

    #expect(badge == Badge(title: "New", color: 0xFF8800))
    #expect(written == ##"{"color":"#FF8800","label":{"text":"New"}}"##)
  }

  @Test func aRequiredKeyIsNotInvented() throws {
    let decoder = LenientGuide.badgeDecoder()
    #expect(throws: DecodingError.self) {
      try decoder.decode(Badge.self, from: ##"{"color": "#FF8800"}"##)
    }
  }

  @Test func betterCodableDefaults() throws {
    let text = #"{"pageSize": "lots", "notifications": null}"#
    let decoded = try LenientDecoder().decodeWithReport(Settings.self, from: text)
    let entries = decoded.report.entries.map { "\($0.path) \($0.kind)" }
    // ["pageSize defaulted", "notifications defaulted", "muted defaulted"]

    #expect(decoded.value == Settings())
    #expect(entries == ["pageSize defaulted", "notifications defaulted", "muted defaulted"])
  }

  @Test func betterCodableLossyAndLossless() throws {
    let text = """
      {"lines": [{"title": "Pen", "price": 1.5}, "oops", {"title": "Ink", "price": "2.5"}],
       "count": "2", "code": 404}
      """
    let decoded = try LenientDecoder().decodeWithReport(Cart.self, from: text)
    let entries = decoded.report.entries.map { "\($0.path) \($0.kind)" }
    // ["lines[1] dropped", "lines[2].price coerced", "count coerced", "code coerced"]

    let lines = [Line(title: "Pen", price: 1.5), Line(title: "Ink", price: 2.5)]
    #expect(decoded.value == Cart(lines: lines, count: 2, code: "404"))
    #expect(
      entries == ["lines[1] dropped", "lines[2].price coerced", "count coerced", "code coerced"])
  }

  // The guide says: an element missing a key is kept with the key's fallback, not dropped as
  // @LossyArray drops it; with `missingKeys = .error` the whole decode fails instead.
  @Test func anElementMissingAKeyIsKeptNotDropped() throws {
    let text = #"{"lines": [{"title": "Pen"}], "count": 1, "code": "a"}"#
    let decoded = try LenientDecoder().decodeWithReport(Cart.self, from: text)
    #expect(decoded.value.lines == [Line(title: "Pen", price: 0)])
    #expect(decoded.report.entries.map(\.path) == ["lines[0].price"])

    var strictKeys = LenientDecoder()
    strictKeys.missingKeys = .error
    #expect(throws: DecodingError.self) {
      try strictKeys.decode(Cart.self, from: text)
    }
  }
}
