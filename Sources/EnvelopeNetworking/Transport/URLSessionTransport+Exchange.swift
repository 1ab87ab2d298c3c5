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
  /// - Returns: the body (empty for a download) and the response.
  /// - Throws: `URLError` (`.httpTooManyRedirects` after `RedirectGuard.maximumRedirects`
  ///   hops), `CancellationError`, or a file error.
  func exchange(
    _ request: URLRequest, uploading file: URL? = nil, to destination: URL? = nil,
    progress: TaskExchange.Progress = .none
  ) async throws -> (Data, HTTPURLResponse) {
    var hasBody = file != nil || request.httpBody != nil
    var file = file
    let progress = Self.monotonic(progress)
    var request = request
    let first = request.url
    for _ in 0...RedirectGuard.maximumRedirects {
      let box = TaskBox()
      let (data, response) = try await run(
        request, uploading: file, to: destination, progress: progress, hasBody: hasBody, in: box)
      // The hop that got `response` is the one the session sent last: after a 303 (or a 301 or
      // 302 that made the POST a GET) it has no body, and nor has the rest of the chain.
      var hop = box.sent ?? request
      if hasBody && !RedirectGuard.sameMethod(hop, request) {
        hasBody = false
        file = nil
      }
      hop.httpBody = hasBody ? request.httpBody : nil
      guard
        let next = redirectGuard.resend(
          hop, after: response, hasBody: hasBody, origins: [first, request.url])
      else { return (data, response) }
      request = next
    }
    throw URLError(.httpTooManyRedirects)
  }

  /// One task, kept in `box`; cancelling the calling task cancels it.
  private func run(
    _ request: URLRequest, uploading file: URL?, to destination: URL?,
    progress: TaskExchange.Progress, hasBody: Bool, in box: TaskBox
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
            redirectGuard: redirectGuard, continuation: continuation)
          let task = makeTask(request, uploading: file, exchange: exchange)
          box.set(task)
          task.resume()
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
