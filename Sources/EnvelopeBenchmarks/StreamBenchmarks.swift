import EnvelopeKit
import Foundation

// The stream framers from memory: 10 MB of JSON Lines, an envelope whose `data.items` holds the
// same values, and 100,000 Server-Sent Events of about 200 bytes, each framed in 64 KB chunks
// and every value decoded with `decodeFrame`, against decoding the same values directly (the
// lines and event payloads one by one from memory, the envelope's array whole-body) in the same
// run. Framing alone is shown too. No network: the transport is another issue's.

/// A row of the stream benchmarks.
private struct StreamRow: Codable {
  var id: Int
  var name: String
  var price: Double
  var tags: [String]
  var active: Bool
}

/// Feeds `data` in chunks of `size` bytes.
private func chunks(of data: Data, size: Int, _ body: (UnsafeRawBufferPointer) throws -> Void)
  rethrows
{
  try data.withUnsafeBytes { raw in
    var start = 0
    while start < raw.count {
      let end = min(raw.count, start + size)
      try body(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
      start = end
    }
  }
}

@MainActor func streamBenchmarks() throws {
  let target = quick ? 2_000_000 : 10_000_000
  let encoder = JSONEncoder()
  var lines: [Data] = []
  var total = 0
  while total < target {
    let id = lines.count
    let row = StreamRow(
      id: id, name: "user \(id) \"quoted\" [x]", price: Double(id % 1000) * 0.25,
      tags: ["a", "b\(id % 7)"], active: id % 3 == 0)
    let line = try encoder.encode(row)
    lines.append(line)
    total += line.count + 1
  }
  let ndjson = Data(lines.map { $0 + Data("\n".utf8) }.joined())
  let array = Data("[".utf8) + Data(lines.joined(separator: Data(",".utf8))) + Data("]".utf8)
  let envelope =
    Data("{\"code\":0,\"msg\":\"ok\",\"data\":{\"total\":\(lines.count),\"items\":".utf8) + array
    + Data("}}".utf8)
  let decoder = LenientDecoder()
  let chunkSize = 65_536

  print("\n== streams: \(lines.count) rows, \(ndjson.count) bytes of NDJSON")
  var ndjsonRows = Comparison(title: "JSON Lines", bytes: ndjson.count, iterations: 1)
  ndjsonRows.add("decode each line from memory") {
    for line in lines { _ = try decoder.decode(StreamRow.self, from: line) }
  }
  ndjsonRows.add("JSONLinesFramer + decodeFrame") {
    var framer = JSONLinesFramer()
    let frames = FrameDecoder(decoder)
    try chunks(of: ndjson, size: chunkSize) { chunk in
      try framer.feed(chunk) { line in
        _ = try frames.decode(StreamRow.self, from: line.bytes, index: line.index)
      }
    }
    try framer.finish { _ = try frames.decode(StreamRow.self, from: $0.bytes, index: $0.index) }
  }
  ndjsonRows.add("JSONLinesFramer alone") {
    var framer = JSONLinesFramer()
    var count = 0
    chunks(of: ndjson, size: chunkSize) { chunk in framer.feed(chunk) { _ in count += 1 } }
    precondition(count == lines.count)
  }
  let lineTimes = try ndjsonRows.report(rounds: quick ? 3 : 7)

  var elementRows = Comparison(
    title: "envelope data.items (\(envelope.count) bytes)", bytes: envelope.count, iterations: 1)
  elementRows.add("decodeEnvelope([Row], at: items)") {
    _ = try decoder.decodeEnvelope([StreamRow].self, from: envelope, at: "items")
  }
  elementRows.add("framer + FrameDecoder, one per chunk") {
    var framer = JSONElementFramer(elementsAt: "items", in: .default)
    let frames = FrameDecoder(decoder)
    try chunks(of: envelope, size: chunkSize) { chunk in
      try framer.feedBatch(chunk) { batch in
        let decoded = frames.decode(StreamRow.self, batch: batch)
        if let error = decoded.error { throw error }
      }
    }
    try framer.finish()
    let status = try framer.envelopeStatus(atEnd: true)
    precondition(status?.isSuccess == true)
  }
  elementRows.add("framer + FrameDecoder, one per element") {
    var framer = JSONElementFramer(elementsAt: "items", in: .default)
    let frames = FrameDecoder(decoder)
    try chunks(of: envelope, size: chunkSize) { chunk in
      try framer.feed(chunk) { element in
        _ = try frames.decode(StreamRow.self, from: element.bytes, index: element.index)
      }
    }
    try framer.finish()
  }
  elementRows.add("JSONElementFramer alone") {
    var framer = JSONElementFramer(elementsAt: "items", in: .default)
    try chunks(of: envelope, size: chunkSize) { chunk in try framer.feed(chunk) { _ in } }
    try framer.finish()
  }
  elementRows.add("reader alone (tape of the whole body)") {
    _ = try ReaderBenchmark.scan(envelope)
  }
  let elementTimes = try elementRows.report(rounds: quick ? 3 : 7)

  let events = quick ? 20_000 : 100_000
  var payloads: [Data] = []
  var stream = Data()
  for index in 0..<events {
    let row = lines[index % lines.count]
    let padded = row + Data(repeating: 0x20, count: max(0, 190 - row.count))
    payloads.append(padded)
    stream += Data("id: \(index)\ndata: ".utf8) + padded + Data("\n\n".utf8)
  }
  var eventRows = Comparison(
    title: "Server-Sent Events: \(events) events, \(stream.count) bytes", bytes: stream.count,
    iterations: 1)
  eventRows.add("decode each data payload from memory") {
    for payload in payloads { _ = try decoder.decode(StreamRow.self, from: payload) }
  }
  eventRows.add("EventStreamParser + decodeFrame") {
    var parser = EventStreamParser()
    let frames = FrameDecoder(decoder)
    var index = 0
    try chunks(of: stream, size: chunkSize) { chunk in
      try parser.feed(chunk) { event in
        _ = try frames.decode(StreamRow.self, from: event.data, index: index)
        index += 1
      }
    }
  }
  eventRows.add("EventStreamParser alone") {
    var parser = EventStreamParser()
    chunks(of: stream, size: chunkSize) { chunk in parser.feed(chunk) { _ in } }
  }
  let eventTimes = try eventRows.report(rounds: quick ? 3 : 7)

  summary.append(
    String(
      format:
        "streams: NDJSON framed+decoded %4.2fx of decoding the lines from memory | envelope "
        + "elements framed+decoded %4.2fx of whole-body decodeEnvelope | SSE %4.2fx of decoding "
        + "the payloads from memory",
      lineTimes[0] / lineTimes[1], elementTimes[0] / elementTimes[1],
      eventTimes[0] / eventTimes[1]))
  check(lineTimes[0] / lineTimes[1] >= 0.8, "NDJSON framing+decoding at least 0.8x decoding lines")
  check(
    elementTimes[0] / elementTimes[1] >= 0.8,
    "elements framing+decoding at least 0.8x whole-body decodeEnvelope")
  check(
    eventTimes[0] / eventTimes[1] >= 0.8, "SSE framing+decoding at least 0.8x decoding payloads")
}
