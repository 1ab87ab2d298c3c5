import Foundation
import Testing

@testable import EnvelopeKit

/// Strict policy against Foundation's JSONDecoder: same value, or the same error case and path.
@Suite struct StrictDifferentialTests {
  struct Profile: Codable, Equatable {
    var id: Int
    var name: String
    var score: Double?
    var tags: [String]
    var owner: Owner?
    var flags: [String: Bool]
    var level: UInt8
  }
  struct Owner: Codable, Equatable { var id: Int64; var active: Bool }

  static let inputs: [String] = [
    #"{"id":1,"name":"a","score":1.5,"tags":["x"],"owner":{"id":9,"active":true},"flags":{"a":true},"level":3}"#,
    #"{"id":1,"name":"a","tags":[],"flags":{},"level":0}"#,
    #"{"id":"1","name":"a","tags":[],"flags":{},"level":0}"#,
    #"{"id":1,"name":5,"tags":[],"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","tags":[1],"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","tags":null,"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","tags":[],"flags":{},"level":300}"#,
    #"{"id":1,"name":"a","tags":[],"flags":{},"level":-1}"#,
    #"{"id":1,"name":"a","tags":[],"flags":{"b":1},"level":0}"#,
    #"{"id":1,"name":"a","tags":[],"owner":{"id":"9","active":true},"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","tags":[],"owner":{"active":true},"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","tags":[],"owner":[],"flags":{},"level":0}"#,
    #"{"id":null,"name":"a","tags":[],"flags":{},"level":0}"#,
    #"{"name":"a","tags":[],"flags":{},"level":0}"#,
    #"{"id":1.0,"name":"a","tags":[],"flags":{},"level":1e1}"#,
    #"{"id":1,"name":"a","score":"1.5","tags":[],"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","score":null,"tags":[],"flags":{},"level":0}"#,
    #"{"id":1,"name":"a","tags":["a",null],"flags":{},"level":0}"#,
    #"[]"#,
    #"null"#,
    #"{"id":1,"name":"a","tags":[],"flags":{},"level":0,"id":2}"#,
    #"{"id":1,"name":"\u00e9\ud83d\ude00","tags":[],"flags":{},"level":0}"#,
  ]

  static func outcome<T: Decodable & Equatable>(_ decode: () throws -> T) -> String {
    do {
      return "value \(try decode())"
    } catch let error as DecodingError {
      return describe(error)
    } catch {
      return "other \(error)"
    }
  }

  static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
        separator: ".")
    }
    switch error {
    case .typeMismatch(_, let context): return "typeMismatch at \(path(context))"
    case .valueNotFound(_, let context): return "valueNotFound at \(path(context))"
    case .keyNotFound(let key, let context):
      return "keyNotFound \(key.stringValue) at \(path(context))"
    // Foundation drops the path of unrepresentable numbers; we keep it, so compare the case only.
    case .dataCorrupted: return "dataCorrupted"
    @unknown default: return "unknown"
    }
  }

  @Test(arguments: inputs)
  func profileMatchesFoundation(_ json: String) {
    var strict = LenientDecoder()
    strict.policy = .strict
    let data = Data(json.utf8)
    let ours = Self.outcome { try strict.decode(Profile.self, from: data) }
    let foundation = Self.outcome { try JSONDecoder().decode(Profile.self, from: data) }
    #expect(ours == foundation)
  }

  @Test(arguments: ["[1,2,3]", "[1,\"2\"]", "[1.5]", "[null]", "{}", "[18446744073709551615]"])
  func scalarArraysMatchFoundation(_ json: String) {
    var strict = LenientDecoder()
    strict.policy = .strict
    let data = Data(json.utf8)
    #expect(
      Self.outcome { try strict.decode([Int].self, from: data) }
        == Self.outcome { try JSONDecoder().decode([Int].self, from: data) })
  }

  @Test(
    .enabled(if: SharedData.has("payloads"), "needs ../shared/data/payloads"),
    arguments: ["twitter.json", "citm_catalog.json", "canada.json", "github_events.json"])
  func sharedPayloadsDecodeLikeFoundation(_ file: String) async throws {
    try await oneHeavyAtATime { try sharedPayloadsDecodeLikeFoundationBody(file) }
  }

  func sharedPayloadsDecodeLikeFoundationBody(_ file: String) throws {
    let folder = try SharedData.folder("payloads")
    let data = try Data(contentsOf: folder.appendingPathComponent(file))
    var strict = LenientDecoder()
    strict.policy = .strict
    // A generic model: every value of every payload, compared as JSON.
    let ours = try strict.decode(AnyJSON.self, from: data)
    let foundation = try JSONDecoder().decode(AnyJSON.self, from: data)
    #expect(ours == foundation)
  }
}

/// Decodes any JSON through the Codable containers, to exercise every path of a decoder.
enum AnyJSON: Decodable, Equatable {
  case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

  init(from decoder: any Decoder) throws {
    if let keyed = try? decoder.container(keyedBy: AnyCodingKey.self) {
      var object: [String: AnyJSON] = [:]
      for key in keyed.allKeys {
        object[key.stringValue] = try keyed.decode(AnyJSON.self, forKey: key)
      }
      self = .object(object)
    } else if var unkeyed = try? decoder.unkeyedContainer() {
      var array: [AnyJSON] = []
      while !unkeyed.isAtEnd { array.append(try unkeyed.decode(AnyJSON.self)) }
      self = .array(array)
    } else {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let bool = try? single.decode(Bool.self) {
        self = .bool(bool)
      } else if let number = try? single.decode(Double.self) {
        self = .number(number)
      } else {
        self = .string(try single.decode(String.self))
      }
    }
  }
}
