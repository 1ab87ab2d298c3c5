import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a download or an upload reports.
public enum TransferEvent: Sendable {
  /// Bytes done so far, and the total when the server or the file says it.
  case progress(completed: Int64, total: Int64?)
  /// The transfer ended with this response (for a download, the body is in the file).
  case finished(Response)
}

/// The events of one download or upload: progress, then `.finished`, or the error.
///
/// The transfer stops as soon as its consumer does: breaking out of the `for try await` loop
/// (the iterator goes away) or cancelling the consuming task cancels it, and a cancelled
/// download leaves no file of its own (a file that was already there stays unless the body
/// replaced it). A consumer whose task is cancelled gets `CancellationError`, never a
/// normal end without `.finished`.
public struct TransferEvents: AsyncSequence, Sendable {
  /// The element.
  public typealias Element = TransferEvent

  /// The events as they come, for API.md's `AsyncThrowingStream` spelling: the stream's end
  /// (the consumer left or was cancelled) cancels the transfer (`transfer`'s `onTermination`).
  let stream: AsyncThrowingStream<TransferEvent, any Error>
  private let task: Task<Void, Never>

  init(stream: AsyncThrowingStream<TransferEvent, any Error>, task: Task<Void, Never>) {
    self.stream = stream
    self.task = task
  }

  /// An iterator; when it goes away before `.finished`, the transfer is cancelled.
  public func makeAsyncIterator() -> Iterator {
    Iterator(base: stream.makeAsyncIterator(), owner: TransferOwner(task))
  }

  /// Iterates the events.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<TransferEvent, any Error>.Iterator
    let owner: TransferOwner
    var finished = false

    /// The next event; nil after `.finished`.
    ///
    /// - Throws: the transfer's `ProviderError` (or the error your target gives for a failed
    ///   response, ``TargetType/error(for:)``), or `CancellationError` when the consuming task
    ///   was cancelled before the transfer finished.
    public mutating func next() async throws -> TransferEvent? {
      guard !finished else { return nil }
      guard let event = try await base.next() else {
        // The stream ends without `.finished` only when it was cancelled.
        finished = true
        throw CancellationError()
      }
      if case .finished = event { finished = true }
      return event
    }
  }
}

/// Cancels the transfer when the last iterator holding it goes away.
///
/// `@unchecked Sendable`: immutable.
final class TransferOwner: @unchecked Sendable {
  private let task: Task<Void, Never>
  init(_ task: Task<Void, Never>) { self.task = task }
  deinit { task.cancel() }
}

extension Provider {
  /// Streams the target's response body to `file`, yielding progress, then `.finished`.
  ///
  /// The body never sits in memory whole (`URLSessionTransport` writes each chunk as it
  /// arrives: +33 MB for a 100 MB body on loopback; other transports write the whole body). The status is validated as for any call.
  /// Breaking out of the loop or cancelling the consuming task stops the transfer at once; a
  /// failed or cancelled download leaves no file of its own: a file already at `file` stays
  /// unless a finished body replaced it (an error status's body goes too). Plugins see `prepare`, `willSend`,
  /// `didReceive` and `process`; there is no retry.
  ///
  /// ```swift
  /// for try await event in provider.download(.archive, to: file) {
  ///   if case .progress(let done, let total?) = event { bar.value = Double(done) / Double(total) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - file: where the body goes; replaced when it exists.
  /// - Returns: progress events, then `.finished`; or the `ProviderError` (your target's own
  ///   error for a failed response, when ``TargetType/error(for:)`` gives one).
  public func download(_ target: Target, to file: URL) -> TransferEvents {
    transfer(target, leavesFile: file) { request, progress in
      let http = try await self.line.download(request, to: file, progress: progress)
      // An error status keeps (the first megabyte of) its body for the error; the file goes.
      let failed = !target.validStatusCodes.contains(http.statusCode)
      let body = failed ? Self.head(of: file) : Data()
      return Response(
        statusCode: http.statusCode, headers: http.stringHeaders, data: body, request: request)
    }
  }

