import Foundation
import Testing

@testable import EnvelopeKit

/// The scanner against `ReferenceScanner` (the reader before its main loop kept its state in
/// local variables): on every generated input both accept with the same tape (every field of
/// every token) or both reject with the same error (reason, offset, line and column), with and
/// without trailing commas. The inputs aim at the fast paths' edges: strings and whitespace
/// runs of every length around 8-byte words and the end of the input, escapes, control
/// characters, invalid UTF-8, numbers cut anywhere, nesting at the depth limit, and valid
/// documents with single bytes replaced, inserted or removed, or cut short.
@Suite struct ScannerDifferentialTests {
  enum Outcome: Equatable, CustomStringConvertible {
    case tape([[UInt32]])
    case error(JSONReaderError)

    var description: String {
      switch self {
      case .tape(let tokens): return "tape \(tokens)"
      case .error(let error): return "error \(error.reason) at \(error.offset)"
      }
    }
  }

  static func fields(_ token: JSONToken) -> [UInt32] {
    [
      UInt32(token.kind.rawValue), UInt32(token.flags.rawValue), UInt32(token.shortCount),
      token.start, token.end, token.next,
    ]
  }

  static func scanned(_ bytes: [UInt8], maxDepth: Int, trailingCommas: Bool) -> Outcome {
    bytes.withUnsafeBufferPointer { buffer in
      do throws(JSONReaderError) {
        let tape = try JSONScanner(
          bytes: buffer, maxDepth: maxDepth, allowsTrailingCommas: trailingCommas
        ).scan()
        defer {
          if let base = tape.tokens.baseAddress {
            SpareTape.giveBack(base, capacity: tape.capacity)
          }
        }
        return .tape(tape.tokens.map(fields))
      } catch {
        return .error(error)
      }
    }
  }

  static func expected(_ bytes: [UInt8], maxDepth: Int, trailingCommas: Bool) -> Outcome {
    bytes.withUnsafeBufferPointer { buffer in
      var reference = ReferenceScanner(
        bytes: buffer, maxDepth: maxDepth, allowsTrailingCommas: trailingCommas)
      do throws(JSONReaderError) {
        return .tape(try reference.scan().map(fields))
      } catch {
        return .error(error)
      }
    }
  }

  /// Records a mismatch of `bytes` (both trailing-comma settings) in `failures`.
  static func compare(_ bytes: [UInt8], maxDepth: Int = 16, _ failures: inout [String]) {
    for trailingCommas in [false, true] {
      let got = scanned(bytes, maxDepth: maxDepth, trailingCommas: trailingCommas)
      let want = expected(bytes, maxDepth: maxDepth, trailingCommas: trailingCommas)
      if got != want, failures.count < 5 {
        let text = String(decoding: bytes, as: UTF8.self).debugDescription
        failures.append("\(text) (trailing commas \(trailingCommas)): \(got), expected \(want)")
      }
    }
  }

