import Foundation
import Testing

@testable import EnvelopeKit

/// A keyed container scans small objects and builds a key table for `.custom` strategies and for
/// objects over 64 members. Generated objects on both sides of that size, with duplicate keys
/// and keys that collide once converted, read under each key strategy: strict against
/// Foundation's `JSONDecoder` (same value or same error), lenient against Foundation on the
/// document with its numeric strings made numbers, with one `coerced` entry per string read.
@Suite struct WideObjectDifferentialTests {
  /// Names the probe asks for: several collide under `.convertFromSnakeCase` or the custom rule.
  static let askedNames = [
    "userId", "user_id", "_userId", "userId_", "aB", "a_b", "ab", "A_B", "userid", "f3", "f70",
  ]
  /// JSON keys the generator mixes in (with duplicates) among unique fillers `f0`, `f1`, ….
  static let pool = [
    "userId", "user_id", "USER_ID", "user__id", "_user_id", "userId_", "UserId", "a_b", "aB",
    "ab", "A_B", "a__b", "userid",
  ]

  enum Keys: String, CaseIterable, Sendable { case plain, snake, custom }

  /// The custom rule: lowercased, underscores dropped (`user_id`, `UserId` → `userid`).
  static func custom(_ path: [any CodingKey]) -> any CodingKey {
    let name = path.last?.stringValue ?? ""
    return AnyKey(name.lowercased().replacingOccurrences(of: "_", with: ""))
  }

  /// What a model reading `askedNames` sees: each one's value and presence, and `allKeys`.
  struct Probe: Decodable, Equatable {
    /// `name=value` in `askedNames` order (an array: a dictionary's description has no order).
    var values: [String] = []
    var present: [String] = []
    var keys: [String] = []
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyKey.self)
      keys = Set(container.allKeys.map(\.stringValue)).sorted()
      for name in WideObjectDifferentialTests.askedNames {
        if container.contains(AnyKey(name)) { present.append(name) }
        let value = try container.decodeIfPresent(Int.self, forKey: AnyKey(name))
        values.append("\(name)=\(value.map(String.init) ?? "nil")")
      }
    }
  }

  /// How many asked names read a string (Foundation's reading): the lenient report's count.
  struct StringCount: Decodable {
    var count = 0
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyKey.self)
      for name in WideObjectDifferentialTests.askedNames
      where (try? container.decodeIfPresent(String.self, forKey: AnyKey(name))) != nil {
        count += 1
      }
    }
  }

  /// An object of `size` members, its keys drawn from `pool` and unique fillers, its values
  /// numbers, numeric strings or null; and the same with every string a number.
  static func object(size: Int, _ rng: inout SeededGenerator) -> (json: String, numeric: String) {
    var keys: [String] = (0..<size).map { "f\($0)" }
    for _ in 0..<Int.random(in: 0...min(size, 14), using: &rng) {
      keys[Int.random(in: 0..<size, using: &rng)] = pool.randomElement(using: &rng) ?? "ab"
    }
    var json: [String] = []
    var numeric: [String] = []
    for key in keys {
      let number = Int.random(in: 0..<100, using: &rng)
      switch Int.random(in: 0..<8, using: &rng) {
      case 0:
        json.append(#""\#(key)":"\#(number)""#)
        numeric.append(#""\#(key)":\#(number)"#)
      case 1:
        json.append(#""\#(key)":null"#)
        numeric.append(#""\#(key)":null"#)
      default:
        json.append(#""\#(key)":\#(number)"#)
        numeric.append(#""\#(key)":\#(number)"#)
      }
    }
    return ("{" + json.joined(separator: ",") + "}", "{" + numeric.joined(separator: ",") + "}")
  }

  static func decoders(_ keys: Keys, _ policy: DecodingPolicy) -> (LenientDecoder, JSONDecoder) {
    var ours = LenientDecoder(policy: policy)
    let foundation = JSONDecoder()
    switch keys {
    case .plain: break
    case .snake:
      ours.keyDecodingStrategy = .convertFromSnakeCase
      foundation.keyDecodingStrategy = .convertFromSnakeCase
    case .custom:
      ours.keyDecodingStrategy = .custom { Self.custom($0) }
      foundation.keyDecodingStrategy = .custom { Self.custom($0) }
    }
    return (ours, foundation)
  }

  static let sizes = [1, 2, 63, 64, 65, 66, 130]

  @Test(arguments: Keys.allCases)
  func strictReadsWideObjectsAsFoundationDoes(keys: Keys) async {
    await oneHeavyAtATime { strictReadsWideObjectsAsFoundationDoesBody(keys: keys) }
  }

  func strictReadsWideObjectsAsFoundationDoesBody(keys: Keys) {
    let (ours, foundation) = Self.decoders(keys, .strict)
    for seed in GeneratedRuns.seeds(default: [1, 2, 3]) {
      var rng = SeededGenerator(state: seed)
      for size in Self.sizes {
        for _ in 0..<GeneratedRuns.cases(default: 40) {
          let data = Data(Self.object(size: size, &rng).json.utf8)
          let expected = StrictDifferentialTests.outcome {
            try foundation.decode(Probe.self, from: data)
          }
          let got = StrictDifferentialTests.outcome { try ours.decode(Probe.self, from: data) }
          #expect(
            got == expected,
            "\(keys) seed \(seed) size \(size): \(String(decoding: data, as: UTF8.self))")
        }
      }
    }
  }

  @Test(arguments: Keys.allCases, [1_000, 1])
  func lenientReadsWideObjectsAsFoundationReadsThemFixed(keys: Keys, maxEntries: Int) async throws {
    try await oneHeavyAtATime {
      try lenientReadsWideObjectsAsFoundationReadsThemFixedBody(keys: keys, maxEntries: maxEntries)
    }
  }

  func lenientReadsWideObjectsAsFoundationReadsThemFixedBody(keys: Keys, maxEntries: Int) throws {
    var (ours, foundation) = Self.decoders(keys, .lenient)
    ours.maxReportEntries = maxEntries
    for seed in GeneratedRuns.seeds(default: [4, 5]) {
      var rng = SeededGenerator(state: seed)
      for size in Self.sizes {
        for _ in 0..<GeneratedRuns.cases(default: 30) {
          let (json, numeric) = Self.object(size: size, &rng)
          let data = Data(json.utf8)
          let expected = try foundation.decode(Probe.self, from: Data(numeric.utf8))
          let strings = try foundation.decode(StringCount.self, from: data).count
          let decoded = try ours.decodeWithReport(Probe.self, from: data)
          let context = "\(keys) seed \(seed) size \(size): \(json)"
          #expect(decoded.value == expected, "\(context)")
          #expect(decoded.report.totalCount == strings, "\(context)")
          #expect(decoded.report.entries.count == min(strings, maxEntries), "\(context)")
          #expect(decoded.report.entries.allSatisfy { $0.kind == .coerced }, "\(context)")
        }
      }
    }
  }
}
