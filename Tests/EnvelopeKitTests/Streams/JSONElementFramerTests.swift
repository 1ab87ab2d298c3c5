import Foundation
import Testing

@testable import EnvelopeKit

/// The elements of an array at a path, framed from a document fed in chunks split anywhere.
@Suite struct JSONElementFramerTests {
  struct Outcome {
    var elements: [String] = []
    var offsets: [Int] = []
    /// The envelope status known when the first element was handed out.
    var statusAtFirstElement: EnvelopeStatus?
    var finalStatus: EnvelopeStatus?
    var arrayError: DecodingError?
  }

  static func frame(
    _ chunks: [[UInt8]], at path: JSONPath, envelope: EnvelopeFormat? = .default
  ) throws -> Outcome {
    var framer = JSONElementFramer(elementsAt: path, in: envelope)
    var outcome = Outcome()
    try eachChunk(chunks) { chunk in
      var status: EnvelopeStatus?
      if outcome.elements.isEmpty { status = try framer.envelopeStatus() }
      try framer.feed(chunk) { element in
        if outcome.elements.isEmpty { outcome.statusAtFirstElement = status }
        outcome.elements.append(String(decoding: element.bytes, as: UTF8.self))
        outcome.offsets.append(element.offset)
      }
    }
    try framer.finish()
    outcome.finalStatus = try framer.envelopeStatus(atEnd: true)
    outcome.arrayError = framer.arrayError(atEnd: true)
    return outcome
  }

  static let elements = [
    #"{"name":"a \"quoted\" ] } [ {","tags":["x]","y\\"]}"#,
    #"[1,[2,[3]],{}]"#,
    #""\u005D\"\\""#,
    "-12.5e+3",
    "true",
    "null",
    #"{"nested":{"items":[9,9]}}"#,
    "0",
  ]

  static let array = "[ " + elements.joined(separator: " ,\n ") + " ]"

  static let codeFirst = Array(
    ("\u{FEFF}{\"code\" : 0, \"msg\":\"ok\",\n \"data\": {\"skip\": [1, {\"items\": [5]}], "
      + "\"items\": " + array + ", \"items\": [\"duplicate\"]}, \"code\": 1}").utf8)

  static let codeLast = Array(
    ("{\"data\": {\"items\": " + array + "},\n\"msg\": \"late\", \"code\": 1001}").utf8)

  @Test func codeFirstSplitAtEveryByteGivesEveryElementAfterTheStatus() throws {
    let whole = String(decoding: Self.codeFirst, as: UTF8.self)
    for offset in 0...Self.codeFirst.count {
      let outcome = try Self.frame(Chunks.split(Self.codeFirst, at: offset), at: "items")
      #expect(outcome.elements == Self.elements, "split at \(offset)")
      #expect(outcome.finalStatus == EnvelopeStatus(code: 0, message: "ok", isSuccess: true))
      #expect(outcome.arrayError == nil)
      // Each offset points at its element in the document.
      for (element, start) in zip(outcome.elements, outcome.offsets) {
        let text = Array(Self.codeFirst[start..<(start + element.utf8.count)])
        #expect(String(decoding: text, as: UTF8.self) == element)
      }
      _ = whole
    }
    // Fed a byte at a time, the code (first in the document) is known before any element.
    let bytewise = try Self.frame(Chunks.bytewise(Self.codeFirst), at: "items")
    #expect(bytewise.statusAtFirstElement?.isSuccess == true)
  }

  @Test func codeLastSplitAtEveryByteGivesEveryElementThenTheFailure() throws {
    for offset in 0...Self.codeLast.count {
      let outcome = try Self.frame(Chunks.split(Self.codeLast, at: offset), at: "items")
      #expect(outcome.elements == Self.elements, "split at \(offset)")
      #expect(outcome.statusAtFirstElement == nil)
      #expect(outcome.finalStatus == EnvelopeStatus(code: 1001, message: "late", isSuccess: false))
    }
  }

  @Test func elementsEqualTheWholeBodyDecode() throws {
    for document in [Self.codeFirst, Self.codeLast] {
      let whole = try LenientDecoder(policy: .strict).decode(
        [JSON].self, from: Data(document), at: "data.items")
      let framed = try Self.frame([document], at: "items").elements.map {
        try JSON(data: Data($0.utf8))
      }
      #expect(framed == whole)
    }
  }

  @Test func rootArrayOfAPlainBody() throws {
    let bytes = Array(Self.array.utf8)
    for offset in 0...bytes.count {
      let outcome = try Self.frame(Chunks.split(bytes, at: offset), at: .root, envelope: nil)
      #expect(outcome.elements == Self.elements)
      #expect(outcome.finalStatus == nil)
    }
  }

