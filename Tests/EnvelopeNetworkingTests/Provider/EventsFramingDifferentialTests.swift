import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

/// The events of `provider.events` (`EventsFraming`: a chunk's events decoded in one scan)
/// against the straightforward reading: the whole body parsed in one piece and each event's data
/// decoded on its own. Generated streams mix well-formed data with data that is not one JSON
/// value (`1,2`, `[1` then `2]`, an empty data, trailing text), drift, multi-line data, every
/// field, comments, CR/LF/CRLF, a byte order mark and the end marker, cut at random offsets:
/// the same events (fields and data), report, error and end, in both policies.
@Suite struct EventsFramingDifferentialTests {
  struct Item: Decodable, Equatable, Sendable {
    var id: Int
    var tags: [Int]?
  }

  /// What a reading gave: the events, the report's entries, the error, whether it ended early.
  struct Reading: Equatable, CustomStringConvertible {
    var events: [ServerSentEvent<Item>] = []
    var report: [String] = []
    var error: String?
    var done = false

    var description: String {
      let events = self.events.map {
        "\($0.event ?? "-")/\($0.id ?? "-")/\($0.retry.map { "\($0)" } ?? "-")/\($0.data.id)"
          + "\($0.data.tags.map { "\($0)" } ?? "")"
      }
      return "events \(events) report \(report) error \(error ?? "none") done \(done)"
    }
  }

  static let data: [String] = [
    #"{"id":1}"#, #"{"id": 2, "tags": [1, 2]}"#, #" {"id":3} "#, #"{"id":"4"}"#,
    #"{"id":5,"tags":[1,"x",3]}"#, #"{"id":6,}"#, #"{"id":7,"tags":null}"#, #"{"id":"x"}"#,
    #"{"tags":[1]}"#, "1,2", #"{"id":1},{"id":2}"#, "[1", "2]", "]", ",", "", "   ",
    #"{"id":8} x"#, #""str""#, "null", #"[{"id":9}]"#, #"{"id":10,"n":"é"}"#,
    "{\"id\":\n11}", "{\"id\":12,\n\"tags\":[]}", "[DONE]", "[[[[[[[[[[1]]]]]]]]]]", #"{"id":13"#,
    #"{"id":1e2}"#, #"{"id":14,"tags":[1,2,]}"#, "\u{FEFF}{\"id\":15}",
  ]

