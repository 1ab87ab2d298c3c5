import Foundation
import Testing

@testable import EnvelopeKit

/// Escaped strings read as Foundation's `JSONDecoder` reads them: generated string contents
/// (plain runs of every length around 8-byte words, every simple escape, `\u` escapes of
/// one-, two- and three-byte scalars, surrogate pairs, raw two- to four-byte UTF-8), decoded as
/// `[String]` strictly and leniently, and as an object's key and value, against the same text decoded by
/// `JSONDecoder`. The oracle holds `unescape`'s run copy (text between escapes taken eight bytes
/// at a time) and its escape decoding.
@Suite struct EscapedStringDifferentialTests {
  /// One piece of a string's contents, as JSON text.
  static func piece(_ generator: inout SeededGenerator) -> String {
    switch generator.next() % 8 {
    case 0, 1:
      // A plain run, 0 to 20 bytes: around a word either way.
      let letters = Array("abcxyz019 -_.:/?=&%ABC")
      return String(
        (0..<Int(generator.next() % 21)).map { _ in
          letters[Int(generator.next() % UInt64(letters.count))]
        })
    case 2:
      return ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"][
        Int(generator.next() % 8)]
    case 3:
      // A BMP scalar that is no surrogate, escaped: one, two or three UTF-8 bytes.
      var value = UInt32(generator.next() % 0xFFFF) + 1
      if (0xD800...0xDFFF).contains(value) { value -= 0x800 }
      let hex = String(value, radix: 16, uppercase: generator.next() % 2 == 0)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    case 4:
      // A surrogate pair: a scalar past the BMP.
      let value = UInt32(generator.next() % 0x10_0000) + 0x1_0000
      let lead = 0xD800 + ((value - 0x1_0000) >> 10)
      let trail = 0xDC00 + ((value - 0x1_0000) & 0x3FF)
      return "\\u" + String(lead, radix: 16) + "\\u" + String(trail, radix: 16)
    case 5:
      return ["é", "ß", "あ", "漢字", "😀", "\u{10FFFF}", "ü"][Int(generator.next() % 7)]
    default:
      return String(repeating: "q", count: Int(generator.next() % 9) + 7)
    }
  }

  /// Contents of up to 12 pieces.
  static func contents(_ generator: inout SeededGenerator) -> String {
    (0..<Int(generator.next() % 12) + 1).map { _ in piece(&generator) }.joined()
  }

  @Test(arguments: GeneratedRuns.seeds(default: [11, 12, 13, 14]))
  func generatedEscapedStringsReadAsFoundationReadsThem(seed: UInt64) throws {
    var generator = SeededGenerator(state: seed)
    let foundation = JSONDecoder()
    var failures: [String] = []
    for _ in 0..<GeneratedRuns.cases(default: 1500) {
      let text = Self.contents(&generator)
      let array = Data("[\"\(text)\"]".utf8)
      let object = Data("{\"\(text)\":\"\(text)\"}".utf8)
      let want = try foundation.decode([String].self, from: array)
      let wantObject = try foundation.decode([String: String].self, from: object)
      for policy in [DecodingPolicy.strict, .lenient] {
        let decoder = LenientDecoder(policy: policy)
        let got = try decoder.decode([String].self, from: array)
        let gotObject = try decoder.decode([String: String].self, from: object)
        if (got != want || gotObject != wantObject), failures.count < 5 {
          failures.append("\(text.debugDescription) \(policy): \(got) vs \(want)")
        }
      }
    }
    #expect(failures.isEmpty, "\(failures)")
  }
}
