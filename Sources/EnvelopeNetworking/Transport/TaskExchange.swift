import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One task of `URLSessionTransport`: keeps the body (in memory, written to a part file as it
/// arrives, or handed to a `StreamBuffer` as it arrives), reports the progress of one direction,
/// answers redirects through the `RedirectGuard`, and resumes the transport once (a stream: hands
/// out the head once, then ends the buffer once).
///
/// On Apple platforms it is the task's delegate and passes each callback on to the session's
/// delegate; on Linux, where a task's own delegate is not told about data or completion, the
/// session's `SessionCompanion` calls it and passes the callbacks on.
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
final class TaskExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  /// Which bytes the progress counts.
  enum Progress: Sendable {
    /// None (a call).
    case none
    /// The request body sent (an upload).
    case sent(TransferProgress)
    /// The response body received (a download).
    case received(TransferProgress)
  }

  typealias Continuation = CheckedContinuation<(Data, HTTPURLResponse), any Error>

  /// What the task moved, for `TransferMetrics`.
  struct Counts: Sendable {
    /// Request body bytes `URLSession` reported sent (0 when it reported none).
    var sent: Int64 = 0
    /// Response body bytes delivered (decoded), of every response of the task.
    var received: Int64 = 0
    /// Redirects `URLSession` followed.
    var followed = 0
    /// Header and body bytes sent and received as `URLSessionTaskMetrics` reported them (Apple
    /// platforms); nil when none arrived.
    var wire: (sent: Int64, received: Int64)?
  }

  private let lock = NSLock()
  private let redirectGuard: RedirectGuard
  private let hasBody: Bool
  private let progress: Progress
  private let destination: URL?
  private let part: URL?
  private var continuation: Continuation?
  /// A streamed exchange's buffer: the head and the chunks go there as they arrive.
  private let stream: StreamBuffer?
  private var body = Data()
  private var handle: FileHandle?
  private var written: Int64 = 0
  private var expected: Int64?
  private var failure: (any Error)?
  /// This task's redirect was refused (the transport sends the next hop): its body is no file.
  private var refused = false
  /// The task was cancelled through `cancel(_:)` or for idling: no redirect of it is answered
  /// any more.
  private var cancelled = false
  /// The longest the task may go without a callback (see `start(_:)`); nil for no limit.
  private let idleLimit: Duration?
  /// When the last callback came (or the task started).
  private var lastActivity = ContinuousClock.now
  /// The task was cancelled for passing `idleLimit`: it ends with `URLError(.timedOut)`.
  private var timedOut = false
  /// The exchange has resumed the transport (or ended the stream): the idle watch stops.
  private var ended = false
  private var counted = Counts()
  /// The pieces of a streamed body delivered, and the delegate queue's length when last asked
  /// (touched only by the delegate queue, one callback at a time).
  private var pieces = 0
  private var backlog = 0

  /// What the task moved so far.
  var counts: Counts { lock.withLock { counted } }

  /// - Parameters:
  ///   - hasBody: whether the request has a body the transport can send again on a 307 or 308.
  ///   - destination: where a download's body goes; nil keeps the body in memory.
  ///   - progress: what to report.
  ///   - redirectGuard: the redirect rule.
  ///   - idleLimit: the longest the task may go without a callback; nil for none.
  ///   - continuation: resumed once, with the body and response or the error.
  init(
    hasBody: Bool, destination: URL?, progress: Progress, redirectGuard: RedirectGuard,
    idleLimit: Duration?, continuation: Continuation
  ) {
    self.stream = nil
    self.idleLimit = idleLimit
    self.hasBody = hasBody
    self.destination = destination
    self.part = destination.map { $0.appendingPathExtension("part-\(UUID().uuidString)") }
    self.progress = progress
    self.redirectGuard = redirectGuard
    self.continuation = continuation
  }

  /// A streamed exchange: the head, the chunks and the end go to `stream`.
  ///
  /// - Parameters:
  ///   - hasBody: whether the request has a body the transport can send again on a 307 or 308.
  ///   - redirectGuard: the redirect rule.
  ///   - idleLimit: the longest the task may go without a callback; nil for none.
  ///   - stream: where the head and body go.
  init(hasBody: Bool, redirectGuard: RedirectGuard, idleLimit: Duration?, stream: StreamBuffer) {
    self.hasBody = hasBody
    self.idleLimit = idleLimit
    self.destination = nil
    self.part = nil
    self.progress = .none
    self.redirectGuard = redirectGuard
    self.continuation = nil
    self.stream = stream
  }

  // MARK: - Delegate callbacks

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    let next = redirectGuard.proposed(request, after: response, of: task, hasBody: hasBody)
    // Answered under the lock `cancel(_:)` takes, and never after a cancel (see there).
    lock.withLock {
      guard !cancelled else { return }
      lastActivity = .now
      if next == nil { refused = true } else { counted.followed += 1 }
      completionHandler(next)
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    lock.withLock {
      counted.sent += max(0, bytesSent)
      lastActivity = .now
    }
    if case .sent(let report) = progress {
      report(totalBytesSent, totalBytesExpectedToSend >= 0 ? totalBytesExpectedToSend : nil)
    }
    #if !canImport(FoundationNetworking)
      (session.delegate as? URLSessionTaskDelegate)?.urlSession?(
        session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
        totalBytesExpectedToSend: totalBytesExpectedToSend)
    #endif
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    lock.withLock {
      // A new response (after a credential a delegate gave) starts the body again.
      lastActivity = .now
      body.removeAll()
      written = 0
      if let handle { try? handle.truncate(atOffset: 0) }
      expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
    }
    if let stream, let http = response as? HTTPURLResponse {
      stream.restart()
      // A 401 with a challenge may still be answered with a credential (a new response then
      // follows), and a refused redirect is not the answer yet: their heads wait for the end.
      let challenged =
        http.statusCode == 401 && http.value(forHTTPHeaderField: "WWW-Authenticate") != nil
      if !challenged && !lock.withLock({ refused }) { stream.deliver(head: http) }
    }
    completionHandler(.allow)
    #if !canImport(FoundationNetworking)
      (session.delegate as? URLSessionDataDelegate)?.urlSession?(
        session, dataTask: dataTask, didReceive: response, completionHandler: { _ in })
    #endif
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    if let stream {
      // Outside the lock: a chunk the buffer cannot keep cancels the task.
      if lock.withLock({ failure == nil && !refused }) {
        // `operationCount` walks the queue under the lock the socket thread adds to: asked
        // once per 64 pieces (1 MB), not per piece. Between two asks each piece delivered is
        // one fewer queued, so a count the queue has since worked off is not repeated.
        pieces &+= 1
        if pieces % 64 == 0 {
          backlog = session.delegateQueue.operationCount
        } else if backlog > 0 {
          backlog -= 1
        }
        stream.append(data, backlog: backlog)
      }
    }
    let report: (Int64, Int64?)? = lock.withLock {
      counted.received += Int64(data.count)
      lastActivity = .now
      guard stream == nil, failure == nil, !refused else { return nil }
      guard let part else {
        body.append(data)
        return nil
      }
      do {
        if handle == nil {
          guard FileManager.default.createFile(atPath: part.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
          }
          handle = try FileHandle(forWritingTo: part)
        }
        try handle?.write(contentsOf: data)
        written += Int64(data.count)
        return (written, expected)
      } catch {
        failure = error
        cancelled = true
        dataTask.cancel()
        return nil
      }
    }
    if let report, case .received(let progress) = progress { progress(report.0, report.1) }
    #if !canImport(FoundationNetworking)
      (session.delegate as? URLSessionDataDelegate)?.urlSession?(
        session, dataTask: dataTask, didReceive: data)
    #endif
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    finish(task.response as? HTTPURLResponse, error: error)
    #if !canImport(FoundationNetworking)
      (session.delegate as? URLSessionTaskDelegate)?.urlSession?(
        session, task: task, didCompleteWithError: error)
    #endif
  }

  #if !canImport(FoundationNetworking)
    // FoundationNetworking never calls this (up to Swift 6.3.1): Linux counts are the bodies.
    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      didFinishCollecting metrics: URLSessionTaskMetrics
    ) {
      var sent: Int64 = 0
      var received: Int64 = 0
      for transaction in metrics.transactionMetrics {
        sent += transaction.countOfRequestHeaderBytesSent + transaction.countOfRequestBodyBytesSent
        received +=
          transaction.countOfResponseHeaderBytesReceived
          + transaction.countOfResponseBodyBytesReceived
      }
      lock.withLock { counted.wire = (sent, received) }
      (session.delegate as? URLSessionTaskDelegate)?.urlSession?(
        session, task: task, didFinishCollecting: metrics)
    }
  #endif

  // MARK: - The idle limit

  /// Starts `task`, this exchange's task, and with an `idleLimit` the watch over it: a task
  /// that goes `idleLimit` without a callback is cancelled (through the same lock as
  /// `cancel(_:)`, so no redirect answer follows) and ends with `URLError(.timedOut)`.
  ///
  /// On Linux this replaces FoundationNetworking's own request timer, which the companion
  /// session sets to a week (`SessionCompanion.task(for:uploading:exchange:)`): that timer
  /// (up to Swift 6.3.1) ends a task whose redirect question waits on the delegate queue, and
  /// the answer that follows stops the process.
  func start(_ task: URLSessionTask) {
    task.resume()
    if let idleLimit { watch(task, after: idleLimit) }
  }

  /// Looks at `task` again after `delay`, on a queue of its own (never the delegate queue,
  /// whose lateness is what the limit must not wait for).
  private func watch(_ task: URLSessionTask, after delay: Duration) {
    DispatchQueue.global().asyncAfter(deadline: .now() + delay.seconds) {
      [weak self, weak task] in
      guard let self, let task else { return }
      self.checkIdle(task)
    }
  }

  /// Cancels `task` when it has been idle for `idleLimit`; else watches again for the rest.
  private func checkIdle(_ task: URLSessionTask) {
    guard let idleLimit else { return }
    let rest: Duration? = lock.withLock {
      guard !ended, !cancelled else { return nil }
      let idle = ContinuousClock.now - lastActivity
      guard idle >= idleLimit else { return idleLimit - idle }
      timedOut = true
      cancelled = true
      task.cancel()
      return nil
    }
    if let rest { watch(task, after: rest) }
  }

  // MARK: - The end

  /// Cancels `task`, this exchange's task; a redirect of it asked about and not yet answered is
  /// never answered.
  ///
  /// FoundationNetworking (up to Swift 6.3.1) stops the process when a redirect's answer reaches
  /// a task cancelled in between: the cancel and the answer each queue work on the task's own
  /// queue, and the answer, coming second, finds the task no longer waiting for it. Both happen
  /// under `lock` here, so the cancel comes wholly before or after the answer, and an answer that
  /// would follow it is dropped (the cancelled task ends with `.cancelled` all the same).
  /// `task.cancel()` waits for the task's queue, which never waits for this lock.
  func cancel(_ task: URLSessionTask) {
    lock.withLock {
      cancelled = true
      task.cancel()
    }
  }

  /// Ends the exchange with `response` and the body so far, before the task ends: a 401 whose
  /// challenge nobody answers with a credential (FoundationNetworking would not end the task).
  func finish(early response: HTTPURLResponse) {
    finish(response, error: nil)
  }

  /// Resumes the transport once: the body and response, or the error; a download's part file
  /// becomes the destination, or goes.
  private func finish(_ response: HTTPURLResponse?, error: (any Error)?) {
    let (refused, timedOut): (Bool, Bool) = lock.withLock {
      ended = true
      return (self.refused, self.timedOut)
    }
    let error = timedOut ? URLError(.timedOut) : error
    if let stream {
      // A refused redirect's body is not the answer's: the head alone, the transport decides.
      if refused { stream.restart() }
      if let response, error == nil { stream.deliver(head: response) }
      stream.finish(error: error.map { ($0 as? URLError) ?? URLError(.unknown) })
      return
    }
    let (continuation, outcome): (Continuation?, Result<(Data, HTTPURLResponse), any Error>) =
      lock.withLock {
        guard let continuation = self.continuation else {
          return (nil, .failure(URLError(.unknown)))
        }
        self.continuation = nil
        try? handle?.close()
        handle = nil
        let outcome = Result { () throws -> (Data, HTTPURLResponse) in
          if let failure { throw failure }
          if let error { throw (error as? URLError) ?? URLError(.unknown) }
          guard let response else { throw URLError(.badServerResponse) }
          try keepFile()
          return (body, response)
        }
        if case .failure = outcome, let part { try? FileManager.default.removeItem(at: part) }
        return (continuation, outcome)
      }
    continuation?.resume(with: outcome)
  }

  /// Moves the part file into place (an empty one for an empty body); a refused redirect's
  /// body is no file.
  private func keepFile() throws {
    guard let part, let destination else { return }
    guard !refused else {
      try? FileManager.default.removeItem(at: part)
      return
    }
    if !FileManager.default.fileExists(atPath: part.path),
      !FileManager.default.createFile(atPath: part.path, contents: nil)
    {
      throw CocoaError(.fileWriteUnknown)
    }
    if FileManager.default.fileExists(atPath: destination.path) {
      try FileManager.default.removeItem(at: destination)
    }
    try FileManager.default.moveItem(at: part, to: destination)
  }
}
