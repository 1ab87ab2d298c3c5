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
///
/// A chunk's frames are decoded into one `Framed` batch (the values, one report, the error
/// that stops them), not a wrapper per value: per-value generic plumbing across the module
/// boundary cost more than the framing itself.
protocol StreamFraming<Element> {
  associatedtype Element
  /// Reads a chunk; `batch` gets the values (and the report, and the frame error that stops
  /// them) it completes, in order, after what it already holds.
  mutating func feed(_ chunk: Data, into batch: inout Framed<Element>) throws
  /// Ends the body; `batch` gets what the end completes.
  mutating func finish(into batch: inout Framed<Element>) throws
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

/// Frames decoded: their values in order (lenient policy leaves out the dropped ones), their
/// report, and the error of the frame that stopped them (a strict failure, a line that is not
/// JSON): nothing after it is decoded.
struct Framed<Element> {
  var values: [Element] = []
  var report = DecodingReport()
  var error: (any Error)?

  /// Nothing framed: no value, no report, no error.
  var isEmpty: Bool { values.isEmpty && report.isEmpty && error == nil }

  /// Adds `report` after the batch's own.
  mutating func add(_ report: DecodingReport) {
    guard !report.isEmpty else { return }
    if self.report.isEmpty {
      self.report = report
    } else {
      self.report = DecodingReport(
        entries: self.report.entries + report.entries,
        omittedCount: self.report.omittedCount + report.omittedCount)
    }
  }
}

/// JSON Lines: each line one value.
struct LinesFraming<T: Decodable>: StreamFraming {
  private var framer = JSONLinesFramer()
  private var frames: FrameDecoder?

  mutating func start(_ decoder: LenientDecoder) { frames = FrameDecoder(decoder) }

  mutating func feed(_ chunk: Data, into batch: inout Framed<T>) throws {
    guard let frames else { return }
    frames.startBatch()
    chunk.withUnsafeBytes { raw in
      framer.feed(raw) { line in Self.decode(frames, line.bytes, line.index, into: &batch) }
    }
    batch.add(frames.takeReport())
  }

  mutating func finish(into batch: inout Framed<T>) throws {
    guard let frames else { return }
    frames.startBatch()
    framer.finish { line in Self.decode(frames, line.bytes, line.index, into: &batch) }
    batch.add(frames.takeReport())
  }

  var isDone: Bool { false }
  func status(atEnd: Bool) throws -> EnvelopeStatus? { nil }
  var reconnection: (headers: [String: String], wait: Duration?)? { nil }

  /// Decodes one line into the batch, unless an earlier frame stopped it.
  static func decode(
    _ frames: FrameDecoder, _ bytes: UnsafeBufferPointer<UInt8>, _ index: Int,
    into batch: inout Framed<T>
  ) {
    guard batch.error == nil else { return }
    do {
      try frames.decode(T.self, from: bytes, index: index) { batch.values.append($0) }
    } catch {
      batch.error = error
    }
  }
}

/// Server-Sent Events: each event's data one value.
///
/// The events a chunk completes are decoded in one scan (`FrameBatch`: a 200-byte event's
/// data costs its decode, not a document of its own), then paired with their fields.
struct EventsFraming<T: Decodable & Sendable>: StreamFraming {
  let endMarker: String?
  private var parser = EventStreamParser()
  private var frames: FrameDecoder?
  private(set) var isDone = false
  /// The data of the chunk's events, and their other fields, in order (kept for capacity).
  private var pending = FrameBatch()
  private var fields: [EventFields] = []

  init(endMarker: String?) { self.endMarker = endMarker }

  mutating func start(_ decoder: LenientDecoder) { frames = FrameDecoder(decoder) }

  mutating func feed(_ chunk: Data, into batch: inout Framed<ServerSentEvent<T>>) throws {
    guard !isDone, let frames, batch.error == nil else { return }
    let endMarker = self.endMarker
    let firstIndex = parser.count
    var done = false
    // Taken out of `self` for the parse (the parser is `self`'s), put back for their capacity.
    var pending = self.pending
    var fields = self.fields
    self.pending = FrameBatch()
    self.fields = []
    defer {
      pending.removeAll()
      fields.removeAll(keepingCapacity: true)
      self.pending = pending
      self.fields = fields
    }
    parser.feed(chunk) { event in
      guard !done else { return }
      if let endMarker, event.hasData(endMarker) {
        done = true
        return
      }
      pending.append(event.data)
      fields.append(EventFields(event: event.event, id: event.id, retry: event.retry))
    }
    isDone = done
    guard pending.count > 0 else { return }
    frames.startBatch()
    batch.values.reserveCapacity(batch.values.count + pending.count)
    do {
      try frames.decode(T.self, frames: &pending, firstIndex: firstIndex) { position, value in
        let field = fields[position]
        batch.values.append(
          ServerSentEvent(event: field.event, id: field.id, retry: field.retry, data: value))
      }
    } catch {
      batch.error = error
    }
    batch.add(frames.takeReport())
  }

  mutating func finish(into batch: inout Framed<ServerSentEvent<T>>) throws {
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

/// An event's fields but its data. Not nested in `EventsFraming<T>`: a type nested in a generic
/// one is generic too, and unspecialised code looks its metadata up at every use (per event).
private struct EventFields {
  var event: String?
  var id: String?
  var retry: Duration?
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

  mutating func feed(_ chunk: Data, into batch: inout Framed<T>) throws {
    guard let frames else { return }
    // The elements a chunk completes are decoded in one decode (a small element costs far
    // less than a decode of its own), with each element's values, report and error.
    try chunk.withUnsafeBytes { bytes in
      try framer.feedBatch(bytes) { elements in
        guard batch.error == nil else { return }
        var decoded = frames.decode(T.self, batch: elements)
        if batch.values.isEmpty {
          swap(&batch.values, &decoded.values)
        } else {
          batch.values += decoded.values
        }
        batch.add(decoded.report)
        batch.error = decoded.error
      }
    }
    if let error = framer.arrayError(atEnd: false) { throw error }
  }

  mutating func finish(into batch: inout Framed<T>) throws {
    try framer.finish()
    if let error = framer.arrayError(atEnd: true) { throw error }
  }

  var isDone: Bool { false }
  var watchesStatus: Bool { format != nil }

  func status(atEnd: Bool) throws -> EnvelopeStatus? {
    // A code after the data is the end's: the elements before it are yielded first, even when
    // the whole body came in the chunk read before the head was accepted.
    if !atEnd, framer.codeFollowsData { return nil }
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
    var framed = Framed<F.Element>()
    try framing.feed(body, into: &framed)
    if !framing.isDone { try framing.finish(into: &framed) }
    if let format, let status = try framing.status(atEnd: true), !status.isSuccess {
      throw format.error(for: status)
    }
    if let error = framed.error { throw error }
    return Decoded(value: framed.values, report: framed.report)
  }
}
