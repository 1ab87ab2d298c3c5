import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSessionTransport {
  /// Sends `request` (with `file` as its body when given) through the session, and the hops of
  /// a 307 or 308 that keep its body: the one path of calls, downloads and uploads.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: an upload's body, read from disk as it is sent.
  ///   - destination: where a download's body goes; nil keeps it in memory.
  ///   - progress: what to report; `completed` never goes back, also when a redirect sends the
  ///     body again.
  /// - Returns: the body (empty for a download) and the response; the exchange's
  ///   `TransferMetrics` go to `TransferMetrics.recorder` when one is set.
  /// - Throws: `URLError` (`.httpTooManyRedirects` after `RedirectGuard.maximumRedirects`
  ///   hops), `CancellationError`, or a file error.
  func exchange(
    _ request: URLRequest, uploading file: URL? = nil, to destination: URL? = nil,
    progress: TaskExchange.Progress = .none
  ) async throws -> (Data, HTTPURLResponse) {
    var request = try await Self.replayable(request)
    var hasBody = file != nil || request.httpBody != nil
    var file = file
    let progress = Self.monotonic(progress)
    let first = request.url
    let recorder = TransferMetrics.recorder
    let idleLimit = idleLimit(of: request)
    var measure = TransferMeasure()
    for _ in 0...RedirectGuard.maximumRedirects {
      let box = TaskBox()
      let (data, response) = try await run(
        request, uploading: file, to: destination, progress: progress, hasBody: hasBody,
        idleLimit: idleLimit, in: box)
      if recorder != nil { measure.add(box.counts, body: request.httpBody) }
      guard
        let next = nextHop(
          after: response, sent: box.sent, request: request, first: first, hasBody: &hasBody)
      else {
        recorder?.withLock { $0 = measure.metrics }
        return (data, response)
      }
      measure.redirects += 1
      if !hasBody { file = nil }
      request = next
    }
    throw URLError(.httpTooManyRedirects)
  }

  /// Sends `request` and returns once the head of the answer has come, with the body streaming:
  /// the path of `exchange(_:)` (the same redirects and credential rule, a 401 as it is), one
  /// task per hop, with the body handed to a `StreamBuffer` as it arrives.
  ///
  /// - Parameter request: the request; its `timeoutInterval` bounds the wait for the head and
  ///   each wait for a chunk.
  /// - Returns: the head and the body.
  /// - Throws: `URLError` (`.timedOut`, `.httpTooManyRedirects`), `CancellationError`.
  func streamedExchange(_ request: URLRequest) async throws -> StreamedResponse {
    var request = try await Self.replayable(request)
    var hasBody = request.httpBody != nil
    let first = request.url
    let timeout = Self.waitLimit(request.timeoutInterval)
    let idleLimit = idleLimit(of: request)
    for _ in 0...RedirectGuard.maximumRedirects {
      let box = TaskBox()
      let buffer = StreamBuffer()
      buffer.onCancel = { box.cancel() }
      let response = try await head(
        request, hasBody: hasBody, into: buffer, idleLimit: idleLimit, in: box, timeout)
      guard
        let next = nextHop(
          after: response, sent: box.sent, request: request, first: first, hasBody: &hasBody)
      else {
        return StreamedResponse(
          response: response, body: ResponseBody(source: buffer, timeout: timeout))
      }
      buffer.cancel()
      request = next
    }
    throw URLError(.httpTooManyRedirects)
  }

  /// The request to send after `response` (a 307 or 308 the session was told not to follow),
  /// or nil when `response` is the answer. The hop that got `response` is the one the session
  /// sent last (`sent`): after a 303 (or a 301 or 302 that made the POST a GET) it has no body,
  /// and nor has the rest of the chain (`hasBody` becomes false).
  private func nextHop(
    after response: HTTPURLResponse, sent: URLRequest?, request: URLRequest, first: URL?,
    hasBody: inout Bool
  ) -> URLRequest? {
    var hop = sent ?? request
    if hasBody && !RedirectGuard.sameMethod(hop, request) { hasBody = false }
    hop.httpBody = hasBody ? request.httpBody : nil
    return redirectGuard.resend(
      hop, after: response, hasBody: hasBody, origins: [first, request.url])
  }

  /// `request` with a body given as `httpBodyStream` read into `httpBody`, the same for `send`,
  /// `stream` and transfers: a stream is read once, so the hop after a 307 or 308 would go out
  /// with an empty body (FoundationNetworking's own redirect sends none). The body is then in
  /// memory, as any `httpBody` is; a large one belongs in `upload(_:fromFile:progress:)`.
  ///
  /// The stream is read on a thread of its own, never on one of the Swift concurrency pool nor
  /// on the session's queue: a read blocks until the stream's producer writes, and a producer
  /// that is a task (a pipe it feeds) needs a thread of the pool to do so. Cancelling the
  /// calling task ends the wait (the thread finishes reading, and its body is dropped).
  ///
  /// - Parameter request: the request.
  /// - Returns: the request with its body in `httpBody`; any other request as it is.
  /// - Throws: `URLError(.requestBodyStreamExhausted)` when the stream fails to read;
  ///   `CancellationError`.
  static func replayable(_ request: URLRequest) async throws -> URLRequest {
    guard request.httpBody == nil, let stream = request.httpBodyStream else { return request }
    let reading = StreamReading(stream)
    let body = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        reading.start(continuation)
      }
    } onCancel: {
      reading.finish(.failure(CancellationError()))
    }
    var replayable = request
    replayable.httpBodyStream = nil
    replayable.httpBody = body
    return replayable
  }

  /// A request's `timeoutInterval` as the longest wait for a head or a chunk; nil for none.
  static func waitLimit(_ seconds: TimeInterval) -> Duration? {
    guard seconds > 0, seconds < Timeout.longest else { return nil }
    return Timeout.duration(seconds)
  }

  /// How long a task of `request` may go without a callback before it ends with
  /// `URLError(.timedOut)` (see `TaskExchange.start(_:)`), for the whole exchange (every hop);
  /// nil for no limit of the transport's own.
  ///
  /// On Linux (where the companion session turns FoundationNetworking's own timer off): the
  /// request's `timeoutInterval`, or the session's `timeoutIntervalForRequest` when the request
  /// has `URLRequest`'s default of 60 s. (FoundationNetworking takes the request's only when it
  /// was set after the request was made, a flag it does not show, and so ignores
  /// `URLRequest(url:timeoutInterval:)`'s; this rule differs from it only there and for a
  /// request set to exactly 60 s in a session with another limit.) On Apple platforms the
  /// session's own timer stays: nil.
  private func idleLimit(of request: URLRequest) -> Duration? {
    #if canImport(FoundationNetworking)
      let seconds =
        request.timeoutInterval == 60
        ? session.configuration.timeoutIntervalForRequest : request.timeoutInterval
      return Self.waitLimit(seconds)
    #else
      return nil
    #endif
  }

  /// One streamed task, kept in `box`, its head awaited; cancelling the calling task cancels it.
  private func head(
    _ request: URLRequest, hasBody: Bool, into buffer: StreamBuffer, idleLimit: Duration?,
    in box: TaskBox, _ timeout: Duration?
  ) async throws -> HTTPURLResponse {
    #if canImport(FoundationNetworking)
      guard SessionCompanion.of(session).ownerIsValid else { throw URLError(.cancelled) }
    #endif
    let exchange = TaskExchange(
      hasBody: hasBody, redirectGuard: redirectGuard, idleLimit: idleLimit, stream: buffer)
    let task = makeTask(request, uploading: nil, exchange: exchange)
    box.set(task, exchange: exchange)
    exchange.start(task)
    do {
      return try await buffer.head(timeout: timeout)
    } catch {
      buffer.cancel()
      throw error
    }
  }

  /// One task, kept in `box` (with what it moved); cancelling the calling task cancels it.
  private func run(
    _ request: URLRequest, uploading file: URL?, to destination: URL?,
    progress: TaskExchange.Progress, hasBody: Bool, idleLimit: Duration?, in box: TaskBox
  ) async throws -> (Data, HTTPURLResponse) {
    #if canImport(FoundationNetworking)
      // The app invalidated its session: nothing more goes out through it.
      guard SessionCompanion.of(session).ownerIsValid else { throw URLError(.cancelled) }
    #endif
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          let exchange = TaskExchange(
            hasBody: hasBody, destination: destination, progress: progress,
            redirectGuard: redirectGuard, idleLimit: idleLimit, continuation: continuation)
          let task = makeTask(request, uploading: file, exchange: exchange)
          box.set(task, exchange: exchange)
          exchange.start(task)
        }
      } onCancel: {
        box.cancel()
      }
    } catch {
      if box.isCancelled { throw CancellationError() }
      throw error
    }
  }

  /// A task of the session given to the transport, with `exchange` told its callbacks: its
  /// delegate on Apple platforms; on Linux, through the session's `SessionCompanion`.
  private func makeTask(_ request: URLRequest, uploading file: URL?, exchange: TaskExchange)
    -> URLSessionTask
  {
    #if canImport(FoundationNetworking)
      return SessionCompanion.of(session).task(for: request, uploading: file, exchange: exchange)
    #else
      let task =
        file.map { session.uploadTask(with: request, fromFile: $0) }
        ?? session.dataTask(with: request)
      task.delegate = exchange
      return task
    #endif
  }

  /// `progress` reporting only what does not go back (a redirect that sends the body again
  /// starts counting from zero).
  private static func monotonic(_ progress: TaskExchange.Progress) -> TaskExchange.Progress {
    func filtered(_ report: @escaping TransferProgress) -> TransferProgress {
      let last = Locked<Int64>(-1)
      return { completed, total in
        let forward = last.withLock { last in
          guard completed >= last else { return false }
          last = completed
          return true
        }
        if forward { report(completed, total) }
      }
    }
    switch progress {
    case .none: return .none
    case .sent(let report): return .sent(filtered(report))
    case .received(let report): return .received(filtered(report))
    }
  }
}

