import Foundation
import Testing

@testable import EnvelopeKit

/// Tagged variants: a tag picks the variant, its value read from the whole object or a path.
@Suite struct TaggedDecodableTests {
  struct Push: Codable, Equatable, Sendable {
    var ref: String
    var size: Int
  }
  struct Watch: Codable, Equatable, Sendable {
    var action: String
  }
  struct Circle: Codable, Equatable, Sendable {
    var radius: Double
  }
  struct Square: Codable, Equatable, Sendable {
    var side: Int
  }

  /// Variants under `payload`, unknown tags kept.
  enum Event: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
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
      case .push: return "PushEvent"
      case .watch: return "WatchEvent"
      case .other(let tag, _): return tag ?? ""
      }
    }

    /// Kept objects compare by content: JSONDecoder and `.sortedKeys` change key order.
    static func == (lhs: Event, rhs: Event) -> Bool {
      switch (lhs, rhs) {
      case (.push(let a), .push(let b)): return a == b
      case (.watch(let a), .watch(let b)): return a == b
      case (.other(let a, let x), .other(let b, let y)):
        return a == b
          && x.text(pretty: false, sortedKeys: true) == y.text(pretty: false, sortedKeys: true)
      default: return false
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .push(let push): return push
      case .watch(let watch): return watch
      case .other(_, let json): return json
      }
    }
  }

  /// Variants from the whole object, unknown tags rejected.
  enum Shape: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case circle(Circle)
    case square(Square)

    static let tagPath: JSONPath = "kind"
    static let variants: [String: TaggedVariant<Shape>] = [
      "circle": TaggedVariant(Circle.self) { .circle($0) },
      "square": TaggedVariant(Square.self) { .square($0) },
    ]

    var tag: String {
      switch self {
      case .circle: return "circle"
      case .square: return "square"
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .circle(let circle): return circle
      case .square(let square): return square
      }
    }
  }

  /// The tag nested in an object, the value at a nested path.
  enum Message: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case text(Watch)

    static let tagPath: JSONPath = "meta.kind"
    static let variants: [String: TaggedVariant<Message>] = [
      "text": TaggedVariant(Watch.self, at: "body.content") { .text($0) }
    ]
    var tag: String { "text" }
    var variantValue: any Encodable {
      switch self {
      case .text(let watch): return watch
      }
    }
  }

  /// The tag inside the variant's own object: `{"payload":{"type":"note","action":"a"}}`.
  enum Note: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case note(Watch)

    static let tagPath: JSONPath = "payload.type"
    static let variants: [String: TaggedVariant<Note>] = [
      "note": TaggedVariant(Watch.self, at: "payload") { .note($0) }
    ]
    var tag: String { "note" }
    var variantValue: any Encodable {
      switch self {
      case .note(let watch): return watch
      }
    }
  }

  struct Feed: Codable, Equatable, Sendable {
    var events: [Event]
    var shapes: [Shape]
  }

  static let policies: [DecodingPolicy] = [.strict, .lenient]

  static func decoders(_ policy: DecodingPolicy) -> LenientDecoder {
    LenientDecoder(policy: policy)
  }

  // MARK: - Decoding

  @Test(arguments: policies)
  func variantFromPayload(policy: DecodingPolicy) throws {
    let json = #"{"type":"PushEvent","id":"1","payload":{"ref":"main","size":3}}"#
    let decoded = try LenientDecoder(policy: policy).decodeWithReport(
      Event.self, from: Data(json.utf8))
    #expect(decoded.value == .push(Push(ref: "main", size: 3)))
    #expect(decoded.report.isEmpty)
    #expect(try JSONDecoder().decode(Event.self, from: Data(json.utf8)) == decoded.value)
  }

  @Test(arguments: policies)
  func variantFromWholeObject(policy: DecodingPolicy) throws {
    let json = #"{"kind":"square","side":4}"#
    #expect(
      try LenientDecoder(policy: policy).decode(Shape.self, from: json) == .square(Square(side: 4)))
    #expect(try JSONDecoder().decode(Shape.self, from: Data(json.utf8)) == .square(Square(side: 4)))
  }

  @Test(arguments: policies)
  func nestedTagAndValuePaths(policy: DecodingPolicy) throws {
    let json = #"{"meta":{"kind":"text"},"body":{"content":{"action":"hi"}}}"#
    #expect(
      try LenientDecoder(policy: policy).decode(Message.self, from: json)
        == .text(Watch(action: "hi")))
    #expect(
      try JSONDecoder().decode(Message.self, from: Data(json.utf8)) == .text(Watch(action: "hi")))
  }

  /// The type's own `unknown` keeps the whole object, in both policies; the report says
  /// `unknownVariant` (a notice, not drift).
  @Test(arguments: policies)
  func unknownTagKeptByTheType(policy: DecodingPolicy) throws {
    let json = #"{"type":"ForkEvent","payload":{"forkee":7}}"#
    let decoded = try LenientDecoder(policy: policy).decodeWithReport(Event.self, from: json)
    #expect(decoded.value == .other(tag: "ForkEvent", json: try JSON(data: Data(json.utf8))))
    let entry = try #require(decoded.report.entries.first)
    #expect(decoded.report.entries.count == 1)
    #expect(entry.kind == .unknownVariant)
    #expect(entry.found == #"tag "ForkEvent""#)
    #expect(!decoded.report.hasDrift)
    #expect(try JSONDecoder().decode(Event.self, from: Data(json.utf8)) == decoded.value)
  }

  /// Without `unknown`: strict throws, lenient drops an array element (reported) and throws
  /// elsewhere.
  @Test func unknownTagWithoutUnknownFollowsThePolicy() throws {
    let json = #"{"kind":"hexagon","side":1}"#
    for policy in Self.policies {
      #expect(throws: DecodingError.self) {
        try LenientDecoder(policy: policy).decode(Shape.self, from: json)
      }
    }
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Shape.self, from: Data(json.utf8))
    }
    let list =
      #"[{"kind":"circle","radius":1.5},{"kind":"hexagon","side":1},{"kind":"square","side":2}]"#
    #expect(throws: DecodingError.self) {
      try LenientDecoder(policy: .strict).decode([Shape].self, from: list)
    }
    let lenient = try LenientDecoder(policy: .lenient).decodeWithReport([Shape].self, from: list)
    #expect(lenient.value == [.circle(Circle(radius: 1.5)), .square(Square(side: 2))])
    #expect(lenient.report.entries.map(\.kind) == [.dropped])
    #expect(lenient.report.entries.first?.path == "[1]")
  }

  struct Holder: Codable, Equatable, Sendable {
    var shape: Shape?
  }

  /// A present Optional: strict throws, lenient nulls it (reported), as for any value that
  /// throws there.
  @Test func unknownTagInAnOptional() throws {
    let json = #"{"shape":{"kind":"hexagon"}}"#
    #expect(throws: DecodingError.self) {
      try LenientDecoder(policy: .strict).decode(Holder.self, from: json)
    }
    let lenient = try LenientDecoder(policy: .lenient).decodeWithReport(Holder.self, from: json)
    #expect(lenient.value == Holder(shape: nil))
    #expect(lenient.report.entries.map(\.kind) == [.nulled])
  }

  @Test func unknownTagErrorNamesTheTagAndTheVariants() throws {
    do {
      _ = try LenientDecoder(policy: .strict).decode(Shape.self, from: #"{"kind":"hexagon"}"#)
      Issue.record("decoded")
    } catch {
      let text = "\(error)"
      #expect(text.contains(#"Unknown tag "hexagon" at kind"#), "\(text)")
      #expect(text.contains(#""circle", "square""#), "\(text)")
    }
  }

  struct MissingTagCase: Sendable, CustomTestStringConvertible {
    var json: String
    var path: String
    var testDescription: String { json }
  }

  @Test(arguments: [
    MissingTagCase(json: #"{"side":1}"#, path: "kind"),
    MissingTagCase(json: #"{"kind":null,"side":1}"#, path: "kind"),
  ])
  func missingTagNamesTheTagPath(_ example: MissingTagCase) throws {
    for policy in Self.policies {
      do {
        _ = try LenientDecoder(policy: policy).decode(Shape.self, from: example.json)
        Issue.record("\(policy) decoded \(example.json)")
      } catch DecodingError.keyNotFound(let key, let context) {
        #expect(key.stringValue == example.path)
        #expect(context.debugDescription.contains("No tag at \(example.path)"))
      }
    }
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Shape.self, from: Data(example.json.utf8))
    }
  }

  /// A tag path through an array index: its own error, at the tagged value's coding path (asked
  /// only when the error is thrown).
  enum Indexed: TaggedDecodable, TaggedEncodable, Sendable {
    case square(Square)

    static let tagPath: JSONPath = "kinds.0"
    static let variants: [String: TaggedVariant<Indexed>] = [
      "square": TaggedVariant(Square.self) { .square($0) }
    ]
    var tag: String { "square" }
    var variantValue: any Encodable {
      switch self {
      case .square(let square): return square
      }
    }
  }

  struct IndexedHolder: Codable, Sendable {
    var items: [Indexed]
  }

  @Test(arguments: policies)
  func aTagPathWithAnIndexIsAnErrorAtTheValuesPath(policy: DecodingPolicy) throws {
    let json = #"{"items":[{"kinds":["square"],"side":1}]}"#
    do {
      let decoded = try LenientDecoder(policy: policy).decodeWithReport(
        IndexedHolder.self, from: Data(json.utf8))
      // Lenient drops the element; the report names it.
      #expect(policy == .lenient && decoded.value.items.isEmpty)
      #expect(decoded.report.entries.map(\.path) == ["items[0]"])
      #expect(decoded.report.entries.map(\.kind) == [.dropped])
    } catch DecodingError.dataCorrupted(let context) {
      #expect(policy == .strict)
      #expect(formatCodingPath(context.codingPath) == "items[0]")
      #expect(context.debugDescription.contains("has an array index"))
    }
    do {
      _ = try ModelEncoder().encode(IndexedHolder(items: [.square(Square(side: 1))]))
      Issue.record("encoded")
    } catch EncodingError.invalidValue(_, let context) {
      #expect(formatCodingPath(context.codingPath) == "items[0]")
      #expect(context.debugDescription.contains("has an array index"))
    }
  }

  @Test(arguments: policies)
  func missingNestedTagNamesTheTagPath(policy: DecodingPolicy) throws {
    do {
      _ = try LenientDecoder(policy: policy).decode(Message.self, from: #"{"body":{}}"#)
      Issue.record("decoded")
    } catch DecodingError.keyNotFound(let key, let context) {
      #expect(key.stringValue == "meta")
      #expect(context.debugDescription.contains("No tag at meta.kind"))
    }
  }

  // MARK: - Where the value sits

  @Test(arguments: policies)
  func inAnEnvelopeAndAtAKeyPath(policy: DecodingPolicy) throws {
    let body = #"""
      {"code":0,"msg":"ok","data":{"feed":{"events":[
        {"type":"WatchEvent","payload":{"action":"started"}},
        {"type":"NewEvent","payload":{}}],
      "shapes":[{"kind":"circle","radius":2}]}}}
      """#
    let decoder = LenientDecoder(policy: policy)
    let feed = try decoder.decodeEnvelope(Feed.self, from: body, at: "feed")
    #expect(feed.events.first == .watch(Watch(action: "started")))
    #expect(
      feed.events.last
        == .other(
          tag: "NewEvent", json: try JSON(data: Data(#"{"type":"NewEvent","payload":{}}"#.utf8))))
    #expect(feed.shapes == [.circle(Circle(radius: 2))])
    let events = try decoder.decode([Event].self, from: body, at: "data.feed.events")
    #expect(events == feed.events)
    let report = try decoder.decodeWithReport(
      [Event].self, from: Data(body.utf8), at: "data.feed.events"
    ).report
    #expect(report.entries.map(\.path) == ["data.feed.events[1]"])
  }

  // MARK: - Round trips (generated)

  static func randomEvent(_ random: inout SeededGenerator) -> Event {
    let words = ["main", "dev", "", "é😀", "a\"b", "x_y"]
    switch Int.random(in: 0..<3, using: &random) {
    case 0:
      return .push(
        Push(
          ref: words.randomElement(using: &random) ?? "",
          size: Int.random(in: -5...1_000, using: &random)))
    case 1:
      return .watch(Watch(action: words.randomElement(using: &random) ?? ""))
    default:
      let tag = "T\(Int.random(in: 0..<50, using: &random))"
      var object = JSONObject()
      object.append("type", .string(tag))
      object.append("n", .number(JSONNumber(Int.random(in: 0..<99, using: &random))))
      if Bool.random(using: &random) { object.append("payload", .object(JSONObject())) }
      return .other(tag: tag, json: .object(object))
    }
  }

  static func randomShape(_ random: inout SeededGenerator) -> Shape {
    Bool.random(using: &random)
      ? .circle(Circle(radius: Double(Int.random(in: 0..<1_000, using: &random)) / 8))
      : .square(Square(side: Int.random(in: -9...9, using: &random)))
  }

  /// decode → encode → decode is the identity, through ModelEncoder and JSONEncoder, read back
  /// by LenientDecoder in both policies and by JSONDecoder (`other` cases only through
  /// LenientDecoder and JSONDecoder alike: `JSON` reads with any decoder).
  @Test(arguments: GeneratedRuns.seeds(default: [11, 12]))
  func roundTripsThroughBothEncoders(seed: UInt64) throws {
    var random = SeededGenerator(state: seed)
    for _ in 0..<GeneratedRuns.cases(default: 200) {
      let feed = Feed(
        events: (0..<Int.random(in: 0..<4, using: &random)).map { _ in Self.randomEvent(&random) },
        shapes: (0..<Int.random(in: 0..<4, using: &random)).map { _ in Self.randomShape(&random) })
      var sorted = ModelEncoder()
      sorted.outputFormatting = [.sortedKeys]
      let encoded = [
        ("ModelEncoder", try ModelEncoder().encode(feed)),
        ("ModelEncoder sorted", try sorted.encode(feed)),
        ("JSONEncoder", try JSONEncoder().encode(feed)),
      ]
      for (encoder, data) in encoded {
        let text = String(decoding: data, as: UTF8.self)
        for policy in Self.policies {
          let again = try LenientDecoder(policy: policy).decodeWithReport(Feed.self, from: data)
          #expect(again.value == feed, "\(encoder) \(policy): \(text)")
          #expect(!again.report.hasDrift, "\(encoder) \(policy): \(again.report)")
        }
        #expect(try JSONDecoder().decode(Feed.self, from: data) == feed, "\(encoder): \(text)")
        // Encoding what was decoded gives the same bytes again.
        let decoded = try LenientDecoder().decode(Feed.self, from: data)
        if encoder == "ModelEncoder sorted" { #expect(try sorted.encode(decoded) == data) }
      }
    }
  }

  /// A tag inside the object its variant's value is read from is written into it, by
  /// `ModelEncoder` and `JSONEncoder` alike, and reads back: the value was encoded after the
  /// tag and replaced the object that held it (`{"payload":{"action":"a"}}`, no tag).
  @Test(arguments: policies)
  func aTagInsideItsVariantsObjectIsWrittenBack(_ policy: DecodingPolicy) throws {
    let body = #"{"payload":{"action":"a","type":"note"}}"#
    let note = try LenientDecoder(policy: policy).decode(Note.self, from: Data(body.utf8))
    #expect(note == .note(Watch(action: "a")))
    var ours = ModelEncoder()
    ours.outputFormatting = [.sortedKeys]
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys]
    for written in [try ours.encode(note), try foundation.encode(note)] {
      #expect(String(decoding: written, as: UTF8.self) == body)
      #expect(try LenientDecoder(policy: policy).decode(Note.self, from: written) == note)
    }
  }

  @Test func encodeWritesTheTagAndTheValueWhereTheyWereRead() throws {
    var encoder = ModelEncoder()
    encoder.outputFormatting = [.sortedKeys]
    #expect(
      try encoder.encodeString(Event.push(Push(ref: "m", size: 1)))
        == #"{"payload":{"ref":"m","size":1},"type":"PushEvent"}"#)
    #expect(
      try encoder.encodeString(Shape.square(Square(side: 2))) == #"{"kind":"square","side":2}"#)
    #expect(
      try encoder.encodeString(Message.text(Watch(action: "a")))
        == #"{"body":{"content":{"action":"a"}},"meta":{"kind":"text"}}"#)
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys]
    #expect(
      String(decoding: try foundation.encode(Message.text(Watch(action: "a"))), as: UTF8.self)
        == #"{"body":{"content":{"action":"a"}},"meta":{"kind":"text"}}"#)
  }
}
