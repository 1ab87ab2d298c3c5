import EnvelopeKit
import Foundation
import Testing

/// A model with a field of each kind, every one of which the generator below fills with the
/// right kind, another kind, null, or nothing.
struct Mixed: Decodable, Equatable {
  var id: Int
  var price: Double
  var name: String
  var active: Bool
  var tags: [String]
  var note: String?
  var child: Child?
  struct Child: Decodable, Equatable { var n: Int; var label: String }
}

/// Counts its `didFinishDecoding()` calls (a class, so the count survives copies).
final class FinishCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func add() { lock.withLock { count += 1 } }
}
nonisolated(unsafe) var finishCounter = FinishCounter()

struct FullName: Decodable, Equatable, DecodingFinishing {
  var first: String
  var last: String
  var full = ""
  enum CodingKeys: String, CodingKey { case first, last }
  mutating func didFinishDecoding() {
    full = first + " " + last
    finishCounter.add()
  }
}

@Suite(.serialized) struct InputFormsTests {
  /// JSON text for `Mixed`, in canonical number and string forms (what a JSON value or
  /// JSONSerialization can give back exactly).
  static func document(_ generator: inout SeededGenerator) -> String {
    func pick(_ choices: [String]) -> String {
      choices[Int(generator.next() % UInt64(choices.count))]
    }
    var fields: [String] = []
    func field(_ name: String, _ choices: [String]) {
      let value = pick(choices + ["null", "<missing>"])
      if value != "<missing>" { fields.append("\"\(name)\": \(value)") }
    }
    field("id", ["18", "\"18\"", "\"x\"", "1.5", "true", "[]"])
    field("price", ["12.5", "\"12.5\"", "3", "\"abc\"", "false"])
    field("name", ["\"Ada\"", "7", "true", "{}"])
    field("active", ["true", "false", "\"true\"", "1", "0", "\"no\""])
    field("tags", ["[\"a\", \"b\"]", "[\"a\", 1, null]", "\"a\"", "[]"])
    field("note", ["\"n\"", "5", "[1]"])
    field("child", ["{\"n\": 1, \"label\": \"c\"}", "{\"n\": \"2\"}", "[]", "\"c\""])
    return "{" + fields.joined(separator: ", ") + "}"
  }

  /// The same value, report or error from every input form, in both policies, over generated
  /// documents (the `Data` path is the oracle).
  @Test func everyInputFormDecodesLikeData() throws {
    var generator = SeededGenerator(state: 26)
    for _ in 0..<400 {
      let text = Self.document(&generator)
      let data = Data(text.utf8)
      for policy in [DecodingPolicy.lenient, .strict] {
        let decoder = LenientDecoder(policy: policy)
        let expected = Result { try decoder.decodeWithReport(Mixed.self, from: data) }
        let object = try JSONSerialization.jsonObject(with: data)
        let forms: [(String, Result<Decoded<Mixed>, any Error>)] = [
          ("String", Result { try decoder.decodeWithReport(Mixed.self, from: text) }),
          ("JSON", Result { try decoder.decodeWithReport(Mixed.self, from: try JSON(data: data)) }),
          ("object", Result { try decoder.decodeWithReport(Mixed.self, fromJSONObject: object) }),
        ]
        for (name, result) in forms {
          switch (expected, result) {
          case (.success(let want), .success(let got)):
            #expect(got.value == want.value, "\(name) \(policy): \(text)")
            #expect(got.report.entries == want.report.entries, "\(name) \(policy): \(text)")
          case (.failure(let want), .failure(let got)):
            #expect("\(got)" == "\(want)", "\(name) \(policy): \(text)")
          default:
            Issue.record("\(name) \(policy) disagrees with Data on \(text)")
          }
        }
      }
    }
  }