/// The `TransferMetrics` of one exchange, summed over the tasks it ran (see `TransferMetrics` for
/// what is counted).
struct TransferMeasure {
  let start = ContinuousClock.now
  var sent: Int64 = 0
  var received: Int64 = 0
  /// The hops the transport sent itself; `URLSession`'s own are in each task's counts.
  var redirects = 0

  /// Adds a task that got a response: what `URLSessionTaskMetrics` reported when they arrived,
  /// else the bodies (its request's `body` when the session reported no bytes sent: a response
  /// came, so the body went).
  mutating func add(_ counts: TaskExchange.Counts, body: Data?) {
    let bodySent = counts.sent > 0 ? counts.sent : Int64(body?.count ?? 0)
    sent += counts.wire?.sent ?? bodySent
    received += counts.wire?.received ?? counts.received
    redirects += counts.followed
  }

  /// The metrics up to now.
  var metrics: TransferMetrics {
    TransferMetrics(
      duration: ContinuousClock.now - start, bytesSent: sent, bytesReceived: received,
      redirects: redirects)
  }
}

/// One `httpBodyStream` read whole on a thread of its own (see `URLSessionTransport.replayable`),
/// its result handed to the first of the reader and a cancellation.
///
/// `@unchecked Sendable`: `stream` is touched only by the reader thread once `start` has run (the
/// caller hands it over and never reads it again), and `continuation` and `result` only under
/// `lock`.
private final class StreamReading: @unchecked Sendable {
  private let stream: InputStream
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Data, any Error>?
  private var result: Result<Data, any Error>?

  init(_ stream: InputStream) { self.stream = stream }

  /// Starts the reader, which resumes `continuation` (unless a cancellation came first).
  func start(_ continuation: CheckedContinuation<Data, any Error>) {
    let early: Result<Data, any Error>? = lock.withLock {
      if result == nil { self.continuation = continuation }
      return result
    }
    if let early { return continuation.resume(with: early) }
    let reader = Thread { [self] in finish(Result { try readWhole() }) }
    reader.name = "EnvelopeNetworking body stream"
    reader.start()
  }

  /// Hands `outcome` to the waiting call, once: the first outcome wins.
  func finish(_ outcome: Result<Data, any Error>) {
    let waiting: CheckedContinuation<Data, any Error>? = lock.withLock {
      guard result == nil else { return nil }
      result = outcome
      defer { continuation = nil }
      return continuation
    }
    waiting?.resume(with: outcome)
  }

  private func readWhole() throws -> Data {
    if stream.streamStatus == .notOpen { stream.open() }
    defer { stream.close() }
    var body = Data()
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = stream.read(&buffer, maxLength: buffer.count)
      if count < 0 { throw URLError(.requestBodyStreamExhausted) }
      if count == 0 { return body }
      body.append(contentsOf: buffer[..<count])
    }
  }
}
