import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

// The oracle of the stream framers, shared by ElementFramingDifferentialTests and the `framing`
// fuzz target:
// - the elements framed from a document fed in the given chunks, each decoded as `JSON`, equal
//   the whole-body strict decode of `[JSON]` at the path, and either both throw or neither;
// - the elements decoded in batches (one decode per chunk) give the same values, report and
//   error as each element decoded on its own, leniently as `Int` (drift: coerced, dropped) and
//   strictly as `JSON`;
// - the Server-Sent Events and the JSON Lines of the same bytes are the same whatever the
//   chunks (against the bytes in one chunk).

enum FramingOracle {
  /// The bytes cut at `sizes` (cycled; a size of 0 makes an empty chunk).
  static func chunks(_ bytes: [UInt8], sizes: [Int]) -> [[UInt8]] {
    guard sizes.contains(where: { $0 > 0 }) else { return [bytes] }
    var chunks: [[UInt8]] = []
    var start = 0
    var turn = 0
    while start < bytes.count {
      let end = min(bytes.count, start + sizes[turn % sizes.count])
      chunks.append(Array(bytes[start..<end]))
      start = end
      turn += 1
    }
    return chunks
  }

  /// Each chunk in its own buffer, so that reading past one is caught by the sanitizer.
  static func each(_ chunks: [[UInt8]], _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    for chunk in chunks {
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk.count, alignment: 1)
      defer { buffer.deallocate() }
      chunk.withUnsafeBytes { buffer.copyMemory(from: $0) }
      try body(UnsafeRawBufferPointer(buffer))
    }
  }

  /// The elements through the framer and a `FrameDecoder`, or the error.
  static func framed(_ chunks: [[UInt8]], at path: JSONPath) -> Result<[JSON], any Error> {
    Result {
      var framer = JSONElementFramer(elementsAt: path)
      let frames = FrameDecoder(LenientDecoder(policy: .strict))
      var values: [JSON] = []
      try each(chunks) { chunk in
        try framer.feed(chunk) { element in
          let decoded = try frames.decode(JSON.self, from: element.bytes, index: element.index)
          // Strict policy drops nothing: a nil here is a broken promise, told apart below.
          values.append(decoded.value ?? .string("<dropped \(element.index)>"))
        }
      }
      try framer.finish()
      if let error = framer.arrayError(atEnd: true) { throw error }
      return values
    }
  }

  /// The element promise for one document; a description of the violation, or nil.
  static func checkElements(_ bytes: [UInt8], at path: JSONPath, sizes: [Int]) -> String? {
    let whole = Result {
      try LenientDecoder(policy: .strict).decode([JSON].self, from: Data(bytes), at: path)
    }
    let streamed = framed(chunks(bytes, sizes: sizes), at: path)
    let text = String(decoding: bytes, as: UTF8.self)
    switch (whole, streamed) {
    case (.success(let expected), .success(let actual)):
      return actual == expected
        ? nil : "path \(path), chunks \(sizes): framed \(actual), whole body \(expected): \(text)"
    case (.failure, .failure):
      return nil
    case (.success(let expected), .failure(let error)):
      return
        "path \(path), chunks \(sizes): whole body gave \(expected), framing threw \(error): \(text)"
    case (.failure(let error), .success(let actual)):
      return
        "path \(path), chunks \(sizes): whole body threw \(error), framing gave \(actual): \(text)"
    }
  }

  /// What a decode of the elements gave: values, report entries, whether it threw.
  struct Decodes<T: Equatable>: Equatable {
    var values: [T] = []
    var entries: [DecodingReport.Entry] = []
    var threw = false
  }

  /// The elements decoded one by one (`each`) or in batches.
  static func decodes<T: Decodable & Equatable>(
    _ type: T.Type, _ chunks: [[UInt8]], at path: JSONPath, policy: DecodingPolicy,
    batched: Bool
  ) -> Decodes<T> {
    var framer = JSONElementFramer(elementsAt: path)
    let frames = FrameDecoder(LenientDecoder(policy: policy))
    var result = Decodes<T>()
    do {
      try each(chunks) { chunk in
        if batched {
          try framer.feedBatch(chunk) { batch in
            let decoded = frames.decode(T.self, batch: batch)
            result.values += decoded.values
            result.entries += decoded.report.entries
            if let error = decoded.error { throw error }
          }
        } else {
          try framer.feed(chunk) { element in
            let decoded = try frames.decode(T.self, from: element.bytes, index: element.index)
            result.values += decoded.value.map { [$0] } ?? []
            result.entries += decoded.report.entries
          }
        }
      }
    } catch {
      result.threw = true
    }
    return result
  }

  /// The batch promise for one document; a violation, or nil.
  static func checkBatches(_ bytes: [UInt8], at path: JSONPath, sizes: [Int]) -> String? {
    let split = chunks(bytes, sizes: sizes)
    let text = String(decoding: bytes, as: UTF8.self)
    let lenientEach = decodes(Int.self, split, at: path, policy: .lenient, batched: false)
    let lenientBatched = decodes(Int.self, split, at: path, policy: .lenient, batched: true)
    if lenientEach != lenientBatched {
      return
        "lenient Int, chunks \(sizes): batched \(lenientBatched), one by one \(lenientEach): \(text)"
    }
    let strictEach = decodes(JSON.self, split, at: path, policy: .strict, batched: false)
    let strictBatched = decodes(JSON.self, split, at: path, policy: .strict, batched: true)
    if strictEach != strictBatched {
      return
        "strict JSON, chunks \(sizes): batched \(strictBatched), one by one \(strictEach): \(text)"
    }
    return nil
  }

  /// An event as compared here.
  struct Event: Equatable {
    var event: String?
    var id: String?
    var retry: Duration?
    var data: [UInt8]
  }

  static func events(_ chunks: [[UInt8]]) -> [Event] {
    var parser = EventStreamParser()
    var events: [Event] = []
    each(chunks) { chunk in
      parser.feed(chunk) {
        events.append(Event(event: $0.event, id: $0.id, retry: $0.retry, data: Array($0.data)))
      }
    }
    parser.finish()
    return events
  }

  static func lines(_ chunks: [[UInt8]]) -> [[UInt8]] {
    var framer = JSONLinesFramer()
    var lines: [[UInt8]] = []
    each(chunks) { chunk in framer.feed(chunk) { lines.append(Array($0.bytes)) } }
    framer.finish { lines.append(Array($0.bytes)) }
    return lines
  }

  /// The chunk-invariance promise of the SSE parser and the lines framer; a violation, or nil.
  static func checkChunking(_ bytes: [UInt8], sizes: [Int]) -> String? {
    let split = chunks(bytes, sizes: sizes)
    if events(split) != events([bytes]) {
      return "SSE events differ when chunked \(sizes): \(String(decoding: bytes, as: UTF8.self))"
    }
    if lines(split) != lines([bytes]) {
      return "JSON lines differ when chunked \(sizes): \(String(decoding: bytes, as: UTF8.self))"
    }
    return nil
  }
}
