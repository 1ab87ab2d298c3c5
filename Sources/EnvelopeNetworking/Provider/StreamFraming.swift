import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One stream's reading, owned by one iterator.
protocol StreamCursor<Element>: AnyObject {
  associatedtype Element
  func next() async throws -> Element?
}

/// How a stream's bytes become values: a framer and the decoding of its frames.
protocol StreamFraming<Element> {
  associatedtype Element
  /// Reads a chunk; `emit` gets each value (or frame error) it completes, in order.
  mutating func feed(_ chunk: Data, _ emit: (Framed<Element>) -> Void) throws
  /// Ends the body; `emit` gets what the end completes.
  mutating func finish(_ emit: (Framed<Element>) -> Void) throws
  /// Whether the stream has ended before its body did (an end marker).
  var isDone: Bool { get }
  /// The status a stream's body showed so far (elements of an envelope): a failure found
  /// before any value ends the attempt. nil for bodies without an envelope.
  func status(atEnd: Bool) throws -> EnvelopeStatus?
  /// Headers a reconnection sends (`Last-Event-ID`), and the server's wish for the wait before
  /// it; nil when the stream does not reconnect.
  var reconnection: (headers: [String: String], wait: Duration?)? { get }
  /// Sets the decoder the frames are decoded with.
  mutating func start(_ decoder: LenientDecoder)
  /// Whether the body's envelope status is read before its first values (elements of an
  /// envelope).
  var watchesStatus: Bool { get }
  /// Drops a frame cut short by a dropped connection, before a reconnection (whose body is a
  /// new stream).
  mutating func dropPartial()
}

extension StreamFraming {
  var watchesStatus: Bool { false }
  mutating func dropPartial() {}
}

/// A frame's value (nil: dropped by lenient policy), with its report, or why it did not decode.
struct Framed<Element> {
  var value: Result<Element?, any Error>
  var report: DecodingReport
}

/// JSON Lines: each line one value.
struct LinesFraming<T: Decodable>: StreamFraming {
  private var framer = JSONLinesFramer()
  private var frames: FrameDecoder?

  mutating func start(_ decoder: LenientDecoder) { frames = FrameDecoder(decoder) }

  mutating func feed(_ chunk: Data, _ emit: (Framed<T>) -> Void) throws {
    let frames = self.frames
    framer.feed(chunk) { line in emit(Self.decode(frames, line.bytes, line.index)) }
  }

  mutating func finish(_ emit: (Framed<T>) -> Void) throws {
    let frames = self.frames
    framer.finish { line in emit(Self.decode(frames, line.bytes, line.index)) }
  }

  var isDone: Bool { false }
  func status(atEnd: Bool) throws -> EnvelopeStatus? { nil }
  var reconnection: (headers: [String: String], wait: Duration?)? { nil }

  static func decode(_ frames: FrameDecoder?, _ bytes: UnsafeBufferPointer<UInt8>, _ index: Int)
    -> Framed<T>
  {
    guard let frames else { return Framed(value: .success(nil), report: DecodingReport()) }
    do {
      let decoded = try frames.decode(T.self, from: bytes, index: index)
      return Framed(value: .success(decoded.value), report: decoded.report)
    } catch {
      return Framed(value: .failure(error), report: DecodingReport())
    }
  }
}

/// Server-Sent Events: each event's data one value.
struct EventsFraming<T: Decodable & Sendable>: StreamFraming {
  let endMarker: String?
  private var parser = EventStreamParser()
  private var frames: FrameDecoder?
  private(set) var isDone = false

  init(endMarker: String?) { self.endMarker = endMarker }

  mutating func start(_ decoder: LenientDecoder) { frames = FrameDecoder(decoder) }

  mutating func feed(_ chunk: Data, _ emit: (Framed<ServerSentEvent<T>>) -> Void) throws {
    guard !isDone else { return }
    let frames = self.frames
    let endMarker = self.endMarker
    var index = parser.count
    var done = false
    parser.feed(chunk) { event in
      guard !done else { return }
      if let endMarker, event.hasData(endMarker) {
        done = true
        return
      }
      let framed = LinesFraming<T>.decode(frames, event.data, index)
      index += 1
      emit(
        Framed(
          value: framed.value.map { $0.map { event.with(data: $0) } }, report: framed.report))
    }
    isDone = done
  }

  mutating func finish(_ emit: (Framed<ServerSentEvent<T>>) -> Void) throws {
    parser.finish()
  }

  mutating func dropPartial() { parser.restart() }

  func status(atEnd: Bool) throws -> EnvelopeStatus? { nil }

  var reconnection: (headers: [String: String], wait: Duration?)? {
    // The ID as of the last blank line (also of a block with no data), not an `id` line of an
    // event cut short by the drop, as the standard says.
    let id = parser.dispatchedEventID
    return (id.isEmpty ? [:] : ["Last-Event-ID": id], parser.reconnectionTime)
  }
}

