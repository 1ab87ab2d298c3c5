import Foundation
import Testing

@testable import EnvelopeKit

/// JSON Lines framing at every split, and each line decoded as element `[index]`.
@Suite struct JSONLinesFramerTests {
  static func frame(_ chunks: [[UInt8]]) -> [(Int, String)] {
    var framer = JSONLinesFramer()
    var lines: [(Int, String)] = []
    eachChunk(chunks) { chunk in
      framer.feed(chunk) { lines.append(($0.index, String(decoding: $0.bytes, as: UTF8.self))) }
    }
    framer.finish { lines.append(($0.index, String(decoding: $0.bytes, as: UTF8.self))) }
    return lines
  }

  static let sample = Array(
    ("{\"id\":1}\n"
      + "\n"
      + "  \t \r\n"
      + "{\"id\":2,\"s\":\"a\\nb\"}\r\n"
      + "[1,2]\n"
      + "\r\n"
      + "\"text\"\n"
      + " 3 \n"
      + "{\"id\":4}").utf8)

  static let expected = [
    "{\"id\":1}", "{\"id\":2,\"s\":\"a\\nb\"}", "[1,2]", "\"text\"", " 3 ", "{\"id\":4}",
  ]

  @Test func sampleSplitAtEveryByteGivesEveryValueWithItsIndex() {
    for offset in 0...Self.sample.count {
      let lines = Self.frame(Chunks.split(Self.sample, at: offset))
      #expect(lines.map(\.1) == Self.expected, "split at \(offset)")
      #expect(lines.map(\.0) == Array(0..<Self.expected.count), "split at \(offset)")
    }
    #expect(Self.frame(Chunks.bytewise(Self.sample)).map(\.1) == Self.expected)
  }

  @Test(arguments: [
    ("", [String]()), ("\n\n", []), ("a", ["a"]), ("a\n", ["a"]), ("a\r\n", ["a"]),
    ("a\r", ["a"]), ("a\rb\n", ["a\rb"]), (" \n\t\na\n \r\n", ["a"]),
  ])
  func edgeCase(_ text: String, _ expected: [String]) {
    let bytes = Array(text.utf8)
    for offset in 0...bytes.count {
      #expect(Self.frame(Chunks.split(bytes, at: offset)).map(\.1) == expected)
    }
  }

  struct Row: Decodable, Equatable {
    var id: Int
    var price: Double
  }

  @Test func lineWithDriftIsReportedWithItsIndex() throws {
    let text = "{\"id\":1,\"price\":2}\n\n{\"id\":2,\"price\":\"3.5\"}\n"
    var framer = JSONLinesFramer()
    var rows: [Row] = []
    var paths: [String] = []
    let decoder = LenientDecoder()
    try framer.feed(Data(text.utf8)) { line in
      let decoded = try decoder.decodeFrame(Row.self, from: line.bytes, index: line.index)
      rows += decoded.value.map { [$0] } ?? []
      paths += decoded.report.entries.map(\.path)
    }
    #expect(rows == [Row(id: 1, price: 2), Row(id: 2, price: 3.5)])
    #expect(paths == ["[1].price"])
  }

  @Test func strictErrorPathStartsWithTheLineIndex() throws {
    let decoder = LenientDecoder(policy: .strict)
    let error = try #require(
      throws: DecodingError.self,
      performing: {
        try decoder.decodeFrame(
          Row.self, from: Data("{\"id\":2,\"price\":\"x\"}".utf8), index: 1532)
      })
    guard case .typeMismatch(_, let context) = error else {
      Issue.record("expected typeMismatch, got \(error)")
      return
    }
    #expect(formatCodingPath(context.codingPath) == "[1532].price")
  }

  @Test func unusableLineIsDroppedAndReportedLeniently() throws {
    let decoded = try LenientDecoder().decodeFrame(Row.self, from: Data("[1]".utf8), index: 7)
    #expect(decoded.value == nil)
    #expect(decoded.report.entries.map(\.path) == ["[7]"])
    #expect(decoded.report.entries.map(\.kind) == [.dropped])
  }

  @Test func malformedLineIsDataCorruptedAtItsIndex() throws {
    let error = try #require(
      throws: DecodingError.self,
      performing: {
        try LenientDecoder().decodeFrame(Row.self, from: Data("{\"id\":".utf8), index: 3)
      })
    guard case .dataCorrupted(let context) = error else {
      Issue.record("expected dataCorrupted, got \(error)")
      return
    }
    #expect(formatCodingPath(context.codingPath) == "[3]")
    #expect(context.underlyingError is JSONReaderError)
  }
}
