import Foundation
import Testing

@testable import EnvelopeKit

private struct Profile: Codable, Equatable {
  var name: String
  var age: Int
  var joined: Date
  var tags: [String]
  var site: URL?
  var vip: Bool
}

private struct Timed: Codable, Equatable {
  var at: Date
}

private struct Price: Codable, Equatable {
  var cents: Int
}

/// A mapped key (`name` at `profile.name`) whose path goes through a property of its own
/// (`profile`), declared after it and before it.
private struct MappedFirst: Codable, Equatable {
  var name: String
  var city: String
  var profile: Inner
  struct Inner: Codable, Equatable { var id: Int; var bio: String? }
}

private struct MappedLast: Codable, Equatable {
  var profile: MappedFirst.Inner
  var name: String
  var city: String
}

/// The same, the property written through `superEncoder(forKey:)` after the mapped key.
private struct MappedThroughSuper: Codable, Equatable {
  var name: String
  var city: String
  var profile: MappedFirst.Inner
  enum CodingKeys: String, CodingKey { case name, city, profile }
  init(name: String, city: String, profile: MappedFirst.Inner) {
    (self.name, self.city, self.profile) = (name, city, profile)
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(city, forKey: .city)
    try profile.encode(to: container.superEncoder(forKey: .profile))
  }
}

/// The same, with a property that is a value where the mapped path needs an object.
private struct MappedThroughValue: Codable, Equatable {
  var name: String
  var profile: Int
}

@Suite struct ModelEncoderTests {
  // MARK: - One mapping, both directions

  /// The issue's story: a key read from `user_name` is written back there, not at `name`.
  @Test func aMappedKeyIsWrittenWhereItWasRead() throws {
    var decoder = LenientDecoder()
    decoder.map(Profile.self, key: "name", to: "user_name", "name")
    let body = #"{"user_name":"Han","age":"40","joined":0,"tags":[],"vip":false}"#
    let profile = try decoder.decode(Profile.self, from: Data(body.utf8))
    var encoder = ModelEncoder(matching: decoder)
    encoder.outputFormatting = .sortedKeys
    let written = try encoder.encodeString(profile)
    #expect(written == #"{"age":40,"joined":0,"tags":[],"user_name":"Han","vip":false}"#)
    #expect(try decoder.decode(Profile.self, from: Data(written.utf8)) == profile)
  }

  @Test func nestedPathsBuildTheirObjectsOnce() throws {
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.map(Profile.self, key: "name", to: "user.name")
    encoder.map(Profile.self, key: "age", to: "user.details.age")
    encoder.map(Profile.self, key: "vip", to: "user.vip")
    let profile = Profile(
      name: "Han", age: 40, joined: Date(timeIntervalSinceReferenceDate: 0), tags: ["a"],
      site: nil, vip: true)
    #expect(
      try encoder.encodeString(profile)
        == #"{"joined":0,"tags":["a"],"user":{"details":{"age":40},"name":"Han","vip":true}}"#)

    var decoder = LenientDecoder()
    decoder.map(Profile.self, key: "name", to: "user.name")
    decoder.map(Profile.self, key: "age", to: "user.details.age")
    decoder.map(Profile.self, key: "vip", to: "user.vip")
    #expect(try decoder.decode(Profile.self, from: encoder.encode(profile)) == profile)
  }