  /// String contents: plain ASCII, escapes, two- to four-byte UTF-8, and bytes that must be
  /// rejected (control characters, stray continuation bytes, overlong and surrogate forms,
  /// leads past U+10FFFF, sequences cut short).
  static let stringPieces: [[UInt8]] = [
    Array("a".utf8), Array("Zq".utf8), Array("        ".utf8), Array("é".utf8), Array("日".utf8),
    Array("😀".utf8), Array("日本語".utf8), Array("本\u{E000}ࠀ퟿語".utf8), Array("\\\"".utf8),
    Array("\\\\".utf8), Array("\\n".utf8),
    Array("\\u00e9".utf8), Array("\\ud83d\\ude00".utf8), Array("\\ud83d".utf8),
    Array("\\ude00".utf8), Array("\\x".utf8), Array("\\u12g4".utf8), [0x00], [0x1F], [0x7F],
    [0x80], [0xBF], [0xC0, 0x80], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80],
    [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF],
    [0xE6, 0x97, 0xA5, 0xED, 0xA0, 0x80], [0xE6, 0x97, 0xA5, 0xE0, 0x80, 0x80],
    [0xED, 0xA0, 0x80, 0xE6, 0x97, 0xA5], [0xE6, 0x97, 0xA5, 0xE6, 0x97], [0xEF, 0xBF],
    [0xF0, 0x8F, 0xBF, 0xBF],
    [0xF4, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF5, 0x80, 0x80, 0x80], [0xFF],
    Array("\t".utf8), Array("/".utf8),
  ]

  static let spaces: [String] = [
    "", " ", "\n", "\t", "\r\n", "  ", "\n    ", "\n        ", "\n         ", "\n\t  ",
    "\n                       ", " \u{0B}", "\u{0C}",
  ]

  static func string(_ generator: inout SeededGenerator) -> [UInt8] {
    var bytes: [UInt8] = [ASCII.quote]
    // Mostly plain text, so that the word loop runs before it meets the piece.
    let plain = Int.random(in: 0...20, using: &generator)
    bytes += Array(repeating: UInt8(ascii: "k"), count: plain)
    for _ in 0..<Int.random(in: 0...3, using: &generator) {
      bytes += stringPieces.pick(&generator)
      bytes += Array(repeating: UInt8(ascii: "m"), count: Int.random(in: 0...9, using: &generator))
    }
    bytes.append(ASCII.quote)
    return bytes
  }

  static let numbers: [String] = [
    "0", "-0", "7", "-12", "1234567890123456789", "0.5", "-0.25", "1e5", "1E+5", "2e-7",
    "-65.613616999999977", "01", "-", "1.", ".5", "1e", "1e+", "--1", "1.5e3.2", "+1",
    "0x10", "00", "1.0e-0", "123456789.123456789e12",
  ]

  static func value(_ depth: Int, _ generator: inout SeededGenerator) -> [UInt8] {
    func space() -> [UInt8] { Array(spaces.pick(&generator).utf8) }
    switch Int.random(in: 0..<(depth > 3 ? 5 : 8), using: &generator) {
    case 0:
      return Array(["null", "true", "false", "nul", "tru", "fals", "nulll"].pick(&generator).utf8)
    case 1, 2: return string(&generator)
    case 3, 4: return Array(numbers.pick(&generator).utf8)
    case 5:
      var bytes: [UInt8] = [ASCII.openBracket] + space()
      let count = Int.random(in: 0...4, using: &generator)
      for index in 0..<count {
        bytes += value(depth + 1, &generator) + space()
        if index < count - 1 || Int.random(in: 0..<8, using: &generator) == 0 {
          bytes += [ASCII.comma] + space()
        }
      }
      return bytes + [ASCII.closeBracket]
    default:
      var bytes: [UInt8] = [ASCII.openBrace] + space()
      let count = Int.random(in: 0...4, using: &generator)
      for index in 0..<count {
        bytes += string(&generator) + space() + [ASCII.colon] + space()
        bytes += value(depth + 1, &generator) + space()
        if index < count - 1 || Int.random(in: 0..<8, using: &generator) == 0 {
          bytes += [ASCII.comma] + space()
        }
      }
      return bytes + [ASCII.closeBrace]
    }
  }

  static let mutationBytes: [UInt8] =
    Array("\"\\{}[],: \n\t0-.eEtfnu".utf8) + [
      0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xFF,
    ]

  @Test func generatedDocumentsScanAsBefore() {
    var generator = SeededGenerator(state: 0xD1FF_5CA7)
    var failures: [String] = []
    for _ in 0..<6_000 {
      let document =
        Array(Self.spaces.pick(&generator).utf8) + Self.value(0, &generator)
        + Array(Self.spaces.pick(&generator).utf8)
      Self.compare(document, &failures)
      // One byte replaced, inserted or removed.
      var mutated = document
      let position = Int.random(in: 0..<mutated.count, using: &generator)
      switch Int.random(in: 0..<3, using: &generator) {
      case 0: mutated[position] = Self.mutationBytes.pick(&generator)
      case 1: mutated.insert(Self.mutationBytes.pick(&generator), at: position)
      default: mutated.remove(at: position)
      }
      Self.compare(mutated, &failures)
      // Cut short.
      Self.compare(
        Array(document.prefix(Int.random(in: 0..<document.count, using: &generator))), &failures)
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Every piece at every offset from 0 to 40 into a string, the string ending at, before and
  /// after the end of the input, as a value and as a key.
  @Test func stringsAtEveryWordOffsetScanAsBefore() async {
    await oneHeavyAtATime { stringsAtEveryWordOffsetScanAsBeforeBody() }
  }

  func stringsAtEveryWordOffsetScanAsBeforeBody() {
    var failures: [String] = []
    for piece in Self.stringPieces {
      for offset in 0...40 {
        for after in 0...9 {
          let text: [UInt8] =
            [ASCII.quote] + Array(repeating: UInt8(ascii: "a"), count: offset) + piece
            + Array(repeating: UInt8(ascii: "b"), count: after)
          Self.compare(text + [ASCII.quote], &failures)
          Self.compare(text, &failures)
          Self.compare(Array("[".utf8) + text + Array("\"]".utf8), &failures)
          Self.compare(Array("{".utf8) + text + Array("\": 1}".utf8), &failures)
          Self.compare(Array("{".utf8) + text + Array("\" :".utf8), &failures)
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Keys of every length from 0 to 34 bytes, plain or ending in a piece (non-ASCII, an escape,
  /// a control character), followed by each way a colon and the value can follow, with the
  /// input ending 0 to 24 bytes after, after `{` and after a comma: the plain-key path (a word
  /// at a time while a word and three bytes are left, `": "` and a value) at and past each of
  /// its edges.
  @Test func keysAtEveryLengthAndEndScanAsBefore() async {
    await oneHeavyAtATime { keysAtEveryLengthAndEndScanAsBeforeBody() }
  }

  func keysAtEveryLengthAndEndScanAsBeforeBody() {
    var failures: [String] = []
    // A flagged byte followed by what follows a key's closing quote, so that a key end taken
    // at any flagged byte, not only at a quote, is seen.
    let pieces: [[UInt8]] = [
      [], Array("é".utf8), Array("\\n".utf8), [0x1F], [0x80], [0x7F], [0x80] + Array(": 1".utf8),
      [0x1F] + Array(": 1".utf8), Array("\\\": 1".utf8),
    ]
    let afters = [
      "\": 1", "\":1", "\": \n1", "\" : 1", "\":  1", "\": \"v\"", "\": ", "\":", "\"", "",
      "\": {", "\": [", "\"x 1", "\": \t1", "\";: 1", "\":\u{0B}1", "\":\n1", "\":\t1", "\":\r\n1",
      "\":\u{1F}1",
    ]
    for length in 0...34 {
      for piece in pieces {
        let key = Array(repeating: UInt8(ascii: "k"), count: length) + piece
        for after in afters {
          for padding in 0...24 {
            let text: [UInt8] =
              Array("{\"".utf8) + key + Array(after.utf8)
              + Array(repeating: ASCII.space, count: padding)
            Self.compare(text + Array("}".utf8), &failures)
            Self.compare(text, &failures)
            Self.compare(Array("{\"a\": 0,".utf8) + text.dropFirst() + Array("}".utf8), &failures)
          }
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Whitespace runs of every length (spaces after a newline, tabs mixed in) between every pair
  /// of tokens, and numbers and literals cut at every byte.
  @Test func whitespaceRunsAndCutScalarsScanAsBefore() {
    var failures: [String] = []
    for length in 0...40 {
      for lead in ["", "\n", "\r\n", "\t", " "] {
        for tail in ["", "\t", "x", "\u{0B}"] {
          let run = lead + String(repeating: " ", count: length) + tail
          for template in [
            "{#\"a\"#:#1#,#\"b\"#:#[#true#,#null#]#}", "[#1#,#2#]#", "#\"k\"#", "{\"a\":#\"v\"}",
          ] {
            Self.compare(Array(template.replacingOccurrences(of: "#", with: run).utf8), &failures)
          }
        }
      }
    }
    for text in Self.numbers + ["true", "false", "null"] {
      let bytes = Array(text.utf8)
      for cut in 0...bytes.count {
        Self.compare(Array(bytes.prefix(cut)), &failures)
        Self.compare(Array("[".utf8) + bytes.prefix(cut) + Array("]".utf8), &failures)
        Self.compare(Array("{\"n\": ".utf8) + bytes.prefix(cut) + Array(" }".utf8), &failures)
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Runs of non-ASCII text as twitter.json has them (mostly three-byte sequences, with two-
  /// and four-byte ones, ASCII between), one byte replaced in a tenth of them by a byte that
  /// breaks or bends the UTF-8 (a stray continuation, a lead of an overlong or surrogate form,
  /// a lead past U+10FFFF, a quote, a control character), starting 0 to 15 bytes into the
  /// string (so that the reader's word and four-sequence steps start at every offset), with
  /// the input ending at and before the closing quote. Two oracles: the reference scanner
  /// (same tape or same error), and the standard library's UTF-8 validation (a string of no
  /// quote, backslash or control byte is accepted exactly when its bytes are valid UTF-8).
  @Test func nonASCIIRunsScanAsBeforeAndAsTheStandardLibraryValidates() async {
    await oneHeavyAtATime { nonASCIIRunsScanAsBeforeAndAsTheStandardLibraryValidatesBody() }
  }

  func nonASCIIRunsScanAsBeforeAndAsTheStandardLibraryValidatesBody() {
    var generator = SeededGenerator(state: 0x7E55_1CE5)
    var failures: [String] = []
    let sequences: [[UInt8]] = [
      Array("日".utf8), Array("語".utf8), Array("あ".utf8), Array("ー".utf8),
      Array("\u{FFFD}".utf8), Array("\u{E000}".utf8), Array("\u{0800}".utf8),
      Array("\u{D7FF}".utf8), Array("\u{1000}".utf8), Array("é".utf8), Array("\u{07FF}".utf8),
      Array("😀".utf8), Array("\u{10FFFF}".utf8), Array("a".utf8), Array(" ".utf8),
    ]
    let breakers: [UInt8] = [
      0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0x22, 0x1F, 0x41,
    ]
    for _ in 0..<20_000 {
      var body: [UInt8] = Array(
        repeating: UInt8(ascii: "p"), count: Int.random(in: 0...15, using: &generator))
      for _ in 0..<Int.random(in: 1...24, using: &generator) {
        // Three-byte sequences most of the time, in runs, as Japanese text is.
        body +=
          Int.random(in: 0..<4, using: &generator) == 0
          ? sequences.pick(&generator) : sequences[Int.random(in: 0..<4, using: &generator)]
      }
      if Int.random(in: 0..<10, using: &generator) == 0 {
        body[Int.random(in: 0..<body.count, using: &generator)] = breakers.pick(&generator)
      }
      let text = [ASCII.quote] + body + [ASCII.quote]
      Self.compare(text, &failures)
      Self.compare(Array(text.dropLast()), &failures)
      Self.compare(Array("{".utf8) + text + Array(":[".utf8) + text + Array("]}".utf8), &failures)
      if !body.contains(where: { $0 == ASCII.quote || $0 == ASCII.backslash || $0 < 0x20 }) {
        let valid = String(validating: body, as: UTF8.self) != nil
        var accepted = false
        if case .tape = Self.scanned(text, maxDepth: 16, trailingCommas: false) { accepted = true }
        if accepted != valid, failures.count < 5 {
          failures.append("\(body): accepted \(accepted), valid UTF-8 \(valid)")
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Pretty-printed documents, indented by 0 to 9 spaces a level (the lines after commas are
  /// where the reader predicts the indentation: `JSONScanner.skipLine`), as they are and with
  /// one byte of their whitespace replaced, inserted or removed (a space, a tab, a carriage
  /// return, a newline, a vertical tab, a letter), so that lines are indented as predicted, one
  /// space more or less, or end in a byte that is not a space; against the reference scanner.
  @Test func indentedLinesScanAsBefore() {
    var generator = SeededGenerator(state: 0x1D3E_47ED)
    var failures: [String] = []
    func printed(_ depth: Int, _ unit: Int, _ generator: inout SeededGenerator) -> [UInt8] {
      func line(_ level: Int) -> [UInt8] {
        [ASCII.newline] + Array(repeating: ASCII.space, count: level * unit)
      }
      switch Int.random(in: 0..<(depth > 4 ? 2 : 5), using: &generator) {
      case 0: return Array(["1", "-2.5", "null", "true", "\"v\"", "\"日本\""].pick(&generator).utf8)
      case 1:
        return Array(
          "\"\(String(repeating: "s", count: Int.random(in: 0...12, using: &generator)))\"".utf8)
      case 2:
        var bytes: [UInt8] = [ASCII.openBracket]
        let count = Int.random(in: 0...4, using: &generator)
        for index in 0..<count {
          bytes += line(depth + 1) + printed(depth + 1, unit, &generator)
          if index < count - 1 { bytes.append(ASCII.comma) }
        }
        return bytes + (count > 0 ? line(depth) : []) + [ASCII.closeBracket]
      default:
        var bytes: [UInt8] = [ASCII.openBrace]
        let count = Int.random(in: 0...4, using: &generator)
        for index in 0..<count {
          bytes += line(depth + 1) + Array("\"k\(index)\": ".utf8)
          bytes += printed(depth + 1, unit, &generator)
          if index < count - 1 { bytes.append(ASCII.comma) }
        }
        return bytes + (count > 0 ? line(depth) : []) + [ASCII.closeBrace]
      }
    }
    let replacements: [UInt8] = [
      ASCII.space, ASCII.tab, ASCII.carriageReturn, ASCII.newline, 0x0B, UInt8(ascii: "x"),
    ]
    for _ in 0..<4_000 {
      let unit = Int.random(in: 0...9, using: &generator)
      let document = printed(0, unit, &generator)
      Self.compare(document, &failures)
      let whitespace = document.indices.filter {
        document[$0] == ASCII.space || document[$0] == ASCII.newline
      }
      guard let position = whitespace.randomElement(using: &generator) else { continue }
      var mutated = document
      switch Int.random(in: 0..<3, using: &generator) {
      case 0: mutated[position] = replacements.pick(&generator)
      case 1: mutated.insert(replacements.pick(&generator), at: position)
      default: mutated.remove(at: position)
      }
      Self.compare(mutated, &failures)
      Self.compare(
        Array(mutated.prefix(Int.random(in: 0...mutated.count, using: &generator))), &failures)
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Nesting around the depth limit, closed, left open, and with siblings.
  @Test(arguments: [1, 2, 3, 63, 64, 65, 66, 129, 300])
  func nestingAtTheDepthLimitScansAsBefore(_ limit: Int) {
    var failures: [String] = []
    for depth in [limit - 1, limit, limit + 1] where depth >= 1 {
      let open = String(repeating: "[", count: depth)
      let close = String(repeating: "]", count: depth)
      for text in [
        open + close, open + "1" + close, open, open + close + "]", "{\"a\":" + open + close + "}",
        open + close.dropLast() + ",[]]",
        String(repeating: "{\"k\":", count: depth) + "0"
          + String(repeating: "}", count: depth),
      ] {
        Self.compare(Array(text.utf8), maxDepth: limit, &failures)
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// An object or array with 70,000 members: the count saturates at 65,535 on the tape.
  @Test func largeContainersCountAsBefore() {
    var failures: [String] = []
    let elements = Array(repeating: "1", count: 70_000).joined(separator: ",")
    Self.compare(Array("[\(elements)]".utf8), &failures)
    let pairs = (0..<70_000).map { "\"\($0)\":0" }.joined(separator: ",")
    Self.compare(Array("{\(pairs)}".utf8), &failures)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }
}

extension Array {
  /// A random element (the arrays here are never empty).
  fileprivate func pick(_ generator: inout SeededGenerator) -> Element {
    self[Int.random(in: 0..<count, using: &generator)]
  }
}
