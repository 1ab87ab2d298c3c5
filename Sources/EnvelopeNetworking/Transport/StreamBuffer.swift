import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The bytes of one streamed response between a producer that never waits (URLSession's
/// delegate callbacks) and one async consumer: the head, then the chunks, then the end.
///
/// Why a producer that never waits, and a file: FoundationNetworking (up to 6.3.1) gives no way
/// to stop reading the socket. It hands each chunk to the delegate queue with `addOperation`, so
/// a delegate that blocks only piles the chunks up in the queue (measured: 490 MB resident for a
/// 500 MB body read at 1 ms per 64 KB), and `suspend()` mid-body stops the process
/// (`_NativeProtocol.stopLoading` traps) or restarts the transfer. So the callback returns at
/// once, and memory is bounded here instead: up to `memoryLimit` bytes stay in memory (and up
/// to `spillBlock` bytes gathered for the file); beyond
/// that, chunks go to a temporary file (unlinked as soon as it is open, so nothing is left
/// behind) until the consumer has read it all. A slow consumer costs disk, not memory: the file
/// grows by what arrives while the consumer lags (up to the whole body: 495 MB for a 500 MB body
/// read at 1 ms per 64 KB on loopback) and goes once the consumer has caught up.
///
/// FoundationNetworking hands the body over in small pieces (16 KB each measured on loopback in
/// `--stream-calls`; smaller ones were seen before), so the file is written in blocks of
/// `spillBlock` bytes, not a write per piece (a write each made the delegate queue fall behind
/// the socket, and the pieces waiting in it grew the process by 200-350 MB for a 1 GB body),
/// and the consumer gets the pieces in memory joined up to `joinedChunk` bytes.
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
final class StreamBuffer: BodySource, @unchecked Sendable {
  /// The bytes kept in memory before chunks go to the file.
  static let defaultMemoryLimit = 4 << 20
  /// The most bytes read from the file into one chunk.
  static let fileChunk = 256 << 10
  /// The bytes gathered in memory before one write to the file.
  static let spillBlock = 512 << 10
  /// The most bytes of the pieces in memory joined into one chunk for the consumer.
  static let joinedChunk = 256 << 10
  /// The producer's queued callbacks (pieces not yet appended) above which the consumer steps
  /// aside for a moment: 256 pieces of 16 KB are 4 MB.
  static let backlogLimit = 256
  /// The longest the consumer steps aside per chunk.
  static let backlogPause = Duration.milliseconds(50)

  private let lock = NSLock()
  private let memoryLimit: Int
  private var head: HTTPURLResponse?
  private var chunks: [Data] = []
  private var first = 0
  private var inMemory = 0
  /// The most bytes held in memory at once, the spill's unwritten block included (what the
  /// memory bound promises; tests read it).
  private var peak = 0
  private var spill: Spill?
  /// The producer's callbacks queued behind the last one appended, as it last said.
  private var backlog = 0
  /// nil while the body runs; then success (the end) or the failure.
  private var end: Result<Void, any Error>?
  private var cancelled = false
  /// Bumped by every event the consumer may wait for.
  private var version: UInt64 = 0
  private var waiter: CheckedContinuation<Void, Never>?
  /// When the waiting consumer gives up.
  private var waitDeadline: ContinuousClock.Instant?
  /// The watchdog timer, its period, and whether it was started (see `watchdog(every:)`).
  private var watch: DispatchSourceTimer?
  private var tick: Duration?
  private var watchStarted = false
  /// Closes the connection; called once, on `cancel()` or a timeout.
  var onCancel: (@Sendable () -> Void)? {
    get { lock.withLock { cancelHandler } }
    set { lock.withLock { cancelHandler = newValue } }
  }
  private var cancelHandler: (@Sendable () -> Void)?

  init(memoryLimit: Int = StreamBuffer.defaultMemoryLimit) {
    self.memoryLimit = memoryLimit
  }

  // MARK: - Producer

  /// The most bytes held in memory at once so far.
  var peakInMemory: Int { lock.withLock { peak } }

  /// The writes to the temporary file so far (tests read it).
  var fileWrites: Int { lock.withLock { spillWrites } }
  private var spillWrites = 0

  /// The 1 ms steps the consumer has stepped aside for the producer so far (tests read it).
  var stepsAside: Int { lock.withLock { steppedAside } }
  private var steppedAside = 0

  /// Sets the head (once) and wakes the consumer.
  func deliver(head response: HTTPURLResponse) {
    signal {
      guard head == nil else { return false }; head = response; return true
    }
  }

  /// Drops the body buffered so far: a new response (after a credential) starts it again.
  /// Only before the head is handed out.
  func restart() {
    lock.withLock {
      guard head == nil else { return }
      chunks.removeAll()
      first = 0
      inMemory = 0
      spill = nil
    }
  }

  /// Adds a chunk: in memory up to the limit, else to the file. A chunk the file cannot take
  /// (a full disk) ends the body with that error, after what is buffered, and closes the
  /// connection.
  ///
  /// - Parameters:
  ///   - data: the chunk.
  ///   - backlog: the pieces still queued behind this one (the delegate queue's operations),
  ///     when the producer knows; the consumer steps aside while there are many.
  func append(_ data: Data, backlog: Int = 0) {
    guard !data.isEmpty else { return }
    var failed = false
    signal {
      self.backlog = backlog
      guard !cancelled, end == nil else { return false }
      if spill == nil, inMemory + data.count <= memoryLimit {
        chunks.append(data)
        inMemory += data.count
        peak = max(peak, inMemory)
        return true
      }
      do {
        let spill = try self.spill ?? Spill()
        self.spill = spill
        if try spill.append(data, block: Self.spillBlock) { spillWrites += 1 }
        peak = max(peak, inMemory + spill.pending.count)
      } catch {
        end = .failure(error)
        failed = true
      }
      return true
    }
    if failed { lock.withLock { cancelHandler }?() }
  }

  /// Ends the body: after the chunks buffered, the consumer gets nil (or `error`).
  func finish(error: (any Error)?) {
    signal {
      guard end == nil else { return false }
      end = error.map { .failure($0) } ?? .success(())
      return true
    }
  }

  // MARK: - Consumer

  /// The head, once it has come.
  ///
  /// - Throws: the transfer's error when it ended before a head, `URLError(.timedOut)` after
  ///   `timeout`, `CancellationError`.
  func head(timeout: Duration?) async throws -> HTTPURLResponse {
    try await wait(timeout: timeout) { () throws -> HTTPURLResponse? in
      if let head { return head }
      if case .failure(let error) = end { throw error }
      if end != nil { throw URLError(.badServerResponse) }
      return nil
    }
  }

  func next(timeout: Duration?) async throws -> Data? {
    try await yieldToProducer()
    let chunk: Data? = try await wait(timeout: timeout) { () throws -> Data?? in
      if cancelled { return .some(nil) }
      if first < chunks.count {
        var chunk = chunks[first]
        chunks[first] = Data()
        first += 1
        // Small pieces go out joined: a chunk costs the consumer a pass through its loop.
        while first < chunks.count, chunk.count + chunks[first].count <= Self.joinedChunk {
          chunk.append(chunks[first])
          chunks[first] = Data()
          first += 1
        }
        inMemory -= chunk.count
        if first == chunks.count {
          chunks.removeAll(keepingCapacity: true)
          first = 0
        }
        return chunk
      }
      if let spill {
        if spill.unread > 0 { return try spill.read(upTo: Self.fileChunk) }
        // The file is read: the block not yet written is the rest, and the body goes back to
        // memory.
        self.spill = nil
        if !spill.pending.isEmpty { return spill.pending }
      }
      switch end {
      case .none: return nil
      case .success: return .some(nil)
      case .failure(let error): throw error
      }
    }
    return chunk
  }

  func cancel() {
    let (handler, waiter): ((@Sendable () -> Void)?, CheckedContinuation<Void, Never>?) =
      lock.withLock {
        guard !cancelled else { return (nil, nil) }
        cancelled = true
        chunks.removeAll()
        first = 0
        inMemory = 0
        spill = nil
        if end == nil { end = .failure(CancellationError()) }
        version &+= 1
        defer { self.waiter = nil; cancelHandler = nil }
        return (cancelHandler, self.waiter)
      }
    handler?()
    waiter?.resume()
  }

  /// Steps aside (up to `backlogPause`) while the producer's queue is far behind.
  ///
  /// Why: FoundationNetworking reads the socket on one thread and queues each piece (16 KB on
  /// loopback) as an operation for the delegate queue's thread. On a busy machine with few cores
  /// the consumer (decoding) and the socket thread take the cores, the delegate thread falls
  /// behind, and the queued pieces are the process's memory (measured on 2 loaded cores: 5,479
  /// queued, 108 MB of growth for a 1 GB body). A consumer that sleeps while the queue is long
  /// leaves a core to the delegate thread; it has the bytes to decode anyway, so the body takes
  /// no longer.
  /// Once the body has ended (every piece appended) nothing is queued, whatever the producer
  /// last said: a stale count never slows the rest of the stream.
  private func yieldToProducer() async throws {
    var waited = Duration.zero
    let step = Duration.milliseconds(1)
    while waited < Self.backlogPause,
      lock.withLock({
        let behind = !cancelled && end == nil && backlog > Self.backlogLimit
        if behind { steppedAside += 1 }
        return behind
      })
    {
      try await Task.sleep(for: step)
      waited += step
    }
  }

  // MARK: - Waiting

  /// Runs `change` under the lock; when it changed something, wakes the consumer.
  private func signal(_ change: () -> Bool) {
    let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
      guard change() else { return nil }
      version &+= 1
      defer { self.waiter = nil }
      return self.waiter
    }
    waiter?.resume()
  }

  /// `ready()`'s value as soon as it has one (it runs under the lock), waiting for the producer
  /// in between; `URLError(.timedOut)` (and the connection closed) when a wait passes `timeout`.
  private func wait<T>(timeout: Duration?, _ ready: () throws -> T?) async throws -> T {
    let deadline = timeout.map { ContinuousClock.now + $0 }
    while true {
      let (value, seen) = try lock.withLock { (try ready(), version) }
      if let value { return value }
      if let deadline, ContinuousClock.now >= deadline {
        cancel()
        throw URLError(.timedOut)
      }
      try await waitForChange(after: seen, until: deadline)
    }
  }

  /// Returns when something happened after `seen`, soon after `deadline` (the watchdog), or
  /// when the task is cancelled (then throws).
  private func waitForChange(after seen: UInt64, until deadline: ContinuousClock.Instant?)
    async throws
  {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let (now, watch): (Bool, Duration?) = lock.withLock {
          guard version == seen, !cancelled else { return (true, nil) }
          waiter = continuation
          waitDeadline = deadline
          return (false, deadline.map { ContinuousClock.now.duration(to: $0) })
        }
        if now { continuation.resume() }
        if let watch { watchdog(every: watch) }
      }
    } onCancel: {
      wake()
    }
    try Task.checkCancellation()
  }

  /// Resumes the waiting consumer.
  private func wake() {
    let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
      defer { self.waiter = nil }
      return self.waiter
    }
    waiter?.resume()
  }

  // MARK: - Watchdog

  /// One timer per body, not one per wait (a fast stream waits for most of its chunks, and a
  /// timer each cost a fifth of the throughput and a work item held until its deadline): it
  /// ticks every quarter of the shortest wait asked for, and wakes a consumer whose deadline
  /// has passed. A wait times out between its limit and a quarter more.
  private func watchdog(every left: Duration) {
    let period = max(.milliseconds(10), left / 4)
    let (timer, start): (DispatchSourceTimer?, Bool) = lock.withLock {
      if let tick, tick <= period { return (nil, false) }
      if cancelled || end != nil { return (nil, false) }
      tick = period
      let timer = watch ?? DispatchSource.makeTimerSource(queue: .global())
      watch = timer
      defer { watchStarted = true }
      return (timer, !watchStarted)
    }
    guard let timer else { return }
    let nanoseconds = Int(period / .nanoseconds(1))
    timer.schedule(
      deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
    if start {
      timer.setEventHandler { [weak self] in self?.check() }
      timer.resume()
    }
  }

  /// The watchdog's tick: wakes a consumer whose deadline has passed.
  private func check() {
    let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
      if self.waiter == nil, cancelled || end != nil {
        watch?.cancel()  // nothing more to wait for
        return nil
      }
      guard let waitDeadline, ContinuousClock.now >= waitDeadline else { return nil }
      defer { self.waiter = nil }
      return self.waiter
    }
    waiter?.resume()
  }

  deinit {
    watch?.cancel()
  }
}