  /// Sends a `.file` (streamed from disk) or `.multipart` task's body, yielding upload
  /// progress, then `.finished` with the server's response.
  ///
  /// - Parameter target: the endpoint; its task gives the body.
  /// - Returns: progress events, then `.finished`; or the `ProviderError` (your target's own
  ///   error for a failed response, when ``TargetType/error(for:)`` gives one).
  public func upload(_ target: Target) -> TransferEvents {
    transfer(target, leavesFile: nil) { request, progress in
      var bodiless = request
      bodiless.httpBody = nil
      let (data, http): (Data, HTTPURLResponse)
      if case .file(let url, _) = target.task {
        (data, http) = try await self.line.upload(bodiless, fromFile: url, progress: progress)
      } else {
        // A body built in memory (multipart, JSON, form) goes through a temporary file.
        let temporary = FileManager.default.temporaryDirectory
          .appendingPathComponent("EnvelopeKit-upload-\(UUID().uuidString)")
        try (request.httpBody ?? Data()).write(to: temporary)
        defer { try? FileManager.default.removeItem(at: temporary) }
        (data, http) = try await self.line.upload(bodiless, fromFile: temporary, progress: progress)
      }
      return Response(
        statusCode: http.statusCode, headers: http.stringHeaders, data: data, request: request)
    }
  }

  /// Up to the first megabyte of a file.
  private static func head(of file: URL) -> Data {
    guard let handle = try? FileHandle(forReadingFrom: file) else { return Data() }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 1 << 20)) ?? Data()
  }

  /// One attempt of a transfer through the shared stages, as a stream of events.
  private func transfer(
    _ target: Target, leavesFile file: URL?,
    _ run: @escaping @Sendable (URLRequest, @escaping TransferProgress) async throws -> Response
  ) -> TransferEvents {
    let (stream, continuation) = AsyncThrowingStream<TransferEvent, any Error>.makeStream()
    let task = Task {
      let exchange = Exchange(
        call: ProviderCall(id: ProviderCall.nextID(), attempt: 1), target: target, cacheUse: .none,
        plugins: plugins, redaction: redactionRule)
      // Whether the transport finished, so `file` is this transfer's (and goes on an error):
      // a transfer that failed or was cancelled before leaves a file that was there as it was.
      let wrote = Locked(false)
      do {
        let result = try await Exchange.$current.withValue(exchange) {
          try await self.exchange(target) { request in
            // What a `URLSessionTransport` measured (none for a stub).
            let recorder = Locked<TransferMetrics?>(nil)
            var response = try await TransferMetrics.$recorder.withValue(recorder) {
              try await run(request) { completed, total in
                continuation.yield(.progress(completed: completed, total: total))
              }
            }
            response.metrics = recorder.withLock { $0 }
            wrote.withLock { $0 = true }
            return response
          }
        }
        let response: Response
        switch result {
        case .success(let value): response = value
        case .failure(let error): throw self.surfaced(error, target)
        }
        try Task.checkCancellation()  // a consumer that left never sees a file it did not wait for
        continuation.yield(.finished(response))
        continuation.finish()
      } catch {
        if let file, wrote.withLock({ $0 }) { try? FileManager.default.removeItem(at: file) }
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return TransferEvents(stream: stream, task: task)
  }
}

// MARK: - API.md's spelling: the events as an AsyncThrowingStream

extension Provider {
  /// `download(_:to:)` as the `AsyncThrowingStream` API.md names, chosen where the call's type
  /// asks for one (`let events: AsyncThrowingStream<TransferEvent, any Error> = …`).
  ///
  /// The same transfer as the ``TransferEvents`` one: leaving the loop (the stream goes away)
  /// or cancelling the consuming task stops it, and a stopped download leaves no file of its
  /// own. One difference, the stream's own: a cancelled consumer sees the stream end (nil)
  /// rather than `CancellationError`, so check for `.finished` before using the file.
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - file: where the body goes; replaced when it exists.
  /// - Returns: progress events, then `.finished`; or the `ProviderError` (your target's own
  ///   error for a failed response, when ``TargetType/error(for:)`` gives one).
  @_disfavoredOverload
  public func download(_ target: Target, to file: URL)
    -> AsyncThrowingStream<TransferEvent, any Error>
  {
    (download(target, to: file) as TransferEvents).stream
  }

  /// `upload(_:)` as the `AsyncThrowingStream` API.md names, chosen where the call's type asks
  /// for one; the same transfer as the ``TransferEvents`` one (see `download(_:to:)`'s stream).
  ///
  /// - Parameter target: the endpoint; its task gives the body.
  /// - Returns: progress events, then `.finished`; or the `ProviderError` (your target's own
  ///   error for a failed response, when ``TargetType/error(for:)`` gives one).
  @_disfavoredOverload
  public func upload(_ target: Target) -> AsyncThrowingStream<TransferEvent, any Error> {
    (upload(target) as TransferEvents).stream
  }
}