  @Test func aMappedPathThroughAValueOrAnIndexIsAClearError() {
    var encoder = ModelEncoder()
    encoder.map(Profile.self, key: "age", to: "name.age")
    let profile = Profile(
      name: "Han", age: 1, joined: Date(), tags: [], site: nil, vip: false)
    #expect {
      try encoder.encode(profile)
    } throws: { error in
      "\(error)".contains("holds a value, not an object")
    }
    var indexed = ModelEncoder()
    indexed.map(Profile.self, key: "age", to: ["list", 0])
    #expect {
      try indexed.encode(profile)
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["age"]
        && context.debugDescription.contains("array index")
    }
  }

  /// "The matching encoder writes what the decoder reads" whatever order the model encodes its
  /// keys in: a mapped key whose path goes through one of the model's own object properties is
  /// written into that property's object, also when the model encodes the property after the
  /// mapped key (it was replaced by the property's object, and the mapped keys silently lost);
  /// through a value it is the clear error of `aMappedPathThroughAValueOrAnIndexIsAClearError`,
  /// in either order.
  @Test func aMappedPathThroughAPropertyKeepsBothInEitherOrder() throws {
    var decoder = LenientDecoder(policy: .strict)
    for model in [MappedFirst.self, MappedLast.self, MappedThroughSuper.self]
      as [any Decodable.Type]
    {
      decoder.map(model, key: "name", to: "profile.name")
      decoder.map(model, key: "city", to: "profile.address.city")
    }
    decoder.map(MappedThroughValue.self, key: "name", to: "profile.name")
    var encoder = ModelEncoder(matching: decoder)
    encoder.outputFormatting = .sortedKeys
    let expected = #"{"profile":{"address":{"city":"c"},"bio":"b","id":1,"name":"n"}}"#

    let first = MappedFirst(name: "n", city: "c", profile: .init(id: 1, bio: "b"))
    let firstText = try encoder.encodeString(first)
    #expect(firstText == expected)
    #expect(try decoder.decode(MappedFirst.self, from: Data(firstText.utf8)) == first)

    let last = MappedLast(profile: .init(id: 1, bio: "b"), name: "n", city: "c")
    let lastText = try encoder.encodeString(last)
    #expect(lastText == expected)
    #expect(try decoder.decode(MappedLast.self, from: Data(lastText.utf8)) == last)

    let viaSuper = MappedThroughSuper(name: "n", city: "c", profile: .init(id: 1, bio: "b"))
    let viaSuperText = try encoder.encodeString(viaSuper)
    #expect(viaSuperText == expected)
    #expect(try decoder.decode(MappedThroughSuper.self, from: Data(viaSuperText.utf8)) == viaSuper)

    #expect {
      try encoder.encode(MappedThroughValue(name: "n", profile: 7))
    } throws: { error in
      "\(error)".contains("holds a value, not an object")
    }
  }

  // MARK: - Transforms write what they read

  @Test func everyBuiltInTransformWritesWhatItReads() throws {
    let at = Date(timeIntervalSince1970: 1_700_000_000.25)
    func written<Value>(_ transform: ValueTransform<Value>, _ value: Value) throws -> String {
      guard let write = transform.write else { return "read-only" }
      return try write(value).rawText
    }
    #expect(try written(.millisecondsSince1970, at) == "1700000000250")
    #expect(try written(.secondsSince1970, at) == "1700000000.25")
    #expect(try written(.secondsSince1970, Date(timeIntervalSince1970: 5)) == "5")
    #expect(try written(.iso8601, at) == #""2023-11-14T22:13:20.250Z""#)
    #expect(try written(.iso8601, Date(timeIntervalSince1970: 0)) == #""1970-01-01T00:00:00Z""#)
    #expect(try written(.formatted("yyyy-MM-dd HH:mm"), at) == #""2023-11-14 22:13""#)
    #expect(
      try written(.url, URL(string: "https://a.example/b?c=1")!) == #""https://a.example/b?c=1""#)
    #expect(try written(.separated(by: ","), ["a", "b"]) == #""a,b""#)
    // Items the joined text would not give back are written as an array (found by the fuzzer).
    #expect(try written(.separated(by: ","), ["tab\t", "a,b"]) == #"["tab\t","a,b"]"#)
    #expect(try written(.separated(by: ","), [""]) == #"[""]"#)
    #expect(try written(.separated(by: ","), []) == #""""#)
    #expect(try written(.flag, true) == "1")
    #expect(try written(.flag, false) == "0")
    #expect(try written(.flag(true: .string("Y"), false: .string("N")), false) == #""N""#)
    // And each reads back what it wrote.
    for transform in [ValueTransform<Date>.millisecondsSince1970, .secondsSince1970, .iso8601] {
      let json = try transform.write?(at) ?? .null
      #expect(try transform.read(json) == at)
    }
    let flag = ValueTransform<Bool>.flag(true: .string("Y"), false: .string("N"))
    let yes = try flag.write?(true) ?? .null
    #expect(try flag.read(yes) == true)
    #expect(throws: EncodingError.self) {
      try written(.secondsSince1970, Date(timeIntervalSince1970: .nan))
    }
  }

  /// A date read by a built-in date transform is written back as the text it was read from,
  /// for generated times of the last decades: `Date` keeps its time from 2001 as a `Double`, so
  /// `1700000000123` read as milliseconds gave back `1700000000122.9999` (about 1 in 75), and
  /// `…:49.369Z` gave `…:49.368Z` (about half of them, and a ms less on each trip).
  @Test func builtInDateTransformsWriteTheTextTheyRead() throws {
    var random = SeededGenerator(state: 4410)
    let milliseconds = ValueTransform<Date>.millisecondsSince1970
    let seconds = ValueTransform<Date>.secondsSince1970
    let iso8601 = ValueTransform<Date>.iso8601
    func trip<Value>(_ transform: ValueTransform<Value>, _ json: JSON) throws -> JSON {
      try transform.write?(try transform.read(json)) ?? .null
    }
    var failures: [String] = []
    for _ in 0..<5_000 {
      let time = Int64.random(in: 0...2_000_000_000_000, using: &random)
      let (whole, fraction) = (time / 1000, time % 1000)
      let cases: [(ValueTransform<Date>, JSON)] = [
        (milliseconds, .number(JSONNumber(time))),
        (seconds, .number(JSONNumber(whole))),
        (seconds, .number(try #require(JSONNumber(Self.decimalText(whole, fraction))))),
        (
          iso8601,
          .string(
            Date(timeIntervalSince1970: TimeInterval(whole)).formatted(.iso8601).dropLast()
              + (fraction == 0 ? "" : ".\(String(fraction + 1000).dropFirst())") + "Z")
        ),
      ]
      for (transform, json) in cases {
        let once = try trip(transform, json)
        let twice = try trip(transform, once)
        if once != json || twice != json {
          failures.append("\(json.rawText) -> \(once.rawText)")
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.count) changed, e.g. \(failures.prefix(3))")
  }

  /// `whole.fraction` (thousandths), without trailing zeros: `5.25`, `5`.
  static func decimalText(_ whole: Int64, _ fraction: Int64) -> String {
    guard fraction != 0 else { return "\(whole)" }
    var digits = String(String(fraction + 1000).dropFirst())
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(whole).\(digits)"
  }

  @Test func aTransformSetOnTheDecoderWritesThroughTheMatchingEncoder() throws {
    var decoder = LenientDecoder()
    decoder.transform(Timed.self, key: "at", .millisecondsSince1970)
    let timed = try decoder.decode(Timed.self, from: Data(#"{"at":"1700000000250"}"#.utf8))
    let encoder = ModelEncoder(matching: decoder)
    #expect(try encoder.encodeString(timed) == #"{"at":1700000000250}"#)
    #expect(try decoder.decode(Timed.self, from: encoder.encode(timed)) == timed)
  }

  @Test func aReadOnlyTransformLeavesThePropertysOwnValue() throws {
    var decoder = LenientDecoder()
    decoder.transform(
      Price.self, key: "cents",
      ValueTransform { json in
        Int(json.stringValue?.replacingOccurrences(of: ".", with: "") ?? "") ?? 0
      })
    let price = try decoder.decode(Price.self, from: Data(#"{"cents":"12.50"}"#.utf8))
    #expect(price.cents == 1250)
    #expect(try ModelEncoder(matching: decoder).encodeString(price) == #"{"cents":1250}"#)
  }

  @Test func aTransformOfTheWrongTypeNamesTheModelAndKey() {
    var encoder = ModelEncoder()
    encoder.transform(Price.self, key: "cents", .flag)
    #expect {
      try encoder.encode(Price(cents: 3))
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.codingPath.map(\.stringValue) == ["cents"]
        && context.debugDescription.contains("Price.cents writes Bool")
    }
  }

  // MARK: - Strategies

  @Test func theMatchingEncoderReversesTheDecodersStrategies() {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .millisecondsSince1970
    decoder.dataDecodingStrategy = .deferredToData
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    decoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] = "t1"
    let encoder = ModelEncoder(matching: decoder)
    guard case .convertToSnakeCase = encoder.keyEncodingStrategy else {
      Issue.record("key strategy \(encoder.keyEncodingStrategy)")
      return
    }
    guard case .millisecondsSince1970 = encoder.dateEncodingStrategy,
      case .deferredToData = encoder.dataEncodingStrategy,
      case .convertToString(let positive, _, let nan) = encoder.nonConformingFloatEncodingStrategy
    else {
      Issue.record("strategies not reversed")
      return
    }
    #expect(positive == "inf" && nan == "nan")
    #expect(encoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] as? String == "t1")
  }

  @Test func snakeCaseRoundTrips() throws {
    struct User: Codable, Equatable {
      var userId: Int
      var displayName: String
      var isActive: Bool
    }
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    var encoder = ModelEncoder(matching: decoder)
    encoder.outputFormatting = .sortedKeys
    let user = User(userId: 18, displayName: "Han", isActive: true)
    let text = try encoder.encodeString(user)
    #expect(text == #"{"display_name":"Han","is_active":true,"user_id":18}"#)
    #expect(try decoder.decode(User.self, from: Data(text.utf8)) == user)
  }

  // MARK: - Output forms

  @Test func stringDataAndJSONAgree() throws {
    let profile = Profile(
      name: "Han/Solo", age: 40, joined: Date(timeIntervalSinceReferenceDate: 0.5), tags: ["é"],
      site: URL(string: "https://a.example/x"), vip: true)
    var encoder = ModelEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.prettyPrinted, .sortedKeys]
    let expected = try foundation.encode(profile)
    #expect(try encoder.encode(profile) == expected)
    #expect(try encoder.encodeString(profile) == String(decoding: expected, as: UTF8.self))
    #expect(try encoder.encodeJSON(profile) == JSON(data: expected))
  }

  // MARK: - Errors as JSONEncoder throws them, never a trap

  @Test func aNonFiniteFloatThrowsWithItsPath() {
    struct Row: Encodable { var values: [Double] }
    struct Table: Encodable { var rows: [Row] }
    let table = Table(rows: [Row(values: [1]), Row(values: [2, .nan])])
    let expected = EncodingOracle.describe(catching { try JSONEncoder().encode(table) })
    let actual = EncodingOracle.describe(catching { try ModelEncoder().encode(table) })
    #expect(actual == expected)
    #expect(actual.contains(#"["rows", "[1]", "values", "[1]"]"#))
  }

  @Test func misusingTheEncoderAPIThrowsWhereJSONEncoderTraps() {
    struct Twice: Encodable {
      func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(1)
        try single.encode(2)
      }
    }
    struct KeyedAfterValue: Encodable {
      func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode("x")
        var keyed = encoder.container(keyedBy: AnyKey.self)
        try keyed.encode(1, forKey: AnyKey("a"))
      }
    }
    #expect(throws: EncodingError.self) { try ModelEncoder().encode(Twice()) }
    #expect(throws: EncodingError.self) { try ModelEncoder().encode([KeyedAfterValue()]) }
  }

  @Test func nestingAt512LevelsThrowsAsJSONEncoderDoes() throws {
    func nested(_ levels: Int) -> GValue {
      var value = GValue.int(1)
      for _ in 0..<levels { value = .array([value]) }
      return value
    }
    #expect(try ModelEncoder().encode(nested(511)) == JSONEncoder().encode(nested(511)))
    let expected = EncodingOracle.describe(catching { try JSONEncoder().encode(nested(512)) })
    #expect(
      EncodingOracle.describe(catching { try ModelEncoder().encode(nested(512)) }) == expected)
    #expect(expected.contains("Unable to encode the given top-level value"))
  }

  /// A value nested far past the limit, on a 512 KB thread: a thrown error, not a crash.
  @Test func aDeepValueOnASmallThreadThrows() {
    let outcome = onThread(stackSize: 512 << 10) {
      var value = GValue.int(1)
      for _ in 0..<100_000 { value = .array([value]) }
      defer {
        // Freeing a 100,000-level enum recurses: unwrap it level by level.
        while case .array(let inner) = value, let first = inner.first { value = first }
      }
      do {
        _ = try ModelEncoder().encode(value)
        return "encoded"
      } catch {
        return "\(error)"
      }
    }
    // The stack guard or the 512-level limit stops it, whichever comes first on this thread.
    #expect(
      outcome.contains("Nested too deeply for the current thread's stack")
        || outcome.contains("Unable to encode the given top-level value"), "\(outcome)")
  }

  /// Every encoder of an encode is freed with it (the fuzz target's leak check found a parent
  /// and its kept child holding each other).
  @Test func encodersAreFreedAfterTheEncode() throws {
    final class Watch: @unchecked Sendable { weak var encoder: AnyObject? }
    struct Leaf: Encodable {
      let watch: Watch
      func encode(to encoder: any Encoder) throws {
        watch.encoder = encoder as AnyObject
        var single = encoder.singleValueContainer()
        try single.encode(1)
      }
    }
    struct Node: Encodable {
      let leaves: [Leaf]
    }
    let watch = Watch()
    _ = try ModelEncoder().encode(Node(leaves: [Leaf(watch: watch), Leaf(watch: watch)]))
    #expect(watch.encoder == nil)
  }

  @Test func theBenchmarkPayloadsEncodeAsJSONEncoderEncodesThem() throws {
    // The three benchmark models are checked by EnvelopeBenchmarks (release build) before it
    // times them; here the payloads as `JSON` values (debug builds are slow on canada).
    let files = ["twitter.json", "github_events.json"]
    for file in files where SharedData.has("payloads/" + file) {
      let value = try JSONDecoder().decode(
        JSON.self,
        from: Data(contentsOf: SharedData.folder("payloads").appendingPathComponent(file)))
      for formatting in [JSONEncoder.OutputFormatting.sortedKeys, [.sortedKeys, .prettyPrinted]] {
        let foundation = JSONEncoder()
        foundation.outputFormatting = formatting
        var ours = ModelEncoder()
        ours.outputFormatting = formatting
        #expect(try ours.encode(value) == foundation.encode(value), "\(file) \(formatting)")
      }
    }
  }
}

