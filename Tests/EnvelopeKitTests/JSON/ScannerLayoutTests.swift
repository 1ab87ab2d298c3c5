import Foundation
import Testing

@testable import EnvelopeKit

/// The scanner's fast paths (the inlined short-string loop, word-at-a-time indentation runs,
/// the innermost container's count kept outside the tape) against a generator that knows the
/// value it wrote: every string, element and pair comes back, with any whitespace between tokens
/// and strings of every length next to word boundaries and the end of the input.
@Suite struct ScannerLayoutTests {
  indirect enum Node {
    case null, bool(Bool), int(Int), string(String), array([Node]), object([(String, Node)])
  }

  static let pieces: [String] = [
    "a", "Z", " ", "é", "日本", "😀", "\"", "\\", "\n", "/", "\u{7F}", "\u{1F}",
  ]

  static func text(_ generator: inout SeededGenerator) -> String {
    var text = ""
    for _ in 0..<Int.random(in: 0...19, using: &generator) {
      text += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
    }
    return text
  }

  static func node(_ depth: Int, _ generator: inout SeededGenerator) -> Node {
    switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &generator) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &generator))
    case 2: return .int(Int.random(in: -1_000_000...1_000_000, using: &generator))
    case 3: return .string(text(&generator))
    case 4, 5:
      return .array(
        (0..<Int.random(in: 0...5, using: &generator)).map { _ in node(depth + 1, &generator) })
    default:
      return .object(
        (0..<Int.random(in: 0...5, using: &generator)).map { index in
          (text(&generator) + "#\(index)", node(depth + 1, &generator))
        })
    }
  }

  /// Whitespace between tokens: none, one byte, or a newline and an indentation run of up to
  /// 20 spaces (tabs and carriage returns mixed in).
  static func space(_ generator: inout SeededGenerator) -> String {
    switch Int.random(in: 0..<4, using: &generator) {
    case 0: return ""
    case 1: return [" ", "\n", "\t", "\r"][Int.random(in: 0..<4, using: &generator)]
    case 2: return "\n" + String(repeating: " ", count: Int.random(in: 0...20, using: &generator))
    default:
      return "\r\n" + String(repeating: " ", count: Int.random(in: 0...9, using: &generator))
        + "\t" + String(repeating: " ", count: Int.random(in: 0...9, using: &generator))
    }
  }

  static func quoted(_ string: String) -> String {
    var out = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\u{1F}": out += "\\u001f"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  static func write(_ node: Node, _ generator: inout SeededGenerator) -> String {
    switch node {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .int(let value): return String(value)
    case .string(let value): return quoted(value)
    case .array(let elements):
      let inner = elements.map { space(&generator) + write($0, &generator) + space(&generator) }
      return "[" + space(&generator) + inner.joined(separator: ",") + "]"
    case .object(let pairs):
      let inner = pairs.map { key, value in
        space(&generator) + quoted(key) + space(&generator) + ":" + space(&generator)
          + write(value, &generator) + space(&generator)
      }
      return "{" + space(&generator) + inner.joined(separator: ",") + "}"
    }
  }

  /// Whether `json` is `node`, element by element and pair by pair, in order.
  static func matches(_ json: JSON, _ node: Node) -> Bool {
    switch (json, node) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.number(let a), .int(let b)): return a.text == String(b)
    case (.string(let a), .string(let b)): return a == b
    case (.array(let a), .array(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1) }
    case (.object(let a), .object(let b)):
      return a.keys == b.map(\.0) && zip(a.values, b.map(\.1)).allSatisfy { matches($0, $1) }
    default: return false
    }
  }

  @Test func generatedDocumentsReadBackAsWritten() throws {
    var generator = SeededGenerator(state: 0x5CA_77E5)
    for round in 0..<3_000 {
      let node = Self.node(0, &generator)
      let text = Self.space(&generator) + Self.write(node, &generator) + Self.space(&generator)
      let json = try JSON(data: Data(text.utf8), maxDepth: 16)
      #expect(Self.matches(json, node), "round \(round): \(text)")
      // Every container's count on the tape equals its children, walked with `next`.
      try JSONDocument.scanning(Data(text.utf8), maxDepth: 16) { document in
        let tokens = document.tokens
        for index in tokens.indices
        where tokens[index].kind == .array || tokens[index].kind == .object {
          var children = 0
          var child = index + 1
          while child < Int(tokens[index].next) {
            children += 1
            child = Int(tokens[child].next)
          }
          if tokens[index].kind == .object { children /= 2 }
          #expect(document.count(index) == children, "round \(round), token \(index)")
        }
      }
    }
  }

  /// Depth `maxDepth` is accepted and one more is refused, for containers opened first, after
  /// siblings, and after an empty sibling closed.
  @Test(arguments: [1, 2, 3, 64, 65, 300])
  func theDepthLimitIsExact(_ limit: Int) throws {
    for prefix in ["", "[1,", "[[],", "{\"a\":{},\"b\":"] {
      let opened = prefix.isEmpty ? 0 : 1
      let inner = limit - opened
      guard inner >= 1 else { continue }
      let closing = prefix.isEmpty ? "" : (prefix.hasPrefix("{") ? "}" : "]")
      let fits =
        prefix + String(repeating: "[", count: inner) + String(repeating: "]", count: inner)
        + closing
      #expect(throws: Never.self) { try JSON(data: Data(fits.utf8), maxDepth: limit) }
      let deeper =
        prefix + String(repeating: "[", count: inner + 1)
        + String(repeating: "]", count: inner + 1) + closing
      let error = try #require(throws: JSONReaderError.self) {
        try JSON(data: Data(deeper.utf8), maxDepth: limit)
      }
      #expect(error.reason == .tooDeep(limit: limit))
    }
  }
}