/// The part of a body the consumer has not read yet, on disk: a temporary file removed as soon
/// as it is open (its handles keep it until they close), written at the end, read from the
/// start.
private final class Spill {
  private let writer: FileHandle
  private let reader: FileHandle
  /// The bytes written to the file and not read yet.
  private(set) var unread = 0
  /// The bytes after the file's, not written yet.
  private(set) var pending = Data()

  init() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("envelopekit-stream-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown)
    }
    defer { try? FileManager.default.removeItem(at: url) }
    writer = try FileHandle(forWritingTo: url)
    reader = try FileHandle(forReadingFrom: url)
  }

  deinit {
    try? writer.close()
    try? reader.close()
  }

  /// Adds `data` after the rest; writes the block to the file once it holds `block` bytes.
  /// Returns whether it wrote.
  func append(_ data: Data, block: Int) throws -> Bool {
    if pending.isEmpty, data.count >= block {
      try write(data)
      return true
    }
    if pending.isEmpty { pending.reserveCapacity(block + data.count) }
    pending.append(data)
    guard pending.count >= block else { return false }
    try write(pending)
    pending.removeAll(keepingCapacity: true)
    return true
  }

  private func write(_ data: Data) throws {
    try writer.write(contentsOf: data)
    unread += data.count
  }

  func read(upTo count: Int) throws -> Data {
    let data = try reader.read(upToCount: min(count, unread)) ?? Data()
    guard !data.isEmpty else { throw CocoaError(.fileReadUnknown) }
    unread -= data.count
    return data
  }
}