/// The error `body` throws (or a note that it did not).
private func catching(_ body: () throws -> Data) -> any Error {
  do {
    _ = try body()
    return CocoaError(.featureUnsupported)
  } catch {
    return error
  }
}

/// Defects a review of the change found, each against JSONEncoder.
@Suite struct ModelEncoderReviewTests {
  private func both<T: Encodable>(
    _ value: T, _ formatting: JSONEncoder.OutputFormatting = [.sortedKeys],
    snakeCase: Bool = false
  ) throws -> (String, String) {
    let foundation = JSONEncoder()
    foundation.outputFormatting = formatting
    var ours = ModelEncoder()
    ours.outputFormatting = formatting
    if snakeCase {
      foundation.keyEncodingStrategy = .convertToSnakeCase
      ours.keyEncodingStrategy = .convertToSnakeCase
    }
    return (
      String(decoding: try foundation.encode(value), as: UTF8.self),
      String(decoding: try ours.encode(value), as: UTF8.self)
    )
  }

  @Test func aKeyEncodedThreeTimesIsWrittenOnceUnsorted() throws {
    struct U: Encodable {
      var userId = 1
      var userID = 2
      var user_id = 3
    }
    let (_, ours) = try both(U(), [], snakeCase: true)
    #expect(ours == #"{"user_id":3}"#)
  }

