import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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
      cacheUse: .none, plugins: provider.plugins,
      redaction: provider.redactionRule)
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
          // The batch's values go as soon as the last is handed out.
          ready = []
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
          try await take { try framing.finish(into: &$0) }
          continue
        }
        try await take { try framing.feed(chunk, into: &$0) }
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
        cacheUse: .none, plugins: provider.plugins,
        redaction: provider.redactionRule)
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
    var early = Framed<Element>()
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
            try framing.finish(into: &early)
            break
          }
          try framing.feed(chunk, into: &early)
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
  private func take(_ step: (inout Framed<Element>) throws -> Void) async throws {
    var framed = Framed<Element>()
    var failure: (any Error)?
    do {
      try step(&framed)
    } catch {
      failure = error
    }
    await hand(framed)
    if let failure, pending == nil { pending = failure }
  }

  /// Queues the values; a non-empty report goes to the plugins' `didDecode` (one call for the
  /// frames of a chunk, paths starting with each frame's index); a frame that did not decode
  /// (strict policy) ends the stream once the values before it are handed out.
  private func hand(_ framed: consuming Framed<Element>) async {
    guard pending == nil else { return }
    if !framed.report.isEmpty, let head {
      for plugin in provider.plugins {
        await plugin.didDecode(framed.report, target: target, response: head)
      }
    }
    if ready.isEmpty {
      ready = framed.values
      readyIndex = 0
    } else {
      ready += framed.values
    }
    if let error = framed.error { pending = error }
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
      cacheUse: .none, plugins: provider.plugins,
      redaction: provider.redactionRule)
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
      cacheUse: .none, plugins: provider.plugins,
      redaction: provider.redactionRule)
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