/// The elements of an array at a path, in an envelope or a plain body.
struct ElementsFraming<T: Decodable>: StreamFraming {
  let path: JSONPath
  let format: EnvelopeFormat?
  private var framer: JSONElementFramer
  private var frames: FrameDecoder?

  init(path: JSONPath, format: EnvelopeFormat?) {
    self.path = path
    self.format = format
    framer = JSONElementFramer(elementsAt: path, in: format)
  }

  mutating func start(_ decoder: LenientDecoder) {
    framer = JSONElementFramer(elementsAt: path, in: format, maxDepth: decoder.maxDepth)
    frames = FrameDecoder(decoder)
  }

  mutating func feed(_ chunk: Data, _ emit: (Framed<T>) -> Void) throws {
    guard let frames else { return }
    // The elements a chunk completes are decoded in one decode (a small element costs far
    // less than a decode of its own), with each element's values, report and error.
    try chunk.withUnsafeBytes { bytes in
      try framer.feedBatch(bytes) { batch in
        let decoded = frames.decode(T.self, batch: batch)
        for (offset, value) in decoded.values.enumerated() {
          let last = offset == decoded.values.count - 1
          emit(Framed(value: .success(value), report: last ? decoded.report : DecodingReport()))
        }
        if decoded.values.isEmpty, !decoded.report.isEmpty {
          emit(Framed(value: .success(nil), report: decoded.report))
        }
        if let error = decoded.error {
          emit(Framed(value: .failure(error), report: DecodingReport()))
        }
      }
    }
    if let error = framer.arrayError(atEnd: false) { throw error }
  }

  mutating func finish(_ emit: (Framed<T>) -> Void) throws {
    try framer.finish()
    if let error = framer.arrayError(atEnd: true) { throw error }
  }

  var isDone: Bool { false }
  var watchesStatus: Bool { format != nil }

  func status(atEnd: Bool) throws -> EnvelopeStatus? {
    guard let status = try framer.envelopeStatus(atEnd: atEnd) else { return nil }
    // A failure's message may come after its code: read on until it, the data or the end.
    if !atEnd, !status.isSuccess, status.message == nil, framer.target == .notSeen { return nil }
    return status
  }

  var reconnection: (headers: [String: String], wait: Duration?)? { nil }
}

/// A whole stream body decoded from memory by the rules of the provider's streams: the same
/// framings, so a contract test of a recorded stream (`FixtureContract.decodeLines` and its
/// siblings) checks exactly what a live stream would yield.
package enum RecordedStream {
  /// The values of a JSON Lines body, with their report.
  package static func lines<T: Decodable & Sendable>(
    _ type: T.Type, from body: Data, decoder: LenientDecoder
  ) throws -> Decoded<[T]> {
    try values(LinesFraming<T>(), body, decoder, format: nil)
  }

  /// The events of a Server-Sent Events body, with their report.
  package static func events<T: Decodable & Sendable>(
    _ type: T.Type, from body: Data, endMarker: String?, decoder: LenientDecoder
  ) throws -> Decoded<[ServerSentEvent<T>]> {
    try values(EventsFraming<T>(endMarker: endMarker), body, decoder, format: nil)
  }

  /// The elements of the array at `path` (inside the envelope's data; from the root when
  /// `format` is nil or `.plain`), with their report; a business failure throws.
  package static func elements<T: Decodable & Sendable>(
    _ type: T.Type, from body: Data, at path: JSONPath, format: EnvelopeFormat?,
    decoder: LenientDecoder
  ) throws -> Decoded<[T]> {
    let envelope = format.flatMap { $0.isPlain ? nil : $0 }
    return try values(
      ElementsFraming<T>(path: path, format: envelope), body, decoder, format: envelope)
  }

  private static func values<F: StreamFraming>(
    _ framing: F, _ body: Data, _ decoder: LenientDecoder, format: EnvelopeFormat?
  ) throws -> Decoded<[F.Element]> {
    var framing = framing
    framing.start(decoder)
    var framed: [Framed<F.Element>] = []
    try framing.feed(body) { framed.append($0) }
    if !framing.isDone { try framing.finish { framed.append($0) } }
    if let format, let status = try framing.status(atEnd: true), !status.isSuccess {
      throw format.error(for: status)
    }
    var values: [F.Element] = []
    var entries: [DecodingReport.Entry] = []
    var omitted = 0
    for frame in framed {
      entries += frame.report.entries
      omitted += frame.report.omittedCount
      if let value = try frame.value.get() { values.append(value) }
    }
    return Decoded(value: values, report: DecodingReport(entries: entries, omittedCount: omitted))
  }
}
