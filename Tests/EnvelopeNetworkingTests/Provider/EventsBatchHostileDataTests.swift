import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

/// `EventsFraming` (a chunk's events joined as `[d1,d2,…]` and scanned once) against the
/// framing as it was before batching, fed the same chunks: the parser, then each event's data
/// decoded alone (`FrameDecoder.decode(_:from:index:keeping:)`) with one report per chunk.
/// The data come from a grammar of hostile pieces (trailing and stray commas, brackets, two
/// values, unfinished strings and escapes, byte order marks, invalid UTF-8, nesting at the
/// depth limit, huge numbers, `[DONE]` look-alikes, empty and blank data) glued in random
/// ways, so that neighbouring events can join into well-formed JSON; bodies are cut at random
/// offsets, both policies, small `maxReportEntries` and `maxDepth`. Values with their fields,
/// report entries (all of their text) and omitted count, error text, and the end must agree.
/// The well-formed values are also checked against Foundation's `JSONDecoder` on each data.
@Suite struct EventsBatchHostileDataTests {
  struct Item: Decodable, Equatable, Sendable {
    var id: Int
    var tags: [Int]?
  }

  struct Reading: Equatable, CustomStringConvertible {
    var events: [String] = []
    var report: [String] = []
    var omitted = 0
    var error: String?
    var done = false

    var description: String {
      "events \(events) report \(report) omitted \(omitted) error \(error ?? "none") done \(done)"
    }
  }

  static let pieces: [[UInt8]] = {
    var pieces: [[UInt8]] = [
      #"{"id":1}"#, #" {"id":2} "#, #"{"id":3,"tags":[1,2]}"#, #"{"id":4,"tags":[1,"x"]}"#,
      #"{"id":"5"}"#, #"{"id":"x"}"#, #"{"tags":[]}"#, "{\"id\":6,}", "{\"id\":7},",
      "{\"id\":8} , ",
      "1,", ",", ",,", "]", "[", "}", "{", "],[", "},{", "1 2", "1,2", "{}{}",
      #"{"id":9}{"id":10}"#, #""abc"#, #""a\"#, #"\""#, #"""#, #"\u00"#, "", " ", "\t", "null",
      #""str""#, #"[{"id":11}]"#, "[DONE]", " [DONE]", "[DONE] ", "[DONE],", "\u{FEFF}{\"id\":12}",
      "{\"id\":13}\u{FEFF}", "\u{FEFF}", #"{"id":14,"n":"é"}"#, #"{"id":1e400}"#,
      #"{"id":99999999999999999999}"#, #"{"id":1.0}"#, #"{"id":1.5}"#, #"{"id":-0}"#,
      #"{"id":1e2}"#, "{\"id\":15,\n\"tags\":[3]}", #"{"id":16,"tags":[1,2,]}"#, "[1,]",
      #"{"id":17,"x":"]"}"#, #"{"id":18,"x":","}"#, #"{"id":19,"x":"\"]"}"#,
      #"{"id":20,"x":[1"#, #"2]}"#, "[1", "2]", "3", #"{"id":21},{"id":22}"#, "true",
    ].map { Array($0.utf8) }
    // Invalid UTF-8 (the parser turns it into U+FFFD) and nesting around the depth limit (6).
    pieces += [
      [
        0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x32, 0x33, 0x2C, 0x22, 0x78, 0x22, 0x3A, 0x22, 0xFF,
        0x22, 0x7D,
      ],
      [0x22, 0xC3], [0xC3], [0xFF, 0xFE],
    ]
    for depth in 3...7 {
      let open = String(repeating: "[", count: depth)
      let close = String(repeating: "]", count: depth)
      pieces.append(Array("{\"id\":\(30 + depth),\"x\":\(open)\(close)}".utf8))
      pieces.append(Array("\(open)1\(close)".utf8))
    }
    return pieces
  }()

  /// Single values of other types.
  static let scalars: [[UInt8]] = [
    "1", " 2 ", #""s""#, #""é\u00e9\"]""#, "null", "[1,2]", "[]", #"{"a":[1,{"b":null}]}"#,
    "1.5", "-0", "1e400", #""\ud800""#, "true",
  ].map { Array($0.utf8) }

