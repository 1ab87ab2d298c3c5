import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Provider {
  /// The values of a JSON Lines (NDJSON) body, one per line, each decoded as it arrives.
  ///
  /// Every line (`\n` or `\r\n`; blank lines skipped) is one `T`, decoded by the provider's
  /// decoder and policy: no envelope per line. A lenient decode reports each line's drift to the
  /// plugins' `didDecode` with the line's index in the path (`[1532].price`, counted from 0
  /// over the values); in lenient policy a line that does not decode is dropped and reported,
  /// in strict policy it ends the stream with `ProviderError.decoding` (as a line that is not
  /// JSON does in either policy), after the values before it.
  ///
  /// The stream runs the provider's line as every call does (see ``ProviderStream``).
  ///
  /// ```swift
  /// for try await row in provider.lines(.export, as: Row.self) { save(row) }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: a line's type.
  /// - Returns: the values, in order.
  public func lines<T: Decodable & Sendable>(_ target: Target, as type: T.Type = T.self)
    -> ProviderStream<T>
  {
    ProviderStream { StreamRun(provider: self, target: target, framing: LinesFraming<T>()) }
  }

  /// The events of a Server-Sent Events body (`text/event-stream`), each event's `data` decoded
  /// as `T` as it arrives.
  ///
  /// The body is read as the WHATWG standard's event stream interpretation says: `event`, `data`
  /// (lines joined with `\n`), `id`, `retry`, comments, CR, LF or CRLF line ends, a BOM, fields
  /// split across chunks anywhere. An event with no `event` field has `event == nil`; `id` is
  /// the last event ID seen (kept from event to event, as the standard keeps it); `retry` is nil
  /// unless the event set it. An event whose data is `endMarker` (`[DONE]` by default, as
  /// OpenAI-style APIs send) ends the stream; nil reads to the end of the body.
  ///
  /// When the connection drops after the stream began (a transport error), the plugins' `retry`
  /// (``RetryPolicy``) decides whether to reconnect; the next request carries `Last-Event-ID`
  /// and waits at least the server's last `retry`. Drift is reported with the event's index, as
  /// `lines(_:as:)` reports it.
  ///
  /// ```swift
  /// for try await chunk in provider.events(.chat(prompt), as: ChatChunk.self) {
  ///   print(chunk.data.delta, terminator: "")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: an event's data type.
  ///   - endMarker: the data that ends the stream; nil for none.
  /// - Returns: the events, in order.
  public func events<T: Decodable & Sendable>(
    _ target: Target, as type: T.Type = T.self, endMarker: String? = "[DONE]"
  ) -> ProviderStream<ServerSentEvent<T>> {
    ProviderStream {
      StreamRun(provider: self, target: target, framing: EventsFraming<T>(endMarker: endMarker))
    }
  }

  /// Each element of the array at `path`, yielded as soon as its bytes have arrived while the
  /// rest of the body is still downloading.
  ///
  /// `path` is inside the envelope's data (under the target's or the decoder's format), or from
  /// the root of the body under `EnvelopeFormat.plain`. Memory is bounded by the largest
  /// element, not the body. A business failure known by the time the first elements are read
  /// (the code comes before the data, as usual) is the attempt's failure before any element:
  /// the plugins see it (an expired token is refreshed and the stream sent again) and no
  /// element is yielded. A code that comes after the data ends the stream with its failure
  /// after the elements. A missing array, or a value there that is not an array, ends it with
  /// `ProviderError.decoding`.
  ///
  /// ```swift
  /// for try await order in provider.elements(.orders, as: Order.self, at: "list") { show(order) }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: an element's type.
  ///   - path: where the array is.
  /// - Returns: the elements, in order.
  public func elements<T: Decodable & Sendable>(
    _ target: Target, as type: T.Type = T.self, at path: JSONPath
  ) -> ProviderStream<T> {
    let format = target.envelope ?? decoder.envelope
    return ProviderStream {
      StreamRun(
        provider: self, target: target,
        framing: ElementsFraming<T>(path: path, format: format.isPlain ? nil : format))
    }
  }
}

