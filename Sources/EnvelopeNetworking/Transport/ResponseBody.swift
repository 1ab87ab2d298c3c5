import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A response whose head has arrived and whose body is still arriving: what
/// `HTTPTransport.stream(_:)` returns.
///
/// ```swift
/// let streamed = try await transport.stream(request)
/// guard streamed.response.statusCode == 200 else { … }
/// for try await chunk in streamed.body { scanner.feed(chunk) }
/// ```
public struct StreamedResponse: Sendable {
  /// The head: status, headers and the URL that answered (after redirects).
  public var response: HTTPURLResponse
  /// The body, chunk by chunk as it arrives.
  public var body: ResponseBody

  /// Creates a streamed response.
  ///
  /// - Parameters:
  ///   - response: the head.
  ///   - body: the body.
  public init(response: HTTPURLResponse, body: ResponseBody) {
    self.response = response
    self.body = body
  }
}

/// How a stub or a replay hands its body out: chunks of `size` bytes with `delay` between them,
/// to test a parser on events or lines split across chunks.
public struct StreamChunking: Sendable, Hashable {
  /// The bytes of each chunk (the last may be shorter); at least 1.
  public var size: Int
  /// The wait before each chunk after the first.
  public var delay: Duration

  /// Creates a chunking.
  ///
  /// - Parameters:
  ///   - size: the bytes of each chunk; a value below 1 counts as 1.
  ///   - delay: the wait between chunks.
  public init(size: Int, delay: Duration = .zero) {
    self.size = max(1, size)
    self.delay = delay
  }

  /// The whole body as one chunk, at once: what a transport that does not stream answers.
  public static let whole = StreamChunking(size: .max)
}

/// The body of a `StreamedResponse`: the bytes as they arrive, as `Data` chunks (read them with
/// `withUnsafeBytes`, no copy). One pass: iterate it once.
///
/// Memory stays bounded however slow the consumer: `URLSessionTransport` keeps at most a few
/// megabytes in memory and the rest in a temporary file until it is read (FoundationNetworking
/// reads the socket as fast as the network allows, whatever the consumer does; the file holds
/// what arrives while the consumer lags, up to the whole body, and goes once it has caught up).
/// Leaving the loop
/// (`break`, a thrown error) or cancelling the consuming task closes the connection at once; so
/// does dropping a body that is never iterated. The request's timeout applies to each wait for
/// a chunk: a server that stalls longer ends the loop with `URLError(.timedOut)`, a slow steady
/// stream runs as long as it sends.
public struct ResponseBody: AsyncSequence, Sendable {
  /// A chunk of bytes.
  public typealias Element = Data
  /// Any transport error, `URLError(.timedOut)`, or `CancellationError`.
  public typealias Failure = any Error

  let owner: BodyOwner
  /// The longest wait for one chunk; nil for none.
  var timeout: Duration?

  init(source: any BodySource, timeout: Duration? = nil) {
    self.owner = BodyOwner(source)
    self.timeout = timeout
  }

  /// A body that is `data`, handed out in chunks as `chunking` says.
  ///
  /// - Parameters:
  ///   - data: the whole body.
  ///   - chunking: the chunk size and the delay between chunks; one chunk by default.
  public init(_ data: Data, chunking: StreamChunking = .whole) {
    self.init(source: ChunkedBody(data, chunking: chunking))
  }

