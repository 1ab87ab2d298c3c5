import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends a request and returns the body and the HTTP response.
///
/// Stubs, recordings and replays are transports too. On Linux, a file that conforms a type of
/// its own needs `import FoundationNetworking` (where `URLRequest` and `HTTPURLResponse` live):
///
/// ```swift
/// import Foundation
/// #if canImport(FoundationNetworking)
///   import FoundationNetworking
/// #endif
/// ```
public protocol HTTPTransport: Sendable {
  /// Sends `request`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and the response.
  /// - Throws: `URLError`, or `CancellationError` when the calling task is cancelled.
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
  /// Sends `request` and writes the body to `file`, reporting progress. The default sends and
  /// writes; `URLSessionTransport` streams.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: where the body goes.
  ///   - progress: told the bytes written and the total, if known.
  /// - Returns: the response.
  /// - Throws: `URLError`, `CancellationError`, or a file error.
  func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  /// Sends `request` with `file` as its body, reporting progress. The default reads the file;
  /// `URLSessionTransport` streams it.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: the body.
  ///   - progress: told the bytes sent and the total, if known.
  /// - Returns: the response body and response.
  /// - Throws: `URLError`, `CancellationError`, or a file error.
  func upload(_ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress)
    async throws -> (Data, HTTPURLResponse)
  /// Sends `request` and returns as soon as the head (status, headers, final URL) has come,
  /// with the body still arriving. The default sends and answers the whole body as one chunk;
  /// `URLSessionTransport` streams it.
  ///
  /// - Parameter request: the request.
  /// - Returns: the head and the body.
  /// - Throws: `URLError`, or `CancellationError` when the calling task is cancelled.
  func stream(_ request: URLRequest) async throws -> StreamedResponse
}

extension HTTPTransport {
  /// Sends the request and answers the whole body as one chunk: the default for transports
  /// that cannot stream.
  ///
  /// - Parameter request: the request.
  /// - Returns: the head and the body (one chunk).
  /// - Throws: the transport's errors.
  public func stream(_ request: URLRequest) async throws -> StreamedResponse {
    let (data, response) = try await send(request)
    return StreamedResponse(response: response, body: ResponseBody(data))
  }
}

/// The transport over `URLSession`, on Linux (FoundationNetworking) and Apple platforms.
///
/// By default it uses a session of its own that shares no state between users: no cookie jar
/// (a `Set-Cookie` is never stored, and a `Cookie` header you set is sent as it is) and no
/// `URLCache` (the provider's partitioned `ResponseCache` is the cache). An app that wants a
/// cookie jar passes its own session, e.g. `URLSessionTransport(session: .shared)`.
///
/// Every task goes through the session you give, calls and transfers alike, and that
/// session's delegate is told about them: server trust, authentication challenges, metrics, the
/// response, data, bytes sent and completion. On Apple platforms each task gets a task delegate
/// of the transport's, which passes these on to the session's delegate (challenges reach it
/// directly). On Linux, where FoundationNetworking tells a task's own
/// delegate only about redirects and challenges, the tasks run on a companion session with the
/// same configuration (the same cookie, credential and cache storages), whose delegate passes
/// each callback on to your session's delegate, on your session's delegate queue, with your
/// session as the `session` argument (the task is the companion's). FoundationNetworking sends
/// no metrics and no server-trust challenge on Linux. Once you invalidate your session
/// (`invalidateAndCancel()` or `finishTasksAndInvalidate()`), a request through the transport
/// fails with `URLError(.cancelled)` and sends nothing; on Linux a task that was already running
/// then finishes (it runs on the companion, which your `invalidateAndCancel()` does not reach).
///
/// Redirects are followed, but credentials never go to another origin: on a redirect to another
/// scheme, host or port, `Authorization`, `Proxy-Authorization`, `Cookie`, `X-Api-Key` and the
/// `sensitiveHeaders` you name are dropped. A 307 or 308 keeps the method and body (the
/// transport sends that hop itself, at most 20 redirects; a body given as `httpBodyStream` is
/// read into memory before the first hop, on a thread of its own (a task may feed the stream),
/// so that it is sent again too: a large body belongs in `upload(_:fromFile:progress:)`), a 303
/// becomes a GET without a body for the rest of the chain, and a body is never sent again from
/// https to http (the 307 or 308 is then the answer). When your session's configuration adds a
/// credential header to every request (`httpAdditionalHeaders` with `Authorization`, `Cookie`,
/// `X-Api-Key` or a `sensitiveHeaders` name), a redirect to another origin is not followed:
/// URLSession would add the header to that hop too, so the 3xx comes back as the response. The
/// transport decides redirects: your session delegate's `willPerformHTTPRedirection` is not
/// asked.
///
/// A 401 comes back as the response it is, with its body, whatever its `WWW-Authenticate`
/// (Basic, Digest, another scheme): your session's delegate may answer the challenge with a
/// credential (the request is then sent again with it); any other answer, or no delegate, ends
/// the call with the 401 at once.
///
/// On Linux the transport keeps a task's idle limit itself (FoundationNetworking's own timer,
/// which could stop the process when it fired during a redirect, is set to a week): a task that
/// goes the request's `timeoutInterval` without a callback (the session's
/// `timeoutIntervalForRequest` for a request left at `URLRequest`'s default of 60 s) ends with
/// `URLError(.timedOut)`.
///
/// A transport of your own conforms to `HTTPTransport`; on Linux its file needs
/// `import FoundationNetworking` for `URLRequest` and `HTTPURLResponse`.
public struct URLSessionTransport: HTTPTransport {
  /// The session every task goes through, with its delegate told (on Linux through a companion
  /// session with its configuration: see above).
  public let session: URLSession
  /// Header names (lower-case) dropped on a cross-origin redirect besides the default ones.
  public let sensitiveHeaders: Set<String>
  let redirectGuard: RedirectGuard

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - session: the session; by default `URLSessionTransport.isolatedSession`, with no cookie
  ///     storage and no `URLCache`.
  ///   - sensitiveHeaders: more header names that carry credentials, e.g. `X-Session`.
  public init(session: URLSession = isolatedSession, sensitiveHeaders: Set<String> = []) {
    self.session = session
    self.sensitiveHeaders = Set(sensitiveHeaders.map { $0.lowercased() })
    self.redirectGuard = RedirectGuard(
      sensitiveHeaders: sensitiveHeaders,
      sessionHeaders: session.configuration.httpAdditionalHeaders)
  }