/// The values of a streamed call (`Provider.lines`, `events`, `elements`): an `AsyncSequence`
/// that sends its request when the loop asks for the first value.
///
/// A stream runs the provider's line as every call does: build (`Provider(baseURL:)`), prepare
/// (credentials), willSend, send through stubs (which stream a fixture in chunks) and your
/// transport, validate the head (a status the target does not accept, or an envelope failure in
/// its body, goes through `didReceive`, `process` and `retry`: a 401 refreshes the token and
/// sends the stream again), then the body as it arrives. Logs: `didReceive` hears the head, and
/// `didFinishStream` the end with the count of values and the duration. The cache neither
/// stores nor answers streams. Failures after the first value end the stream with the error
/// (`error(for:)` mapped as for any call).
///
/// The loop pulls: a chunk is read only when the values of the last one are used up, so memory
/// stays flat however slow the consumer. Breaking out of the loop, or cancelling its task, stops
/// the transfer at once.
public struct ProviderStream<Element: Sendable>: AsyncSequence, Sendable {
  /// The error a stream ends with.
  public typealias Failure = any Error

  let open: @Sendable () -> any StreamCursor<Element>

  init(_ open: @escaping @Sendable () -> any StreamCursor<Element>) {
    self.open = open
  }

  /// An iterator that sends the request at its first `next()`.
  ///
  /// - Returns: the iterator.
  public func makeAsyncIterator() -> Iterator { Iterator(cursor: open()) }

  /// Reads the stream; one per loop.
  public struct Iterator: AsyncIteratorProtocol {
    let cursor: any StreamCursor<Element>

    /// The next value, or nil at the end.
    ///
    /// - Returns: the value, or nil.
    /// - Throws: `ProviderError` (or the target's `error(for:)`), `CancellationError`.
    public mutating func next() async throws -> Element? {
      try await cursor.next()
    }
  }
}

/// How a stream ended, as `Plugin.didFinishStream(_:target:)` hears it.
public struct StreamSummary: Sendable {
  /// How it ended.
  public enum Ending: Sendable {
    /// The body ended (or the end marker came).
    case finished
    /// The consumer stopped reading (left the loop, or its task was cancelled).
    case stopped
    /// An error ended it.
    case failed(any Error)
  }

  /// The values yielded.
  public var count: Int
  /// From the first request to the end.
  public var duration: Duration
  /// The reconnections made (Server-Sent Events).
  public var reconnections: Int
  /// How it ended.
  public var ending: Ending

  /// Creates a summary.
  ///
  /// - Parameters:
  ///   - count: the values yielded.
  ///   - duration: how long it ran.
  ///   - reconnections: the reconnections made.
  ///   - ending: how it ended.
  public init(count: Int, duration: Duration, reconnections: Int, ending: Ending) {
    self.count = count
    self.duration = duration
    self.reconnections = reconnections
    self.ending = ending
  }
}

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