  static func pick<T>(_ options: [T], _ random: inout SeededGenerator) -> T {
    options[Int.random(in: 0..<options.count, using: &random)]
  }

  /// One event's data: one to three pieces glued with nothing, a space, a comma or a newline.
  static func data(_ random: inout SeededGenerator) -> [UInt8] {
    var data = pick(pieces, &random)
    for _ in 0..<Int.random(in: 0..<3, using: &random)
    where Int.random(in: 0..<3, using: &random) == 0 {
      data += pick([[], [0x20], [0x2C], [0x0A]], &random) + pick(pieces, &random)
    }
    return data
  }

  static func stream(_ random: inout SeededGenerator, blocks: Int) -> [UInt8] {
    let ends: [[UInt8]] = [[0x0A], [0x0D], [0x0D, 0x0A]]
    var text: [UInt8] = Bool.random(using: &random) ? [0xEF, 0xBB, 0xBF] : []
    for _ in 0..<blocks {
      let end = pick(ends, &random)
      var lines: [[UInt8]] = []
      if Int.random(in: 0..<5, using: &random) == 0 {
        lines.append(
          Array(
            ("event:" + pick(["update", " update", "", " ", "updates", "upd", "é"], &random)).utf8))
      }
      if Int.random(in: 0..<6, using: &random) == 0 {
        lines.append(Array(("id:" + pick(["7", " 8", ""], &random)).utf8))
      }
      if Int.random(in: 0..<8, using: &random) == 0 { lines.append(Array("retry: 15".utf8)) }
      // Mostly plain items, so that many chunks are joined.
      let data =
        Int.random(in: 0..<3, using: &random) == 0
        ? Self.data(&random) : Array(#"{"id":1}"#.utf8)
      let split = data.split(separator: 0x0A, omittingEmptySubsequences: false)
      if Int.random(in: 0..<10, using: &random) > 0 || split.count > 1 {
        for line in split { lines.append(Array("data:".utf8) + line) }
      }
      for line in lines { text += line + end }
      text += end
    }
    return text
  }

  static func describe(_ event: ServerSentEvent<Item>) -> String {
    "\(event.event ?? "-")/\(event.id ?? "-")/\(event.retry.map { "\($0)" } ?? "-")/"
      + "\(event.data.id)\(event.data.tags.map { "\($0)" } ?? "")"
  }

  static func decoder(_ policy: DecodingPolicy, entries: Int, depth: Int) -> LenientDecoder {
    var decoder = LenientDecoder(policy: policy)
    decoder.maxReportEntries = entries
    decoder.maxDepth = depth
    return decoder
  }

  /// The framing before batching: each event decoded alone as the parser hands it over.
  static func unbatched(_ chunks: [[UInt8]], _ decoder: LenientDecoder, endMarker: String?)
    -> Reading
  {
    var reading = Reading()
    var parser = EventStreamParser()
    let frames = FrameDecoder(decoder)
    for chunk in chunks {
      guard !reading.done, reading.error == nil else { break }
      var index = parser.count
      frames.startBatch()
      chunk.withUnsafeBytes { raw in
        parser.feed(raw) { event in
          guard !reading.done, reading.error == nil else { return }
          if let endMarker, event.hasData(endMarker) {
            reading.done = true
            return
          }
          let frame = index
          index += 1
          do {
            try frames.decode(Item.self, from: event.data, index: frame) {
              reading.events.append(describe(event.with(data: $0)))
            }
          } catch {
            reading.error = "\(error)"
          }
        }
      }
      let report = frames.takeReport()
      reading.report += report.entries.map { "\($0)" }
      reading.omitted += report.omittedCount
    }
    if reading.error != nil { reading.done = false }
    return reading
  }

  static func framed(_ chunks: [[UInt8]], _ decoder: LenientDecoder, endMarker: String?)
    -> Reading
  {
    var reading = Reading()
    var framing = EventsFraming<Item>(endMarker: endMarker)
    framing.start(decoder)
    for chunk in chunks {
      guard !framing.isDone, reading.error == nil else { break }
      var batch = Framed<ServerSentEvent<Item>>()
      do {
        try framing.feed(Data(chunk), into: &batch)
      } catch {
        reading.error = "feed threw \(error)"
      }
      reading.events += batch.values.map(describe)
      reading.report += batch.report.entries.map { "\($0)" }
      reading.omitted += batch.report.omittedCount
      if let error = batch.error { reading.error = "\(error)" }
    }
    reading.done = framing.isDone && reading.error == nil
    return reading
  }

  static func chunks(_ body: [UInt8], _ random: inout SeededGenerator) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    let whole = Int.random(in: 0..<4, using: &random) == 0
    while start < body.count {
      let size =
        whole
        ? body.count
        : Bool.random(using: &random)
          ? Int.random(in: 1..<6, using: &random) : Int.random(in: 1..<300, using: &random)
      chunks.append(Array(body[start..<min(body.count, start + size)]))
      start += size
    }
    return chunks
  }