  /// The default session: ephemeral, with no cookie storage (cookies are neither stored nor
  /// added, so a `Cookie` header you set is sent as it is) and no `URLCache`. One for the
  /// process, shared by every default transport.
  public static let isolatedSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    return URLSession(configuration: configuration)
  }()

  /// Sends `request`; cancelling the calling task cancels the data task.
  ///
  /// A 401 comes back as it is, with its body, whatever its `WWW-Authenticate` says, unless
  /// the session's delegate answers the challenge with a credential. A 307 or 308 keeps the
  /// method and body.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and the response.
  /// - Throws: `URLError`, or `CancellationError` when cancelled.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    try await exchange(request)
  }

  /// Sends `request` and returns once the head has come, the body streaming as it arrives;
  /// redirects, the credential rule and a 401 as for `send(_:)`.
  ///
  /// The body keeps at most a few megabytes in memory, the rest in a temporary file until it is
  /// read, so memory stays flat however large the body and however slow the consumer (on Linux,
  /// FoundationNetworking reads the socket as fast as the network allows: the file absorbs what
  /// the consumer has not read yet). Leaving the loop over the body, or cancelling its task,
  /// cancels the data task, which closes the connection. `request.timeoutInterval` bounds the
  /// wait for the head and each wait for a chunk (`URLError(.timedOut)`), not the whole
  /// transfer.
  ///
  /// - Parameter request: the request.
  /// - Returns: the head and the body.
  /// - Throws: `URLError`, or `CancellationError` when cancelled.
  public func stream(_ request: URLRequest) async throws -> StreamedResponse {
    try await streamedExchange(request)
  }
}

/// The last transport of a provider's line before yours: fails a request with
/// `URLError(.timedOut)` after the target's `timeout` (FoundationNetworking does not enforce
/// `URLRequest.timeoutInterval` for a server that accepts and then stalls). An infinite timeout
/// sets no timer.
struct TimedTransport: LineTransport {
  let base: any HTTPTransport
  /// Transfers have no provider timeout.
  var transfers: any HTTPTransport { base }

  /// Your transport's answer, with `ProviderCall.current` set for it (the provider sets it for
  /// the whole attempt only when hooks or the cache scope run), and the `TransferMetrics` a
  /// `URLSessionTransport` measured for it.
  nonisolated(nonsending) func response(to request: URLRequest, in exchange: Exchange?)
    async throws -> Response
  {
    let seconds = exchange?.target.timeout ?? request.timeoutInterval
    let recorder = Locked<TransferMetrics?>(nil)
    let (data, http) = try await Exchange.$current.withValue(exchange) {
      try await TransferMetrics.$recorder.withValue(recorder) {
        try await send(request, within: seconds)
      }
    }
    var response = Response(
      statusCode: http.statusCode, headers: http.stringHeaders, data: data, request: request)
    response.metrics = recorder.withLock { $0 }
    return response
  }