/// One stream's reading: the attempts that open it (through the provider's line and plugins,
/// with retries), then the body pulled a chunk at a time and framed into values.
final class StreamRun<Target: TargetType, Framing: StreamFraming>: StreamCursor
where Framing.Element: Sendable {
  typealias Element = Framing.Element

  private let provider: Provider<Target>
  private let target: Target
  private var framing: Framing
  private let id = ProviderCall.nextID()
  private let values = CallValues()
  private let started = ContinuousClock.now
  /// The body being read; nil before the first request and between reconnections.
  private var body: ResponseBody.AsyncIterator?
  /// The head of the answer being read (no body), for errors and `didDecode`.
  private var head: Response?
  /// Values framed and not yet handed out.
  private var ready: [Element] = []
  private var readyIndex = 0
  /// The error that ends the stream once the values framed before it have been handed out.
  private var pending: (any Error)?
  private var yielded = 0
  private var reconnections = 0
  private var bodyEnded = false
  private var ended = false
  private var attempts = 0

  /// The framing before any byte: an attempt that reads the body before its head is accepted
  /// (an envelope's status) starts from it, not from what a refused attempt read.
  private let unread: Framing

  init(provider: Provider<Target>, target: Target, framing: Framing) {
    self.provider = provider
    self.target = target
    var framing = framing
    framing.start(provider.decoder)
    self.framing = framing
    self.unread = framing
  }

  deinit {
    // The consumer left the loop (or its task was cancelled) before the end: the body's
    // iterator goes with this run, which cancels the transfer; the plugins hear the end.
    guard !ended, head != nil else { return }
    let summary = StreamSummary(
      count: yielded, duration: .now - started, reconnections: reconnections, ending: .stopped)
    let exchange = Exchange(
      call: ProviderCall(id: id, attempt: attempts, values: values), target: target,
      cacheUse: .none, plugins: provider.plugins)
    Task {
      await Exchange.$current.withValue(exchange) {
        for plugin in exchange.plugins {
          await plugin.didFinishStream(summary, target: exchange.target)
        }
      }
    }
  }

  func next() async throws -> Element? {
    while true {
      if readyIndex < ready.count {
        let value = ready[readyIndex]
        readyIndex += 1
        if readyIndex == ready.count {
          ready.removeAll(keepingCapacity: true)
          readyIndex = 0
        }
        yielded += 1
        return value
      }
      if let error = pending {
        pending = nil
        throw await fail(error)
      }
      if ended { return nil }
      do {
        try Task.checkCancellation()
        if bodyEnded || framing.isDone {
          try await end()
          continue
        }
        guard var iterator = body else {
          try await connect(headers: [:])
          continue
        }
        let chunk = try await iterator.next()
        body = iterator
        guard let chunk else {
          bodyEnded = true
          try await take { try framing.finish($0) }
          continue
        }
        try await take { try framing.feed(chunk, $0) }
      } catch {
        // A reconnection's own failure (its attempts refused, the wait cancelled) ends the
        // stream as any other: surfaced, and the plugins told.
        do {
          if try await reconnection(after: error) { continue }
        } catch {
          throw await fail(error)
        }
        throw await fail(error)
      }
    }
  }

  // MARK: - Opening

  /// Attempts until the head is accepted, as `Provider.run` does a call's: each attempt's
  /// failure goes to the plugins' `retry`.
  private func connect(headers: [String: String]) async throws {
    let first = attempts
    while true {
      attempts += 1
      try Task.checkCancellation()
      let exchange = Exchange(
        call: ProviderCall(id: id, attempt: attempts, values: values), target: target,
        cacheUse: .none, plugins: provider.plugins)
      do {
        try await Exchange.$current.withValue(exchange) {
          try await self.attempt(exchange, headers: headers)
        }
        return
      } catch let error as ProviderError {
        let delay = await Exchange.$current.withValue(exchange) {
          await provider.retryDelay(after: error, target: target, attempt: attempts - first)
        }
        guard let delay else { throw StreamEnd.failed(provider.surfaced(error, target)) }
        if delay > .zero { try await Task.sleep(for: delay) }
      }
    }
  }

  /// One attempt: the provider's stages, with the line's streamed answer as the response (its
  /// body read whole when the status is not accepted, so the failure carries it). For an
  /// envelope, the body is read up to its first values, so that a failure it shows before them
  /// is the attempt's.
  private func attempt(_ exchange: Exchange, headers: [String: String])
    async throws
  {
    // Only an envelope's elements are read before the head is accepted, and they never
    // reconnect: the framing of another kind (a reconnection's event IDs) is kept.
    if framing.watchesStatus { framing = unread }
    var opened: ResponseBody.AsyncIterator?
    var early: [Framed<Element>] = []
    var endedEarly = false
    var bodyError: (any Error)?
    let accepted = target.validStatusCodes
    let result = try await provider.exchange(target, headers: headers) { _, status in
      guard let read = try framing.status(atEnd: endedEarly) else { return }
      status = read
      if !read.isSuccess {
        throw (target.envelope ?? provider.decoder.envelope).error(for: read)
      }
    } send: { request in
      let streamed = try await provider.line.stream(request, in: exchange)
      var response = Response(
        statusCode: streamed.response.statusCode, headers: streamed.response.stringHeaders,
        data: Data(), request: request)
      var iterator = streamed.body.makeAsyncIterator()
      guard accepted.contains(response.statusCode) else {
        response.data = try await Self.collect(&iterator, limit: Self.errorBodyLimit)
        return response
      }
      // An envelope's status before its first values: read on until one or the other. An
      // error of the body (a status that is not a code, a malformed body, no array at the
      // path) is not the transport's: a status error is read again by `validate` with the
      // head, the others end the stream after the values before them, as later in the body.
      do {
        while framing.watchesStatus, early.isEmpty, try framing.status(atEnd: false) == nil {
          guard let chunk = try await iterator.next() else {
            endedEarly = true
            try framing.finish { early.append($0) }
            break
          }
          try framing.feed(chunk) { early.append($0) }
        }
      } catch let error as DecodingError {
        bodyError = error
      } catch is EnvelopeError {
        // `validate` throws it with the response.
      }
      opened = iterator
      return response
    }
    switch consume result {
    case .failure(let error): throw error
    case .success(let response):
      head = response
      body = opened
      bodyEnded = endedEarly
      await hand(early)
      if let bodyError, pending == nil { pending = bodyError }
    }
  }

  // MARK: - Reading

  /// Frames what `step` reads and hands the values on; an error of the framing (a malformed
  /// body) ends the stream after the values framed before it.
  private func take(
    _ step: ((Framed<Element>) -> Void) throws -> Void
  ) async throws {
    var framed: [Framed<Element>] = []
    var failure: (any Error)?
    do {
      try step { framed.append($0) }
    } catch {
      failure = error
    }
    await hand(framed)
    if let failure, pending == nil { pending = failure }
  }

  /// Queues the values; each non-empty report goes to the plugins' `didDecode`; a frame that
  /// did not decode (strict policy) ends the stream once the values before it are handed out.
  private func hand(_ framed: [Framed<Element>]) async {
    for frame in framed where pending == nil {
      if !frame.report.isEmpty, let head {
        for plugin in provider.plugins {
          await plugin.didDecode(frame.report, target: target, response: head)
        }
      }
      switch frame.value {
      case .success(let value?): ready.append(value)
      case .success(nil): break
      case .failure(let error): pending = error
      }
    }
  }

  /// The body has ended: an envelope's code after the data (or none at all) is checked, and
  /// the plugins hear the end.
  private func end() async throws {
    if let status = try framing.status(atEnd: true), !status.isSuccess {
      throw (target.envelope ?? provider.decoder.envelope).error(for: status)
    }
    ended = true
    body = nil
    await finished(.finished)
  }

  // MARK: - Ending

  /// A dropped connection of a stream that reconnects (Server-Sent Events), when the plugins'
  /// `retry` allows: waits at least the server's `retry` and reconnects. False when the stream
  /// does not reconnect.
  private func reconnection(after error: any Error) async throws -> Bool {
    guard head != nil, !ended, let reconnection = framing.reconnection,
      let urlError = error as? URLError, urlError.code != .cancelled, !Task.isCancelled
    else { return false }
    // A body cut short after its head is a lost connection, whatever the platform calls it
    // (curl: "transfer closed with outstanding read data remaining").
    let lost =
      urlError.code == .timedOut
      ? urlError : URLError(.networkConnectionLost, userInfo: [NSUnderlyingErrorKey: urlError])
    let failure = ProviderError.transport(lost)
    let exchange = Exchange(
      call: ProviderCall(id: id, attempt: attempts, values: values), target: target,
      cacheUse: .none, plugins: provider.plugins)
    let delay = await Exchange.$current.withValue(exchange) {
      await provider.retryDelay(after: failure, target: target, attempt: reconnections + 1)
    }
    guard let delay else { return false }
    reconnections += 1
    framing.dropPartial()
    body = nil
    let wait = max(delay, reconnection.wait ?? .zero)
    if wait > .zero { try await Task.sleep(for: wait) }
    try await connect(headers: reconnection.headers)
    return true
  }

  /// The error the consumer gets, the plugins told.
  private func fail(_ error: any Error) async -> any Error {
    ended = true
    body = nil
    let surfaced: any Error
    switch error {
    case StreamEnd.failed(let given): surfaced = given
    case is CancellationError: surfaced = error
    default:
      var response = head
      response?.failureDecoder = FailureDecoder(provider.decoder)
      do {
        surfaced = provider.surfaced(
          try Provider<Target>.providerError(error, response: response), target)
      } catch {
        surfaced = error  // cancellation
      }
    }
    await finished(surfaced is CancellationError ? .stopped : .failed(surfaced))
    return surfaced
  }

  private func finished(_ ending: StreamSummary.Ending) async {
    let summary = StreamSummary(
      count: yielded, duration: .now - started, reconnections: reconnections, ending: ending)
    let exchange = Exchange(
      call: ProviderCall(id: id, attempt: max(attempts, 1), values: values), target: target,
      cacheUse: .none, plugins: provider.plugins)
    await Exchange.$current.withValue(exchange) {
      for plugin in provider.plugins { await plugin.didFinishStream(summary, target: target) }
    }
  }

  /// The most of a failed response's body kept for its error.
  static var errorBodyLimit: Int { 1 << 20 }

  /// The body, up to `limit` bytes.
  private static func collect(_ iterator: inout ResponseBody.AsyncIterator, limit: Int)
    async throws -> Data
  {
    var data = Data()
    while data.count < limit, let chunk = try await iterator.next() {
      data.append(chunk.prefix(limit - data.count))
    }
    return data
  }
}

/// A failure already surfaced for the consumer (the attempts' own, after the plugins).
enum StreamEnd: Error {
  case failed(any Error)
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