  @Test func indexComponentsAndEscapedKeysMatchAsTheDocumentReadsThem() throws {
    let text = #"{"d\u0061ta": [{"x": 1}, {"rows": [1, 2]}], "data": {"rows": [3]}}"#
    let outcome = try Self.frame([Array(text.utf8)], at: "data.1.rows", envelope: nil)
    #expect(outcome.elements == ["1", "2"])
    let whole = try LenientDecoder().decode([Int].self, from: Data(text.utf8), at: "data.1.rows")
    #expect(whole == [1, 2])
  }

  @Test func emptyArrayAndTrailingCommaAsTheLenientDecoderReadsThem() throws {
    #expect(try Self.frame([Array("{\"data\":[]}".utf8)], at: "data", envelope: nil).elements == [])
    #expect(
      try Self.frame([Array("{\"data\":[1,2,]}".utf8)], at: "data", envelope: nil).elements == [
        "1", "2",
      ])
  }

  @Test(arguments: [
    ("{\"data\": {}}", "keyNotFound"), ("{\"data\": {\"items\": {}}}", "typeMismatch"),
    ("{\"data\": {\"items\": null}}", "typeMismatch"), ("{\"data\": 3}", "keyNotFound"),
    ("{\"data\": [{\"items\": []}]}", "keyNotFound"),
  ])
  func missingOrNonArrayPathIsAnErrorAtTheEnd(_ text: String, _ kind: String) throws {
    let outcome = try Self.frame([Array(text.utf8)], at: "data.items", envelope: nil)
    let error = try #require(outcome.arrayError)
    switch error {
    case .keyNotFound: #expect(kind == "keyNotFound")
    case .typeMismatch: #expect(kind == "typeMismatch")
    default: Issue.record("unexpected \(error)")
    }
  }

  @Test(arguments: [
    "", "{", "[1,2", "[1 2]", "[1,,2]", "{\"data\":[1,2]} x", "{\"data\":[01]}", "{\"data\":[1.]}",
    "{\"data\":[-]}", "{\"data\":[1e]}", "{\"data\":[tru]}", "{\"data\":[nul]}", "{\"data\":[\"a]}",
    "{\"data\":[\"\\x\"]}", "{\"data\":[\"\\u12g4\"]}", "{\"data\":[\"\\ud800\"]}",
    "{\"data\":[\"\\udc00\"]}", "{\"data\":[\"\\ud800\\n\"]}", "{\"data\":[\"a\u{1}\"]}",
    "{\"data\" [1]}", "{data:[1]}", "{\"data\":[1]]", "{\"data\":[1}", "[1]]", "{\"a\":1,}x",
    "{,}", "[,]", "\u{FEFF}\u{FEFF}[]",
  ])
  func malformedDocumentThrowsDataCorruptedAtEverySplit(_ text: String) {
    let bytes = Array(text.utf8)
    for offset in 0...bytes.count {
      #expect(throws: DecodingError.self, "split at \(offset)") {
        _ = try Self.frame(Chunks.split(bytes, at: offset), at: "data", envelope: nil)
      }
    }
  }

  @Test(
    arguments: [
      [0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x5B, 0x22, 0xC0, 0x80, 0x22, 0x5D],
      [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], [0x5B, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x5D],
      [0x5B, 0x22, 0xE2, 0x82, 0x22, 0x5D], [0xEF, 0xBB, 0x5B, 0x5D],
    ] as [[UInt8]])
  func invalidUTF8ThrowsAsTheReaderDoes(_ bytes: [UInt8]) {
    #expect(throws: DecodingError.self) {
      _ = try Self.frame([bytes], at: .root, envelope: nil)
    }
    #expect(throws: (any Error).self) { _ = try JSON(data: Data(bytes)) }
  }

  @Test func errorCarriesTheOffsetLineAndColumn() throws {
    let text = "{\"data\": [1,\n  2,\n  x]}"
    let error = try #require(throws: DecodingError.self) {
      _ = try Self.frame(Chunks.bytewise(Array(text.utf8)), at: "data", envelope: nil)
    }
    guard case .dataCorrupted(let context) = error,
      let reader = context.underlyingError as? JSONReaderError
    else {
      Issue.record("expected dataCorrupted, got \(error)")
      return
    }
    #expect(reader.offset == 20)
    #expect(reader.line == 3)
    #expect(reader.column == 3)
  }

  @Test func nestingPastMaxDepthThrows() {
    let text = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
    #expect(throws: DecodingError.self) {
      _ = try Self.frame([Array(text.utf8)], at: .root, envelope: nil)
    }
  }

  @Test func elementSpanningChunksKeepsOnlyThatElement() throws {
    // A large element split in many chunks comes out whole, and the framer's carry is the
    // element's size, not the body's.
    let big = "\"" + String(repeating: "x", count: 10_000) + "\""
    let text = "{\"data\": [" + Array(repeating: big, count: 20).joined(separator: ",") + "]}"
    var random = SeededGenerator(state: 7)
    let outcome = try Self.frame(
      Chunks.random(Array(text.utf8), maxSize: 700, using: &random), at: "data", envelope: nil)
    #expect(outcome.elements == Array(repeating: big, count: 20))
  }
}