  /// Your transport's streamed answer: `URLError(.timedOut)` when the head, or any chunk after
  /// it, takes longer than the target's `timeout`; a slow steady stream runs as long as it sends.
  nonisolated(nonsending) func stream(_ request: URLRequest, in exchange: Exchange?)
    async throws -> StreamedResponse
  {
    let seconds = exchange?.target.timeout ?? request.timeoutInterval
    return try await Exchange.$current.withValue(exchange) {
      guard seconds.isFinite else { return try await base.stream(request) }
      let base = base
      let streamed = try await Self.within(seconds) { try await base.stream(request) }
      return StreamedResponse(
        response: streamed.response, body: streamed.body.timingOut(after: seconds))
    }
  }

  /// Your transport's answer, or `URLError(.timedOut)` after `seconds` (none when infinite).
  private func send(_ request: URLRequest, within seconds: TimeInterval) async throws
    -> (Data, HTTPURLResponse)
  {
    guard seconds.isFinite else { return try await base.send(request) }
    let base = base
    return try await Self.within(seconds) { try await base.send(request) }
  }

  /// `work`'s answer, or `URLError(.timedOut)` after `seconds` (finite), whichever comes first.
  private static func within<Answer: Sendable>(
    _ seconds: TimeInterval, _ work: @escaping @Sendable () async throws -> Answer
  ) async throws -> Answer {
    try await withThrowingTaskGroup(of: Answer.self) { group in
      group.addTask { try await work() }
      group.addTask {
        try await Task.sleep(for: Timeout.duration(seconds))
        throw URLError(.timedOut)
      }
      defer { group.cancelAll() }
      guard let first = try await group.next() else { throw URLError(.unknown) }
      return first
    }
  }

}

/// The one rule for a target's `timeout`: a positive number of seconds, or `.infinity` for none.
enum Timeout {
  /// The longest timeout handed to `URLRequest` (URLSession turns it into whole milliseconds):
  /// a week, which is "none" for any request.
  static let longest: TimeInterval = 7 * 24 * 3600

  /// The value for `URLRequest.timeoutInterval`.
  ///
  /// - Throws: `ProviderConfigurationError` for NaN, zero or a negative value.
  static func requestInterval(_ seconds: TimeInterval) throws -> TimeInterval {
    guard seconds > 0 else {  // false for NaN too
      throw ProviderConfigurationError(
        "timeout must be a positive number of seconds or .infinity, not \(seconds)")
    }
    return min(seconds, longest)
  }

  /// `seconds` as a duration, at most `longest`.
  static func duration(_ seconds: TimeInterval) -> Duration {
    .milliseconds(Int64(min(max(seconds, 0), longest) * 1000))
  }
}

/// A provider setting that cannot work, e.g. a NaN or negative `timeout`: thrown before anything
/// is sent, as `ProviderError.underlying`.
public struct ProviderConfigurationError: Error, Sendable, CustomStringConvertible {
  /// What is wrong.
  public var description: String

  init(_ description: String) { self.description = description }
}

/// Holds a task so that cancellation can reach it from another thread (data tasks here,
/// transfers in `Transfers.swift`).
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
final class TaskBox: @unchecked Sendable {
  private let lock = NSLock()
  /// The task and its exchange, set together once the task is made.
  private var running: (task: URLSessionTask, exchange: TaskExchange)?
  private var cancelled = false

  var isCancelled: Bool { lock.withLock { cancelled } }

  func set(_ task: URLSessionTask, exchange: TaskExchange) {
    let cancelNow = lock.withLock {
      running = (task, exchange)
      return cancelled
    }
    if cancelNow { exchange.cancel(task) }
  }

  /// What the task moved (nothing before it started).
  var counts: TaskExchange.Counts { lock.withLock { running?.exchange }?.counts ?? .init() }

  /// Cancels the task through its exchange (see `TaskExchange.cancel(_:)`), now or once set.
  func cancel() {
    let running = lock.withLock {
      cancelled = true
      return self.running
    }
    if let running { running.exchange.cancel(running.task) }
  }

  /// The request the task sent last (after the redirects the session followed), if any.
  var sent: URLRequest? { lock.withLock { running?.task.currentRequest } }
}

/// A value behind a lock.
///
/// `@unchecked Sendable`: `value` is only touched under `lock`.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    try lock.withLock { try body(&value) }
  }
}

extension HTTPURLResponse {
  /// The header fields as `[String: String]`, the form `Response` and recordings keep.
  package var stringHeaders: [String: String] {
    var headers: [String: String] = [:]
    for (name, value) in allHeaderFields {
      if let name = name as? String, let value = value as? String { headers[name] = value }
    }
    return headers
  }
}
