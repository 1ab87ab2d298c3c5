import Foundation
import Testing

@testable import EnvelopeKit

/// Generated documents, framed in random chunks and each element decoded as `JSON`, against the
/// whole-body decode of the array at the path (strict: a missing path, a non-array or malformed
/// JSON throws there too). Valid documents and mutated (mostly malformed) ones; the envelope
/// status against `envelopeStatus(from:)`.
@Suite struct ElementFramingDifferentialTests {
  /// Random JSON text with the pieces framing gets wrong: escaped quotes and backslashes,
  /// brackets and braces in strings, `\u` escapes and surrogate pairs, non-ASCII text, numbers
  /// of every shape, whitespace anywhere.
  struct DocumentGenerator {
    var random: SeededGenerator

    static let keys = ["data", "items", "code", "msg", "x", "d\\u0061ta", "ité"]
    static let strings = [
      "", "a", "\\\"", "\\\\", "]", "[", "}", "{", ",", ":", "\\\"]\\\\", "\\u005D",
      "\\ud83d\\ude00",
      "é", "日本", "\\n\\t", "\\/", "[1,2]", "{\\\"a\\\":1}",
    ]
    static let numbers = [
      "0", "-0", "1", "\"18\"", "-12", "3.25", "1e5", "-2.5E-3", "12345678901234567890", "0.0",
    ]

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    mutating func space() -> String { chance(30) ? pick([" ", "\n", "\t", "\r\n", "  "]) : "" }

    mutating func string() -> String {
      "\"" + (0..<Int(random.next() % 3)).map { _ in pick(Self.strings) }.joined() + "\""
    }

    mutating func value(depth: Int) -> String {
      let kind = depth > 3 ? random.next() % 4 : random.next() % 6
      switch kind {
      case 0: return string()
      case 1: return pick(Self.numbers)
      case 2: return pick(["true", "false", "null"])
      case 3: return chance(50) ? string() : pick(Self.numbers)
      case 4:
        let count = Int(random.next() % 4)
        return "[" + space()
          + (0..<count).map { _ in value(depth: depth + 1) + space() }
          .joined(separator: "," + space()) + "]"
      default:
        return object(depth: depth, members: [])
      }
    }

    mutating func object(depth: Int, members extra: [(String, String)]) -> String {
      var members: [(String, String)] = (0..<Int(random.next() % 3)).map { _ in
        ("\"" + pick(Self.keys) + "\"", value(depth: depth + 1))
      }
      for member in extra {
        members.insert(member, at: Int(random.next() % UInt64(members.count + 1)))
      }
      return "{" + space()
        + members.map { $0.0 + space() + ":" + space() + $0.1 }.joined(separator: "," + space())
        + space() + "}"
    }

    /// A document with (usually) an array at `path` among random siblings, and an envelope's
    /// code and message somewhere.
    mutating func document(path: [JSONPath.Component]) -> String {
      var inner: String
      if chance(85) {
        let count = Int(random.next() % 6)
        inner =
          "[" + space()
          + (0..<count).map { _ in value(depth: path.count) }.joined(
            separator: space() + "," + space())
          + (chance(10) && count > 0 ? "," : "") + space() + "]"
      } else {
        inner = value(depth: path.count)
      }
      for component in path.reversed() {
        switch component {
        case .key(let key):
          inner = object(depth: 0, members: [("\"" + key + "\"", inner)])
        case .index(let position):
          let before = (0..<position).map { _ in value(depth: 2) }
          inner = "[" + (before + [inner]).joined(separator: ",") + "]"
        }
      }
      return space() + inner + space()
    }

    /// `text` with one byte changed, deleted or added.
    mutating func mutated(_ text: [UInt8]) -> [UInt8] {
      guard !text.isEmpty else { return text }
      var bytes = text
      let at = Int(random.next() % UInt64(bytes.count))
      let replacement = pick(Array("[]{},:\"\\ 0-.eEtfnu1x".utf8) + [0xC3, 0x01])
      switch random.next() % 3 {
      case 0: bytes[at] = replacement
      case 1: bytes.remove(at: at)
      default: bytes.insert(replacement, at: at)
      }
      return bytes
    }
  }