  @Test func foundationObjectsAsAppsHoldThem() throws {
    let decoder = LenientDecoder()
    // A literal: Swift Bool, Int, Double, nested arrays and dictionaries, nil.
    let literal: [String: Any] = [
      "id": "18", "price": 12.5, "name": "Ada", "active": true, "tags": ["a", 2],
      "note": Optional<String>.none as Any, "child": ["n": 1, "label": "c"],
    ]
    let mixed = try decoder.decode(Mixed.self, fromJSONObject: literal)
    #expect(mixed.id == 18 && mixed.active && mixed.tags == ["a", "2"] && mixed.note == nil)
    // JSONSerialization's NSNumber booleans are booleans, not 1 and 0.
    let parsed = try JSONSerialization.jsonObject(with: Data(#"{"b": true, "i": 1}"#.utf8))
    struct Flags: Decodable { var b: Bool; var i: Int }
    let flags = try LenientDecoder(policy: .strict).decode(Flags.self, fromJSONObject: parsed)
    #expect(flags.b && flags.i == 1)
    #expect(throws: DecodingError.self) {
      try LenientDecoder(policy: .strict).decode(Flags.self, fromJSONObject: ["b": 1, "i": true])
    }
    // Large integers and decimals keep every digit.
    struct Big: Decodable { var u: UInt64; var d: Decimal }
    let big = try decoder.decode(
      Big.self, fromJSONObject: ["u": UInt64.max, "d": Decimal(string: "0.1000000000000000055")!])
    #expect(big.u == UInt64.max && big.d == Decimal(string: "0.1000000000000000055"))
    // Anything that is not JSON is a clear error naming where it is.
    for bad: Any in [
      ["when": Date()] as [String: Any], ["list": [1, Double.nan]] as [String: Any], NSObject(),
    ] {
      do {
        _ = try decoder.decode(JSON.self, fromJSONObject: bad)
        Issue.record("\(bad) decoded")
      } catch DecodingError.dataCorrupted(let context) {
        #expect(context.debugDescription.hasPrefix("The given object is not JSON:"))
      }
    }
    do {
      _ = try decoder.decode(JSON.self, fromJSONObject: ["a": ["b": Date()]])
    } catch DecodingError.dataCorrupted(let context) {
      #expect(context.codingPath.map(\.stringValue) == ["a", "b"])
      #expect(context.debugDescription.contains("a value of type Date"))
    }
  }

  @Test func stringAndJSONFormsOfTheEnvelopeAndKeyPathCalls() throws {
    let decoder = LenientDecoder()
    let body = #"{"code": 0, "msg": "ok", "data": {"list": [{"n": "1", "label": "a"}]}}"#
    let viaString = try decoder.decodeEnvelope(
      [Mixed.Child].self,
      from: body.replacingOccurrences(
        of: #"{"list": "#, with: ""
      ).replacingOccurrences(of: "]}}", with: "]}"))
    #expect(viaString == [Mixed.Child(n: 1, label: "a")])
    let json = try JSON(data: Data(body.utf8))
    #expect(try decoder.decode([Mixed.Child].self, from: json, at: "data>list").count == 1)
    #expect(try decoder.decode([Mixed.Child].self, from: body, at: "data.list").count == 1)
    let object = try JSONSerialization.jsonObject(with: Data(body.utf8))
    #expect(
      try decoder.decode([Mixed.Child].self, fromJSONObject: object, at: "data>list").count == 1)
    #expect(
      try decoder.decodeEnvelope([String: [Mixed.Child]].self, fromJSONObject: object)["list"]?
        .count == 1)
    #expect(
      try decoder.decodeEnvelope([String: [Mixed.Child]].self, from: json)["list"]?.count == 1)
  }

  @Test func moyaMapperPathsWorkWhereverAPathIsTaken() throws {
    #expect(JSONPath("data>list").components == [.key("data"), .key("list")])
    let literal: JSONPath = "data>list>0"
    #expect(literal.components == [.key("data"), .key("list"), .index(0)])
    // A dot wins; a key holding `>` or `.` stays reachable as a component.
    #expect(JSONPath("a>b.c").components == [.key("a>b"), .key("c")])
    #expect(JSONPath(["a>b"]).components == [.key("a>b")])
    let body = Data(#"{"code": 0, "msg": "ok", "data": {"list": [1, 2], "a>b": 3}}"#.utf8)
    let decoder = LenientDecoder()
    #expect(try decoder.decode([Int].self, from: body, at: "data>list") == [1, 2])
    #expect(try decoder.decodeEnvelope([Int].self, from: body, at: "list") == [1, 2])
    // The same path from every input form, a MoyaMapper path inside data included.
    let text = String(decoding: body, as: UTF8.self)
    let nested = #"{"code": 0, "msg": "ok", "data": {"page": {"rows": [3]}}}"#
    #expect(try decoder.decodeEnvelope([Int].self, from: text, at: "list") == [1, 2])
    #expect(try decoder.decodeEnvelope([Int].self, from: JSON(data: body), at: "list") == [1, 2])
    let object = try JSONSerialization.jsonObject(with: body)
    #expect(try decoder.decodeEnvelope([Int].self, fromJSONObject: object, at: "list") == [1, 2])
    #expect(try decoder.decodeEnvelope([Int].self, from: nested, at: "page>rows") == [3])
    #expect(try decoder.decode(Int.self, from: body, at: ["data", "a>b"]) == 3)
    struct Holder: Decodable { var first: Int }
    var mapped = LenientDecoder()
    mapped.map(Holder.self, key: "first", to: "data>list>0")
    #expect(try mapped.decode(Holder.self, from: body).first == 1)
    let format = EnvelopeFormat(code: "code", message: "msg", data: "data>list")
    #expect(try decoder.decodeEnvelope([Int].self, from: body, format: format) == [1, 2])
  }

  @Test func theFinishingHookRunsOncePerDecodedValueInBothPolicies() throws {
    for policy in [DecodingPolicy.lenient, .strict] {
      finishCounter = FinishCounter()
      let decoder = LenientDecoder(policy: policy)
      let one = try decoder.decode(FullName.self, from: #"{"first": "Ada", "last": "Lovelace"}"#)
      #expect(one.full == "Ada Lovelace")
      #expect(finishCounter.value == 1)
      let list = try decoder.decode(
        [FullName].self, from: #"[{"first": "A", "last": "B"}, {"first": "C", "last": "D"}]"#)
      #expect(list.map(\.full) == ["A B", "C D"])
      #expect(finishCounter.value == 3)
      let envelope = try decoder.decodeEnvelope(
        FullName?.self, from: #"{"code": 0, "msg": "ok", "data": {"first": "E", "last": "F"}}"#)
      #expect(envelope?.full == "E F")
      #expect(finishCounter.value == 4)
    }
    // A value that fails to decode (dropped leniently) gets no call.
    finishCounter = FinishCounter()
    let kept = try LenientDecoder().decode(
      [FullName].self, from: #"[{"first": "A", "last": "B"}, "not an object"]"#)
    #expect(kept.count == 1 && finishCounter.value == 1)
  }
}