  @Test(arguments: Array(1...12) as [UInt64])
  func hostileEventDataDecodeAsBeforeBatching(seed: UInt64) {
    var random = SeededGenerator(seed: seed &* 0x9E37_79B9)
    for run in 0..<400 {
      let body = Self.stream(&random, blocks: Int.random(in: 1..<25, using: &random))
      let chunks = Self.chunks(body, &random)
      let decoder = Self.decoder(
        Bool.random(using: &random) ? .lenient : .strict,
        entries: Self.pick([0, 1, 2, 1_000], &random), depth: Self.pick([6, 64], &random))
      let endMarker: String? = Bool.random(using: &random) ? "[DONE]" : nil
      let expected = Self.unbatched(chunks, decoder, endMarker: endMarker)
      let actual = Self.framed(chunks, decoder, endMarker: endMarker)
      #expect(
        actual == expected,
        "seed \(seed) run \(run) \(decoder.policy) chunks \(chunks.map { String(decoding: $0, as: UTF8.self).debugDescription })"
      )
      if actual != expected { return }
    }
  }

  /// `FrameDecoder.decode(_:frames:firstIndex:keeping:)` itself on hostile frames (mostly one
  /// JSON value each, so that many batches are joined) against each frame decoded alone: the
  /// joined path is taken, and gives the same values, report and error.
  @Test(arguments: Array(1...6) as [UInt64])
  func joinedFramesDecodeAsEachFrameAlone(seed: UInt64) throws {
    Self.compareJoined(Item.self, seed: seed)
  }

  /// The same for other element types: any JSON, strings, optionals, arrays.
  @Test(arguments: Array(1...3) as [UInt64])
  func joinedFramesOfOtherTypesDecodeAsEachFrameAlone(seed: UInt64) throws {
    Self.compareJoined(JSON.self, seed: seed) { $0.prettyText() }
    Self.compareJoined(String.self, seed: seed)
    Self.compareJoined(Int?.self, seed: seed)
    Self.compareJoined([Int].self, seed: seed)
  }

  static func compareJoined<T: Decodable>(
    _ type: T.Type, seed: UInt64, describe: (T) -> String = { "\($0)" }
  ) {
    var random = SeededGenerator(seed: seed &* 0x2545_F491)
    var joined = 0
    for run in 0..<400 {
      var datas: [[UInt8]] = []
      for _ in 0..<Int.random(in: 1..<8, using: &random) {
        datas.append(
          Int.random(in: 0..<4, using: &random) == 0
            ? Self.data(&random) : Self.pick(Array(Self.pieces[0..<4]) + Self.scalars, &random))
      }
      let decoder = Self.decoder(
        Bool.random(using: &random) ? .lenient : .strict,
        entries: Self.pick([0, 1, 1_000], &random), depth: Self.pick([6, 64], &random))
      let frames = FrameDecoder(decoder)
      var batch = FrameBatch()
      for data in datas { data.withUnsafeBufferPointer { batch.append($0) } }
      var actual = Reading()
      frames.startBatch()
      do {
        try frames.decode(T.self, frames: &batch, firstIndex: 3) { position, value in
          actual.events.append("\(position):\(describe(value))")
        }
      } catch {
        actual.error = "\(error)"
      }
      var report = frames.takeReport()
      actual.report = report.entries.map { "\($0)" }
      actual.omitted = report.omittedCount
      var expected = Reading()
      let alone = FrameDecoder(decoder)
      alone.startBatch()
      for (position, data) in datas.enumerated() {
        do {
          try data.withUnsafeBufferPointer {
            try alone.decode(T.self, from: $0, index: 3 + position) { value in
              expected.events.append("\(position):\(describe(value))")
            }
          }
        } catch {
          expected.error = "\(error)"
          break
        }
      }
      report = alone.takeReport()
      expected.report = report.entries.map { "\($0)" }
      expected.omitted = report.omittedCount
      #expect(
        actual == expected,
        "\(T.self) seed \(seed) run \(run) \(datas.map { String(decoding: $0, as: UTF8.self).debugDescription })"
      )
      if actual != expected { return }
      joined += frames.batchesJoined
    }
    // Most batches are joined: the comparison is of the joined path, not only the fallback.
    #expect(joined > 100)
  }

  /// A chunk of more events than an array token counts (65,535) is still one joined scan, each
  /// value paired with its own event; with one malformed event last, the values before it and
  /// its error at its own index.
  @Test(arguments: [false, true])
  func chunkOfMoreEventsThanATokenCountsDecodesEachEvent(malformedLast: Bool) throws {
    let count = 70_000
    var body = ""
    for value in 0..<count { body += "id: \(value)\ndata: {\"id\":\(value)}\n\n" }
    if malformedLast { body += "data: {\"id\":1},\n\n" }
    var framing = EventsFraming<Item>(endMarker: nil)
    framing.start(LenientDecoder(policy: .strict))
    var batch = Framed<ServerSentEvent<Item>>()
    try framing.feed(Data(body.utf8), into: &batch)
    #expect(batch.values.count == count)
    #expect(batch.values.allSatisfy { $0.id == "\($0.data.id)" })
    #expect(batch.values.last?.data.id == count - 1)
    if malformedLast {
      let error = try #require(batch.error as? DecodingError)
      guard case .dataCorrupted(let context) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(context.codingPath.map(\.intValue) == [count])
    } else {
      #expect(batch.error == nil)
    }
  }

  /// Each data that Foundation's `JSONDecoder` decodes as an `Item` alone is decoded to the
  /// same value by the stream in strict policy (the whole body in one chunk: one batch).
  @Test(arguments: Array(1...6) as [UInt64])
  func wellFormedDataMatchFoundation(seed: UInt64) throws {
    var random = SeededGenerator(seed: seed &* 0x51_7CC1)
    for _ in 0..<200 {
      var datas: [[UInt8]] = []
      var body: [UInt8] = []
      for _ in 0..<Int.random(in: 1..<10, using: &random) {
        let data = Self.data(&random)
        guard !data.contains(0x0A), !data.isEmpty, data != Array("[DONE]".utf8) else { continue }
        datas.append(data)
        body += Array("data:".utf8) + data + [0x0A, 0x0A]
      }
      var framing = EventsFraming<Item>(endMarker: nil)
      framing.start(LenientDecoder(policy: .strict))
      var batch = Framed<ServerSentEvent<Item>>()
      try framing.feed(Data(body), into: &batch)
      // The stream yields values up to the first data it cannot decode.
      for (offset, data) in datas.enumerated() {
        guard let value = try? JSONDecoder().decode(Item.self, from: Data(data)) else { break }
        guard offset < batch.values.count else {
          Issue.record(
            "\(String(decoding: data, as: UTF8.self)): Foundation \(value), stream \(batch.error.map { "\($0)" } ?? "no value")"
          )
          break
        }
        #expect(batch.values[offset].data == value, "\(String(decoding: data, as: UTF8.self))")
      }
    }
  }

  /// The last event of a chunk whose data is a value and a comma (`{"id":7},`) is not one JSON
  /// value: decoded alone it is malformed, as it is when another event follows it.
  @Test(arguments: ["{\"id\":7},", "{\"id\":7} , ", "1,"])
  func lastDataWithATrailingCommaIsMalformed(data: String) {
    for prefix in ["", "data: {\"id\":1}\n\n"] {
      var framing = EventsFraming<Item>(endMarker: nil)
      framing.start(LenientDecoder(policy: .lenient))
      var batch = Framed<ServerSentEvent<Item>>()
      try? framing.feed(Data((prefix + "data: \(data)\n\n").utf8), into: &batch)
      #expect(batch.values.map(\.data.id) == (prefix.isEmpty ? [] : [1]), "\(prefix)\(data)")
      #expect(batch.error is DecodingError, "\(prefix)\(data)")
    }
  }
}
