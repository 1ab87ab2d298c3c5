import Foundation
import Testing

@testable import EnvelopeKit

/// A second reader's differential of the scanner, beside `ScannerDifferentialTests`: token soup
/// and random bytes at many seeds against `ReferenceScanner` (same tape or same error), every
/// pair of three-byte UTF-8 sequences at every word offset against both the reference and
/// Swift's own UTF-8 validation, and generated valid-UTF-8 documents against Foundation's
/// `JSONSerialization` for accept and reject.
@Suite struct ScannerFuzzDifferentialTests {
  typealias Differential = ScannerDifferentialTests

  static let soup: [String] = [
    "{", "}", "[", "]", ",", ":", ": ", ":\n\t ", " ", "\n", "\t", "\r", "        ", "\n    ",
    "\"", "\"k\"", "\"key\": ", "\"abcdefgh\"", "\\", "\\u", "\\ud83d", "\\ude00", "\\n", "0", "-",
    "-0", "1.", "1e", "01", "1e999", "-1.5E-3", "123456789012", ".", "e", "+", "true", "false",
    "null", "tru", "nul", "é", "日", "😀", "a",
  ]

  static let rawBytes: [UInt8] =
    Array("{}[],:\" \n\t\r\\u0123456789-+.eEtrufalsn/bx".utf8) + [
      0x00, 0x01, 0x1F, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
      0xE1, 0xE6, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
    ]

  /// Token soup and byte soup at 16 seeds: the scanner and the reference agree on every input
  /// (tape or error, both trailing-comma settings, depth limits 1 to 4).
  @Test(arguments: GeneratedRuns.seeds(default: Array(1...16)))
  func soupScansAsBefore(_ seed: UInt64) async {
    await oneHeavyAtATime { soupScansAsBeforeBody(seed) }
  }

