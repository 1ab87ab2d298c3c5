import Foundation
import Testing

@testable import EnvelopeKit

/// Server-Sent Events as the WHATWG event stream interpretation parses them, at every split.
@Suite struct EventStreamParserTests {
  /// An event as compared here: the data as text.
  struct Seen: Equatable, CustomStringConvertible {
    var event: String?
    var id: String?
    var retry: Duration?
    var data: String

    var description: String {
      "(\(event ?? "nil"), \(id ?? "nil"), \(retry.map { "\($0)" } ?? "nil"), \(data.debugDescription))"
    }
  }

  static func parse(_ chunks: [[UInt8]]) -> (events: [Seen], parser: EventStreamParser) {
    var parser = EventStreamParser()
    var events: [Seen] = []
    eachChunk(chunks) { chunk in
      parser.feed(chunk) { event in
        events.append(
          Seen(
            event: event.event, id: event.id, retry: event.retry,
            data: String(decoding: event.data, as: UTF8.self)))
      }
    }
    parser.finish()
    return (events, parser)
  }

  /// A BOM, comments, CRLF, CR and LF line ends, multi-line data, an `id` carried to later
  /// events, `retry` on one event, a field with no colon, a standalone `retry` block, a NUL id,
  /// an unknown field and an event with no blank line after it (not dispatched).
  static let sample: [UInt8] =
    [0xEF, 0xBB, 0xBF]
    + Array(
      (": a comment\r\n"
        + "event: delta\r\n"
        + "data: {\"a\":\r\n"
        + "data:1}\r\n"
        + "id: 7\r\n"
        + "retry: 1500\r\n"
        + "\r\n"
        + "data: [DONE]\r"
        + "\r"
        + "data\n"
        + "unknown: x\n"
        + "\n"
        + "retry: 3000\n"
        + "\n"
        + "id: bad\u{0}id\n"
        + "event:\n"
        + "retry: 12a\n"
        + "data:  two spaces\n"
        + "\n"
        + "id\n"
        + "data: é\n"
        + "\n"
        + "data: pending").utf8)

  static let expected: [Seen] = [
    Seen(event: "delta", id: "7", retry: .milliseconds(1500), data: "{\"a\":\n1}"),
    Seen(event: nil, id: "7", retry: nil, data: "[DONE]"),
    Seen(event: nil, id: "7", retry: nil, data: ""),
    Seen(event: nil, id: "7", retry: nil, data: " two spaces"),
    Seen(event: nil, id: nil, retry: nil, data: "é"),
  ]

  @Test func sampleInOneChunkGivesEveryEvent() {
    let (events, parser) = Self.parse([Self.sample])
    #expect(events == Self.expected)
    #expect(parser.reconnectionTime == .milliseconds(3000))
    #expect(parser.lastEventID == "")
    #expect(parser.count == Self.expected.count)
  }

  @Test func sampleSplitAtEveryByteGivesTheSameEvents() {
    for offset in 0...Self.sample.count {
      let (events, _) = Self.parse(Chunks.split(Self.sample, at: offset))
      #expect(events == Self.expected, "split at \(offset)")
    }
  }

  @Test func sampleByteByByteGivesTheSameEvents() {
    #expect(Self.parse(Chunks.bytewise(Self.sample)).events == Self.expected)
  }

