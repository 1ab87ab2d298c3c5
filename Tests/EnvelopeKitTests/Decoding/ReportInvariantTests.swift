import Foundation
import Testing

@testable import EnvelopeKit

// The invariant: in lenient policy the report is empty exactly when strict policy decodes the
// same input to the same value. Checked over seeded, generated inputs for generated shapes.

private enum Kind: String, Codable, Equatable { case alpha, beta }

private struct GenItem: Codable, Equatable {
  var id: Int
  var name: String?
  var price: Double
  var tags: [String]
  var flag: Bool?
  var kind: Kind
  var meta: [String: Int]?
  var count: UInt8
  var ratio: Float?
}

private struct GenPage: Codable, Equatable {
  var items: [GenItem]
  var next: GenItem?
  var total: Int64
  var ids: [Int?]
  var lookup: [String: GenItem]
  var cursor: String
}

/// A declared Swift type, for the generator.
private indirect enum Shape: Sendable {
  case int, uint8, int64, double, float, string, bool, kind
  case optional(Shape), array(Shape), dictionary(Shape)
  case object([(String, Shape)])

  static let item = Shape.object([
    ("id", .int), ("name", .optional(.string)), ("price", .double), ("tags", .array(.string)),
    ("flag", .optional(.bool)), ("kind", .kind), ("meta", .optional(.dictionary(.int))),
    ("count", .uint8), ("ratio", .optional(.float)),
  ])
  static let page = Shape.object([
    ("items", .array(item)), ("next", .optional(item)), ("total", .int64),
    ("ids", .array(.optional(.int))), ("lookup", .dictionary(item)), ("cursor", .string),
  ])
}

/// Writes JSON for a shape: mostly valid values, sometimes drift of every kind the rules know.
private struct InputGenerator {
  var random: SeededGenerator

  /// Values that are wrong for most shapes: other kinds, numeric strings, edge numbers.
  static let drift = [
    "null", #""18""#, #""x""#, "1.5", "true", "0", "[]", "{}", "1e-400", "300", "-1", #""NaN""#,
    #""[1,2]""#, #""{\"id\":1}""#, "3.0", #"" 7 ""#, #""beta""#, #""gamma""#, "1e2",
  ]

  mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

  mutating func value(_ shape: Shape, depth: Int = 0) -> String {
    if chance(12) { return Self.drift.randomElement(using: &random) ?? "null" }
    switch shape {
    case .int: return String(Int.random(in: -1000...1000, using: &random))
    case .uint8: return String(Int.random(in: 0...255, using: &random))
    case .int64: return String(Int64.random(in: -1 << 40...1 << 40, using: &random))
    case .double:
      return ["0.5", "12", "-3.25", "1e3", "2.5E-3"].randomElement(using: &random) ?? "1"
    case .float: return ["0.25", "7", "-1.5"].randomElement(using: &random) ?? "1"
    case .string:
      return ["\"a\"", "\"\"", "\"Ada \\u00e9\"", "\"18\""].randomElement(using: &random) ?? "\"\""
    case .bool: return chance(50) ? "true" : "false"
    case .kind: return chance(50) ? "\"alpha\"" : "\"beta\""
    case .optional(let wrapped): return chance(25) ? "null" : value(wrapped, depth: depth)
    case .array(let element):
      let count = depth > 2 ? 0 : Int.random(in: 0...3, using: &random)
      return "[" + (0..<count).map { _ in value(element, depth: depth + 1) }.joined(separator: ",")
        + "]"
    case .dictionary(let element):
      let count = depth > 2 ? 0 : Int.random(in: 0...2, using: &random)
      return "{"
        + (0..<count).map { "\"k\($0)\":" + value(element, depth: depth + 1) }
        .joined(separator: ",") + "}"
    case .object(let members):
      var parts: [String] = []
      for (key, member) in members where !chance(6) {
        parts.append("\"\(key)\":" + value(member, depth: depth + 1))
      }
      return "{" + parts.joined(separator: ",") + "}"
    }
  }
}

@Suite struct ReportInvariantTests {
  /// Checks the invariant for one input; returns a description of a violation, or nil.
  static func violation<T: Decodable & Equatable>(_ type: T.Type, _ json: String) -> String? {
    let data = Data(json.utf8)
    let strictValue = try? LenientDecoder(policy: .strict).decode(type, from: data)
    let lenient: Decoded<T>
    do {
      lenient = try LenientDecoder().decodeWithReport(type, from: data)
    } catch {
      // Lenient may still throw (an enum with no default case, a root of the wrong kind): then
      // strict must throw too.
      return strictValue == nil ? nil : "lenient threw \(error) where strict decoded: \(json)"
    }
    switch (strictValue, lenient.report.isEmpty) {
    case (let value?, true):
      return value == lenient.value ? nil : "values differ with an empty report: \(json)"
    case (_?, false):
      return "strict decoded but the report says \(lenient.report): \(json)"
    case (nil, true):
      return "strict threw but the report is empty: \(json)"
    case (nil, false):
      return nil
    }
  }

  @Test(arguments: [1 as UInt64, 2, 3, 4])
  func reportIsEmptyExactlyWhenStrictAgrees(seed: UInt64) {
    var generator = InputGenerator(random: SeededGenerator(state: seed))
    var violations: [String] = []
    var strictSucceeded = 0
    let cases = 1_000
    for _ in 0..<cases {
      let page = generator.value(.page)
      if let problem = Self.violation(GenPage.self, page) { violations.append(problem) }
      if (try? LenientDecoder(policy: .strict).decode(GenPage.self, from: Data(page.utf8))) != nil {
        strictSucceeded += 1
      }
      let item = generator.value(Shape.item)
      if let problem = Self.violation(GenItem.self, item) { violations.append(problem) }
      let items = "[" + generator.value(Shape.item) + "," + generator.value(Shape.item) + "]"
      if let problem = Self.violation([GenItem].self, items) { violations.append(problem) }
    }
    #expect(violations.isEmpty, "seed \(seed): \(violations.prefix(5).joined(separator: "\n"))")
    // The generator must produce both sides of the invariant to test it.
    #expect(strictSucceeded > 0 && strictSucceeded < cases, "seed \(seed): \(strictSucceeded)")
  }
}