  /// A body read from `chunks` (a transport of your own that streams).
  ///
  /// - Parameter chunks: the chunks, read one at a time as the consumer asks for them (with a
  ///   timeout, read ahead into a bounded buffer).
  public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
    self.init(source: SequenceBody(chunks))
  }

  /// The same body with a timeout on each wait for a chunk: the shorter of this one and the one
  /// it had.
  func timingOut(after seconds: TimeInterval) -> ResponseBody {
    guard seconds.isFinite else { return self }
    let limit = Timeout.duration(seconds)
    var body = self
    body.timeout = Swift.min(limit, timeout ?? limit)
    return body
  }

  /// Every chunk, concatenated (the whole body in memory).
  ///
  /// - Parameter limit: the most bytes kept; more throws `URLError(.dataLengthExceedsMaximum)`.
  /// - Returns: the body.
  /// - Throws: the body's errors.
  package func collect(upTo limit: Int = .max) async throws -> Data {
    var data = Data()
    for try await chunk in self {
      guard chunk.count <= limit - data.count else {
        throw URLError(.dataLengthExceedsMaximum)
      }
      data.append(chunk)
    }
    return data
  }

  /// The iterator; dropping it before the end closes the connection.
  public struct AsyncIterator: AsyncIteratorProtocol {
    let owner: BodyOwner
    let timeout: Duration?
    private let guardian: IterationGuard

    init(owner: BodyOwner, timeout: Duration?) {
      self.owner = owner
      self.timeout = timeout
      self.guardian = IterationGuard(owner.source)
    }

    /// The next chunk, or nil at the end.
    ///
    /// - Returns: the chunk.
    /// - Throws: the transport's error, `URLError(.timedOut)` when no chunk came within the
    ///   timeout, or `CancellationError`.
    public mutating func next() async throws -> Data? {
      try await owner.source.next(timeout: timeout)
    }
  }

  /// The iterator over the chunks.
  ///
  /// - Returns: the iterator.
  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(owner: owner, timeout: timeout)
  }
}

// MARK: - Sources

/// Where a `ResponseBody`'s chunks come from: one consumer, any thread.
package protocol BodySource: AnyObject, Sendable {
  /// The next chunk, nil at the end; `URLError(.timedOut)` when none came within `timeout`.
  func next(timeout: Duration?) async throws -> Data?
  /// Stops the body: closes the connection, drops what is buffered; `next` returns nil after.
  func cancel()
}

/// Owns a body's source: when the last copy of a body and its iterators go, the source is
/// cancelled (a body nobody reads closes its connection).
final class BodyOwner: Sendable {
  let source: any BodySource
  init(_ source: any BodySource) { self.source = source }
  deinit { source.cancel() }
}

/// Held by one iterator only: leaving the loop drops it, which cancels the source (a no-op after
/// the end).
final class IterationGuard: Sendable {
  let source: any BodySource
  init(_ source: any BodySource) { self.source = source }
  deinit { source.cancel() }
}

/// A body in memory, handed out in chunks with a delay between them (stubs, replays, transports
/// that do not stream).
///
/// `@unchecked Sendable`: `offset` is only touched under `lock`.
final class ChunkedBody: BodySource, @unchecked Sendable {
  private let data: Data
  private let chunking: StreamChunking
  private let lock = NSLock()
  private var offset = 0

  init(_ data: Data, chunking: StreamChunking) {
    self.data = data
    self.chunking = chunking
  }

  func next(timeout: Duration?) async throws -> Data? {
    let (start, first) = lock.withLock { (offset, offset == 0) }
    guard start < data.count else { return nil }
    if !first && chunking.delay > .zero {
      if let timeout, timeout < chunking.delay {
        try await Task.sleep(for: timeout)
        cancel()
        throw URLError(.timedOut)
      }
      try await Task.sleep(for: chunking.delay)
    }
    try Task.checkCancellation()
    let range: Range<Int>? = lock.withLock {
      guard offset < data.count else { return nil }
      let lower = offset
      let upper = data.count - lower > chunking.size ? lower + chunking.size : data.count
      offset = upper
      return lower..<upper
    }
    guard let range else { return nil }
    if range.count == data.count { return data }
    return data.subdata(
      in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))
  }

  func cancel() { lock.withLock { offset = data.count } }
}

/// A body read from an `AsyncSequence` of a transport of your own. Without a timeout it reads
/// the sequence as the consumer asks; with one, a task reads it into a `StreamBuffer` (bounded
/// memory) so that the wait can end.
///
/// `@unchecked Sendable`: `iterator` is touched only by the body's one consumer (a
/// `ResponseBody` is iterated once), the rest under `lock`.
final class SequenceBody: BodySource, @unchecked Sendable {
  private let lock = NSLock()
  private var iterator: (any AsyncIteratorProtocol<Data, any Error>)?
  private var makeIterator: (@Sendable () -> any AsyncIteratorProtocol<Data, any Error>)?
  private var pump: (buffer: StreamBuffer, task: Task<Void, Never>)?
  private var cancelled = false