  @Test func nestedContainersAreNotMapped() throws {
    struct Order: Encodable {
      enum Keys: String, CodingKey { case id, item }
      enum ItemKeys: String, CodingKey { case id }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .id)
        var item = container.nestedContainer(keyedBy: ItemKeys.self, forKey: .item)
        try item.encode(2, forKey: .id)
      }
    }
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.map(Order.self, key: "id", to: "order_id")
    #expect(try encoder.encodeString(Order()) == #"{"item":{"id":2},"order_id":1}"#)
  }

  @Test func aValueThatThrowsAndIsCaughtLeavesNothing() throws {
    struct Scored: Encodable {
      enum Keys: String, CodingKey { case id, score, list, deep }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try? container.encode(Double.nan, forKey: .score)
        try? container.encode([["a": 1.0, "b": .infinity]], forKey: .deep)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try? list.encode(Float.nan)
        try list.encode(1)
        try? list.encode([Double.nan])
        try container.encode(1, forKey: .id)
      }
    }
    let (expected, ours) = try both(Scored())
    #expect(ours == expected)
    #expect(ours == #"{"id":1,"list":[1]}"#)
  }

  @Test func aNestedContainerUnderTheEmptyKeyIsReused() throws {
    struct Empty: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        var a = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(""))
        var b = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(""))
        try a.encode(1, forKey: AnyKey("x"))
        try b.encode(2, forKey: AnyKey("y"))
      }
    }
    let (expected, ours) = try both(Empty())
    #expect(ours == expected)
  }

  @Test func aNestedContainerOverAValueIsAMisuse() {
    struct Over: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(1, forKey: AnyKey("a"))
        _ = container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("a"))
      }
    }
    #expect(throws: EncodingError.self) { try ModelEncoder().encode(Over()) }
  }
}