  /// Neighbouring data that, joined with a comma, read as well-formed JSON with one element per
  /// event, though an event alone is not one JSON value.
  static let pairs: [(String, String)] = [
    (#"{"id":1,"tags":[1"#, #"2]},{"id":2}"#), ("[1", #"2],{"id":3}"#), (#"{"id":4},{"id":5"#, "}"),
    (#"{"id":6,"tags":[7"#, "8]}"), ("1,2", "3"),
  ]

  /// One of `options` (not empty).
  static func pick<T>(_ options: [T], _ random: inout SeededGenerator) -> T {
    options[Int.random(in: 0..<options.count, using: &random)]
  }

  /// A random stream of `count` blocks.
  static func stream(_ random: inout SeededGenerator, blocks count: Int) -> [UInt8] {
    let ends = ["\n", "\r", "\r\n"]
    var text = Bool.random(using: &random) ? "\u{FEFF}" : ""
    for _ in 0..<count {
      let end = ends.randomElement(using: &random) ?? "\n"
      var lines: [String] = []
      if Int.random(in: 0..<6, using: &random) == 0 { lines.append(": comment") }
      if Int.random(in: 0..<4, using: &random) == 0 {
        lines.append("event: " + pick(["update", "ping", ""], &random))
      }
      if Int.random(in: 0..<4, using: &random) == 0 {
        lines.append("id:" + pick(["7", " 8", "", "a\u{0}b"], &random))
      }
      if Int.random(in: 0..<6, using: &random) == 0 {
        lines.append("retry: " + pick(["1500", "x", "20"], &random))
      }
      // Mostly well-formed data, so that most batches are decoded in one scan.
      var pick =
        Int.random(in: 0..<3, using: &random) == 0
        ? pick(data, &random) : data[Int.random(in: 0..<3, using: &random)]
      if Int.random(in: 0..<10, using: &random) == 0 {
        let pair = pairs[Int.random(in: 0..<pairs.count, using: &random)]
        text += "data: \(pair.0)" + end + end
        pick = pair.1
      }
      if Int.random(in: 0..<8, using: &random) > 0 || pick.contains("\n") {
        for line in pick.split(separator: "\n", omittingEmptySubsequences: false) {
          lines.append("data:" + (Bool.random(using: &random) ? " " : "") + line)
        }
      }
      text += lines.joined(separator: end) + end + end
    }
    return Array(text.utf8)
  }

  /// The straightforward reading: parsed in one piece, each event's data decoded alone.
  static func reference(_ body: [UInt8], policy: DecodingPolicy, endMarker: String?) -> Reading {
    var reading = Reading()
    var parser = EventStreamParser()
    let frames = FrameDecoder(LenientDecoder(policy: policy))
    var index = 0
    body.withUnsafeBytes { raw in
      parser.feed(raw) { event in
        guard !reading.done, reading.error == nil else { return }
        if let endMarker, event.hasData(endMarker) {
          reading.done = true
          return
        }
        do {
          let decoded = try frames.decode(Item.self, from: event.data, index: index)
          reading.report += decoded.report.entries.map { "\($0.path) \($0.kind)" }
          if let value = decoded.value { reading.events.append(event.with(data: value)) }
        } catch {
          reading.error = "\(error)"
        }
        index += 1
      }
    }
    return reading
  }

  /// The stream's reading: `EventsFraming` fed `chunks`, as `StreamRun` feeds it.
  static func framed(_ chunks: [[UInt8]], policy: DecodingPolicy, endMarker: String?) -> Reading {
    var reading = Reading()
    var framing = EventsFraming<Item>(endMarker: endMarker)
    framing.start(LenientDecoder(policy: policy))
    for chunk in chunks {
      guard !framing.isDone, reading.error == nil else { break }
      var batch = Framed<ServerSentEvent<Item>>()
      do {
        try framing.feed(Data(chunk), into: &batch)
      } catch {
        reading.error = "feed threw \(error)"
      }
      reading.events += batch.values
      reading.report += batch.report.entries.map { "\($0.path) \($0.kind)" }
      if let error = batch.error { reading.error = "\(error)" }
    }
    // After an error the stream ends with it, whether or not an end marker followed.
    reading.done = framing.isDone && reading.error == nil
    return reading
  }

  @Test(arguments: [1, 2, 3, 4] as [UInt64])
  func chunkedEventsDecodeAsEachEventAlone(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    for run in 0..<300 {
      let body = Self.stream(&random, blocks: Int.random(in: 1..<40, using: &random))
      var chunks: [[UInt8]] = []
      var start = 0
      while start < body.count {
        let size =
          Bool.random(using: &random)
          ? Int.random(in: 1..<8, using: &random) : Int.random(in: 1..<400, using: &random)
        chunks.append(Array(body[start..<min(body.count, start + size)]))
        start += size
      }
      let policy: DecodingPolicy = Bool.random(using: &random) ? .lenient : .strict
      let endMarker: String? = Bool.random(using: &random) ? "[DONE]" : nil
      let expected = Self.reference(body, policy: policy, endMarker: endMarker)
      let actual = Self.framed(chunks, policy: policy, endMarker: endMarker)
      #expect(
        actual == expected,
        "seed \(seed) run \(run) \(policy) \(String(decoding: body, as: UTF8.self).debugDescription)"
      )
      if actual != expected { return }
    }
  }

  /// A well-formed stream in one chunk is decoded in one scan: the batch path itself is what
  /// the generated test compares, not only the one-by-one fallback.
  @Test func wellFormedEventsAreDecodedInOneScan() throws {
    let frames = FrameDecoder(LenientDecoder())
    var batch = FrameBatch()
    for text in [#"{"id":1}"#, #" {"id":2} "#, #"{"id":3,"tags":[1]}"#] {
      Array(text.utf8).withUnsafeBufferPointer { batch.append($0) }
    }
    var positions: [Int] = []
    try frames.decode(Item.self, frames: &batch, firstIndex: 40) { position, _ in
      positions.append(position)
    }
    #expect(positions == [0, 1, 2])
    #expect(frames.batchesJoined == 1)
  }
}