  func soupScansAsBeforeBody(_ seed: UInt64) {
    var generator = SeededGenerator(state: seed &* 0x5EED_0041)
    var failures: [String] = []
    for _ in 0..<GeneratedRuns.cases(default: 4_000) {
      var tokens: [UInt8] = []
      for _ in 0..<Int.random(in: 0...14, using: &generator) {
        tokens += Array(Self.soup[Int.random(in: 0..<Self.soup.count, using: &generator)].utf8)
      }
      let depth = Int.random(in: 1...4, using: &generator)
      Differential.compare(tokens, maxDepth: depth, &failures)
      var bytes: [UInt8] = []
      for _ in 0..<Int.random(in: 0...24, using: &generator) {
        bytes.append(Self.rawBytes[Int.random(in: 0..<Self.rawBytes.count, using: &generator)])
      }
      Differential.compare(bytes, maxDepth: depth, &failures)
      // Byte soup inside a string, so that UTF-8 and escapes are reached.
      Differential.compare([ASCII.quote] + bytes + [ASCII.quote], maxDepth: depth, &failures)
      Differential.compare(
        Array("{\"".utf8) + bytes + Array("\": [\"".utf8) + bytes, maxDepth: depth, &failures)
      for input in [
        tokens, [ASCII.quote] + bytes + [ASCII.quote],
        Array("{\"".utf8) + bytes + Array("\":[\"".utf8) + bytes + Array("\"]}".utf8),
      ] {
        Self.checkStrings(input, &failures)
      }
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Strings of 0 to 24 pieces (ASCII runs, raw UTF-8 of 2 to 4 bytes, simple escapes and `\u`
  /// escapes of ASCII, 2-, 3- and 4-byte scalars), as values and keys, short (inline in a
  /// `String`) and long: `ScannedStringOracle` holds for each, in particular a string that an
  /// escape makes non-ASCII is not flagged ASCII.
  @Test(arguments: GeneratedRuns.seeds(default: [61, 62, 63, 64]))
  func generatedStringsCopyAsTheyRead(_ seed: UInt64) {
    let pieces = [
      "a", "abcdefghij", "é", "日本", "😀", "\\n", "\\\"", "\\/", "\\u0041", "\\u00e9", "\\u65e5",
      "\\ud83d\\ude00", "\\u0000", "\\u007f", "\\u0080",
    ]
    var generator = SeededGenerator(state: seed &* 0x5EED_0061)
    var failures: [String] = []
    var checked = 0
    for _ in 0..<GeneratedRuns.cases(default: 3_000) {
      var text = ""
      for _ in 0..<Int.random(in: 0...24, using: &generator) {
        text += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
      }
      Self.checkStrings(Array("[\"\(text)\", {\"\(text)\": 1}]".utf8), &failures)
      checked += 1
    }
    #expect(checked > 0)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// Every pair of three-byte sequences (each lead E0 to EF with second bytes at the edges of
  /// the E0 and ED ranges, and bad continuation bytes), at every offset 0 to 16 into a string
  /// and with 0 to 3 bytes after them before the end of the input: the reference agrees, and a
  /// closed string is accepted exactly when Swift validates its contents as UTF-8.
  @Test func threeByteSequencePairsScanAsBefore() async {
    await oneHeavyAtATime { threeByteSequencePairsScanAsBeforeBody() }
  }

  func threeByteSequencePairsScanAsBeforeBody() {
    var sequences: [[UInt8]] = []
    for lead: UInt8 in [0xE0, 0xE1, 0xE6, 0xEC, 0xED, 0xEE, 0xEF] {
      for second: UInt8 in [0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0] {
        for third: UInt8 in [0x80, 0xBF, 0x41] {
          sequences.append([lead, second, third])
        }
      }
    }
    sequences += [[0xF0, 0x9F, 0x98, 0x80], [0xC3, 0xA9], [0xF4, 0x90, 0x80, 0x80]]
    var failures: [String] = []
    var checked = 0
    for first in sequences {
      for second in sequences {
        for offset in 0...16 {
          let content = Array(repeating: UInt8(ascii: "a"), count: offset) + first + second
          for after in [0, 1, 3] {
            let text =
              [ASCII.quote] + content + Array(repeating: UInt8(ascii: "b"), count: after)
            // Closed, and the end of the input inside the string.
            Differential.compare(text + [ASCII.quote], &failures)
            if offset % 4 == 0 { Differential.compare(text, &failures) }
            if after == 0 { Self.checkStrings(text + [ASCII.quote], &failures) }
            let valid = String(validating: content, as: UTF8.self) != nil
            let accepted = Self.accepts(text + [ASCII.quote])
            if valid != accepted, failures.count < 5 {
              failures.append("\(text + [ASCII.quote]): accepted \(accepted), valid \(valid)")
            }
            checked += 1
          }
        }
      }
    }
    #expect(checked > 100_000)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }

  /// `ScannedStringOracle` over the document `bytes` make, when the reader accepts them: the
  /// strings `JSONDocument.string(_:)` copies without validating their UTF-8 again are valid.
  static func checkStrings(_ bytes: [UInt8], _ failures: inout [String]) {
    guard let document = try? JSONDocument(data: Data(bytes), maxDepth: 512),
      let violation = ScannedStringOracle.violation(in: document), failures.count < 5
    else { return }
    failures.append("\(bytes): \(violation)")
  }

  static func accepts(_ bytes: [UInt8], trailingCommas: Bool = false) -> Bool {
    if case .tape = Differential.scanned(bytes, maxDepth: 512, trailingCommas: trailingCommas) {
      return true
    }
    return false
  }

  static func foundationAccepts(_ bytes: [UInt8]) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
  }

  /// Generated documents and their one-byte mutations, where valid UTF-8: the reader with
  /// trailing commas allowed (as `LenientDecoder` reads; Foundation accepts them too) accepts
  /// exactly what `JSONSerialization` accepts, and a top-level string reads as the same text.
  /// Left out, where Foundation differs on purpose: lone surrogate escapes (the reader rejects
  /// them rather than alter text), NUL bytes (Foundation stops reading at one: it accepts
  /// `1\0+`), and exponents of three or more digits (Foundation rejects a number past `Double`'s
  /// range; RFC 8259's grammar has no limit and the reader keeps the text).
  @Test(arguments: GeneratedRuns.seeds(default: [41, 42, 43, 44]))
  func generatedDocumentsAcceptedAsFoundationDoes(_ seed: UInt64) throws {
    var generator = SeededGenerator(state: seed)
    var failures: [String] = []
    var compared = 0
    let cases = GeneratedRuns.cases(default: 1_500)
    for _ in 0..<cases {
      var document = Differential.value(0, &generator)
      if Int.random(in: 0..<3, using: &generator) == 0, !document.isEmpty {
        let position = Int.random(in: 0..<document.count, using: &generator)
        document[position] =
          Differential.mutationBytes[
            Int.random(in: 0..<Differential.mutationBytes.count, using: &generator)]
      }
      guard String(validating: document, as: UTF8.self) != nil else { continue }
      let text = String(decoding: document, as: UTF8.self)
      if text.contains("\\ud83d") || text.contains("\\ude00") || document.contains(0)
        || text.range(of: "[eE][+-]?[0-9]{3,}", options: .regularExpression) != nil
      {
        continue
      }
      compared += 1
      let ours = Self.accepts(document, trailingCommas: true)
      let theirs = Self.foundationAccepts(document)
      if ours != theirs, failures.count < 8 {
        failures.append("\(text.debugDescription): ours \(ours), Foundation \(theirs)")
      }
      if ours, theirs, document.first == ASCII.quote,
        case .string(let value) = try JSON(data: Data(document)),
        let other = try JSONSerialization.jsonObject(
          with: Data(document), options: .fragmentsAllowed) as? String,
        value != other, failures.count < 8
      {
        failures.append("\(text.debugDescription): \(value.debugDescription) vs \(other)")
      }
    }
    print("seed \(seed): \(compared) of \(cases) documents compared with Foundation")
    #expect(compared * 3 >= cases)
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }
  /// Nested containers with more than 65,535 members, 70,000 empty containers (each closed from
  /// the opening branch), and a tape that grows from the smallest start: the reference agrees.
  @Test func largeNestedContainersScanAsBefore() {
    var failures: [String] = []
    let elements = Array(repeating: "-0", count: 70_000).joined(separator: ",")
    let pairs = (0..<70_000).map { "\"\($0)\": \($0)" }.joined(separator: ",")
    for text in [
      "{\"a\": [\(elements)], \"b\": {\(pairs)}, \"c\": []}",
      "[" + Array(repeating: "[]", count: 70_000).joined(separator: ",") + "]",
      "[" + Array(repeating: "{}", count: 70_000).joined(separator: ", ") + ",]",
      "[[" + elements + "]" + String(repeating: ",[1]", count: 3) + "]",
    ] {
      Differential.compare(Array(text.utf8), maxDepth: 3, &failures)
    }
    #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
  }
}