  @Test func sampleSplitAtEveryPairOfBytesGivesTheSameEvents() {
    // Three chunks: covers a CR ending one chunk with the LF in the next, and a BOM in three.
    for first in 0...Self.sample.count {
      for second in first...min(Self.sample.count, first + 6) {
        let chunks = [
          Array(Self.sample[..<first]), Array(Self.sample[first..<second]),
          Array(Self.sample[second...]),
        ]
        #expect(Self.parse(chunks).events == Self.expected, "split at \(first), \(second)")
      }
    }
  }

  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let stream: String
    let events: [Seen]
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "no trailing blank line: nothing", stream: "data: x\n", events: []),
    Case(name: "blank lines only: nothing", stream: "\n\n\r\n\r\r", events: []),
    Case(
      name: "CR line ends", stream: "data: a\rdata: b\r\r",
      events: [Seen(event: nil, id: nil, retry: nil, data: "a\nb")]),
    Case(
      name: "a lone CR then LF are two line ends only as CRLF", stream: "data: a\r\n\r\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "a")]),
    Case(
      name: "one space removed, not two", stream: "data:  x\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: " x")]),
    Case(
      name: "no space after the colon", stream: "data:x\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "x")]),
    Case(
      name: "colon in the value kept", stream: "data: a:b\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "a:b")]),
    Case(
      name: "field names are case-sensitive", stream: "Data: x\n\ndata: y\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "y")]),
    Case(
      name: "event type cleared after dispatch", stream: "event: a\ndata: 1\n\ndata: 2\n\n",
      events: [
        Seen(event: "a", id: nil, retry: nil, data: "1"),
        Seen(event: nil, id: nil, retry: nil, data: "2"),
      ]),
    Case(
      name: "event type of a data-less block dropped", stream: "event: a\n\ndata: 2\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "2")]),
    Case(
      name: "id persists; empty id resets", stream: "id: 1\ndata: a\n\ndata: b\n\nid:\ndata: c\n\n",
      events: [
        Seen(event: nil, id: "1", retry: nil, data: "a"),
        Seen(event: nil, id: "1", retry: nil, data: "b"),
        Seen(event: nil, id: nil, retry: nil, data: "c"),
      ]),
    Case(
      name: "id set in a data-less block is kept", stream: "id: 9\n\ndata: a\n\n",
      events: [Seen(event: nil, id: "9", retry: nil, data: "a")]),
    Case(
      name: "id with NUL ignored", stream: "id: 1\ndata: a\n\nid: 2\u{0}\ndata: b\n\n",
      events: [
        Seen(event: nil, id: "1", retry: nil, data: "a"),
        Seen(event: nil, id: "1", retry: nil, data: "b"),
      ]),
    Case(
      name: "retry not digits ignored", stream: "retry: 1x\nretry: -5\nretry:\ndata: a\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "a")]),
    Case(
      name: "retry of this block only", stream: "retry: 5\ndata: a\n\ndata: b\n\n",
      events: [
        Seen(event: nil, id: nil, retry: .milliseconds(5), data: "a"),
        Seen(event: nil, id: nil, retry: nil, data: "b"),
      ]),
    Case(
      name: "data with no colon is an empty line of data", stream: "data\ndata\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "\n")]),
    Case(
      name: "BOM only at the start", stream: "\u{FEFF}data: \u{FEFF}x\n\n",
      events: [Seen(event: nil, id: nil, retry: nil, data: "\u{FEFF}x")]),
    Case(
      name: "a second BOM is content (a field named BOM+data)",
      stream: "\u{FEFF}\u{FEFF}data: x\n\n",
      events: []),
  ]

  @Test(arguments: cases)
  func caseParsesAsTheStandardSays(_ item: Case) {
    let bytes = Array(item.stream.utf8)
    for offset in 0...bytes.count {
      #expect(
        Self.parse(Chunks.split(bytes, at: offset)).events == item.events, "split at \(offset)")
    }
  }

  @Test func invalidUTF8InDataIsReplacedAsTheStandardDecodes() {
    let bytes: [UInt8] = Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8)
    #expect(Self.parse([bytes]).events.map(\.data) == ["a\u{FFFD}b"])
  }

  @Test(arguments: [
    ("data: [DONE]\n\n", "[DONE]", true), ("data:[DONE]\n\n", "[DONE]", true),
    ("data:  [DONE]\n\n", "[DONE]", false), ("data: [DONE]\ndata:\n\n", "[DONE]", false),
    ("data: END\n\n", "END", true), ("data: END\n\n", "[DONE]", false),
  ])
  func sentinelIsRecognisedExactly(_ stream: String, _ sentinel: String, _ matches: Bool) {
    var parser = EventStreamParser()
    var seen: [Bool] = []
    parser.feed(Data(stream.utf8)) { seen.append($0.hasData(sentinel)) }
    #expect(seen == [matches])
  }

  @Test func eventCarriesItsDecodedDataAndFields() throws {
    var parser = EventStreamParser()
    let frames = FrameDecoder(LenientDecoder())
    var events: [ServerSentEvent<[Int]>] = []
    try parser.feed(Data("id: 4\nevent: list\nretry: 10\ndata: [1,\ndata: \"2\"]\n\n".utf8)) {
      event in
      let decoded = try frames.decode([Int].self, from: event.data, index: 0)
      events.append(event.with(data: try #require(decoded.value)))
      #expect(decoded.report.entries.map(\.path) == ["[0][1]"])
    }
    #expect(
      events == [ServerSentEvent(event: "list", id: "4", retry: .milliseconds(10), data: [1, 2])])
  }
}