  init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
    makeIterator = { Erased(base: chunks.makeAsyncIterator()) }
  }

  func next(timeout: Duration?) async throws -> Data? {
    if let timeout { return try await pumped().next(timeout: timeout) }
    if let buffer = lock.withLock({ pump?.buffer }) { return try await buffer.next(timeout: nil) }
    guard var iterator = takeIterator() else { return nil }
    defer { lock.withLock { if !cancelled { self.iterator = iterator } } }
    return try await iterator.next()
  }

  private func takeIterator() -> (any AsyncIteratorProtocol<Data, any Error>)? {
    lock.withLock {
      guard !cancelled else { return nil }
      if let iterator { return iterator }
      return makeIterator?()
    }
  }

  /// The buffer a task fills from the sequence, made on first use.
  private func pumped() -> StreamBuffer {
    lock.withLock {
      if let pump { return pump.buffer }
      let buffer = StreamBuffer()
      var iterator = self.iterator ?? makeIterator?()
      self.iterator = nil
      makeIterator = nil
      if cancelled { iterator = nil }
      let task = Task { [iterator] in
        guard var iterator else { return buffer.finish(error: nil) }
        do {
          while let chunk = try await iterator.next() { buffer.append(chunk) }
          buffer.finish(error: nil)
        } catch {
          buffer.finish(error: error)
        }
      }
      buffer.onCancel = { task.cancel() }
      pump = (buffer, task)
      return buffer
    }
  }

  func cancel() {
    let buffer = lock.withLock {
      cancelled = true
      iterator = nil
      return pump?.buffer
    }
    buffer?.cancel()
  }
}

/// An iterator of any `AsyncSequence` of `Data`, as one type.
private struct Erased<Base: AsyncIteratorProtocol>: AsyncIteratorProtocol
where Base.Element == Data {
  var base: Base
  mutating func next() async throws -> Data? { try await base.next() }
}

// MARK: - Recording

extension ResponseBody {
  /// The same body, its bytes kept as they pass: `record` gets the whole body once it has been
  /// read to the end, or what was read when the consumer stops early (a replay then hands out
  /// what the recorded consumer saw). A body that fails is not recorded. An error `record`
  /// throws at the end is the body's last; when the consumer stopped early there is nobody to
  /// throw it to.
  ///
  /// - Parameter record: told the bytes read, once.
  /// - Returns: the body.
  package func recording(_ record: @escaping @Sendable (Data) throws -> Void) -> ResponseBody {
    ResponseBody(source: RecordingBody(owner, timeout: timeout, record: record))
  }
}

/// A body that keeps the bytes of another as they are read (recording transports).
///
/// `@unchecked Sendable`: `kept` and `done` are only touched under `lock`.
final class RecordingBody: BodySource, @unchecked Sendable {
  private let base: BodyOwner
  private let timeout: Duration?
  private let record: @Sendable (Data) throws -> Void
  private let lock = NSLock()
  private var kept = Data()
  private var done = false
  private var started = false

  init(_ base: BodyOwner, timeout: Duration?, record: @escaping @Sendable (Data) throws -> Void) {
    self.base = base
    self.timeout = timeout
    self.record = record
  }

  func next(timeout: Duration?) async throws -> Data? {
    let limit = [timeout, self.timeout].compactMap { $0 }.min()
    lock.withLock { started = true }
    let chunk: Data?
    do {
      chunk = try await base.source.next(timeout: limit)
    } catch {
      try end(recording: false)
      throw error
    }
    guard let chunk else {
      try end(recording: true)
      return nil
    }
    lock.withLock { if !done { kept.append(chunk) } }
    return chunk
  }

  func cancel() {
    // The consumer has stopped: a failed write has nobody to go to.
    try? end(recording: true)
    base.source.cancel()
  }

  /// Hands the bytes kept to `record` (when `recording`), once.
  private func end(recording: Bool) throws {
    let kept: Data? = lock.withLock {
      guard !done else { return nil }
      done = true
      defer { self.kept = Data() }
      // A body dropped unread records nothing: no consumer saw it.
      return recording && started ? self.kept : nil
    }
    if let kept { try record(kept) }
  }
}