  static let paths: [JSONPath] = ["data", "data.items", "items", "data.1", "data.items.0", .root]

  /// The oracle for one document (FramingOracle.checkElements), chunked at random sizes;
  /// records a violation.
  static func check(
    _ bytes: [UInt8], at path: JSONPath, seed: UInt64, random: inout SeededGenerator
  ) -> Bool {
    let sizes = (0..<4).map { _ in Int.random(in: 1...64, using: &random) }
    guard
      let violation = FramingOracle.checkElements(bytes, at: path, sizes: sizes)
        ?? FramingOracle.checkBatches(bytes, at: path, sizes: sizes)
    else { return true }
    Issue.record("seed \(seed): \(violation)")
    return false
  }

  @Test(arguments: GeneratedRuns.seeds(default: [21, 22]))
  func eventsAndLinesDoNotDependOnTheChunking(seed: UInt64) {
    var generator = DocumentGenerator(random: SeededGenerator(state: seed))
    let pieces = [
      "data: ", "data:", "event: e", "id: 1", "id", "retry: 5", ": c", "\n", "\r", "\r\n", "\n\n",
      "x", "[DONE]", "\u{FEFF}", "é", " ",
    ]
    for _ in 0..<GeneratedRuns.cases(default: 1500) {
      let text = (0..<Int(generator.random.next() % 24)).map { _ in generator.pick(pieces) }
        .joined()
      let sizes = (0..<3).map { _ in Int(generator.random.next() % 9) }
      if let violation = FramingOracle.checkChunking(
        Array(text.utf8), sizes: sizes.allSatisfy { $0 == 0 } ? [1] : sizes)
      {
        Issue.record("seed \(seed): \(violation)")
        return
      }
    }
  }

  @Test(arguments: GeneratedRuns.seeds(default: [1, 2, 3, 4]))
  func framedElementsEqualTheWholeBodyDecode(seed: UInt64) async {
    await oneHeavyAtATime { framedElementsEqualTheWholeBodyDecodeBody(seed: seed) }
  }

  func framedElementsEqualTheWholeBodyDecodeBody(seed: UInt64) {
    var generator = DocumentGenerator(random: SeededGenerator(state: seed))
    var random = SeededGenerator(state: seed ^ 0x5EED)
    var failures = 0
    for _ in 0..<GeneratedRuns.cases(default: 1500) where failures < 3 {
      let path = generator.pick(Self.paths)
      let document = Array(generator.document(path: path.components).utf8)
      if !Self.check(document, at: path, seed: seed, random: &random) { failures += 1 }
      let mutated = generator.mutated(document)
      if !Self.check(mutated, at: path, seed: seed, random: &random) { failures += 1 }
    }
  }

  @Test(arguments: GeneratedRuns.seeds(default: [11, 12]))
  func envelopeStatusEqualsTheWholeBodyStatus(seed: UInt64) throws {
    var generator = DocumentGenerator(random: SeededGenerator(state: seed))
    var random = SeededGenerator(state: seed ^ 0x5EED)
    for _ in 0..<GeneratedRuns.cases(default: 1000) {
      let document = Array(generator.document(path: ["data", "items"]).utf8)
      guard (try? JSON(data: Data(document))) != nil else { continue }
      let whole = Result { try LenientDecoder().envelopeStatus(from: Data(document)) }
      var framer = JSONElementFramer(elementsAt: "items", in: .default)
      let chunks = Chunks.random(
        document, maxSize: Int.random(in: 1...64, using: &random), using: &random)
      try eachChunk(chunks) { try framer.feed($0) { _ in } }
      try framer.finish()
      let streamed = Result { try framer.envelopeStatus(atEnd: true) }
      let text = String(decoding: document, as: UTF8.self)
      switch (whole, streamed) {
      case (.success(let expected), .success(let actual)):
        #expect(actual == expected, "seed \(seed): \(text)")
      case (.failure(let expected as EnvelopeError), .failure(let actual as EnvelopeError)):
        #expect(actual == expected, "seed \(seed): \(text)")
      default:
        Issue.record("seed \(seed): whole \(whole) vs framed \(streamed): \(text)")
      }
    }
  }
}
