import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How much `LoggingPlugin` writes: each line has a level and lines below the plugin's level
/// are dropped.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
  /// Headers and bodies (redacted).
  case debug
  /// One line per request and per response.
  case info
  /// Business failures, retries and lenient drift.
  case warning
  /// HTTP and transport failures.
  case error

  /// Orders by severity.
  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

  /// `debug`, `info`, `warning`, `error`.
  public var description: String {
    switch self {
    case .debug: "debug"
    case .info: "info"
    case .warning: "warning"
    case .error: "error"
    }
  }
}

/// Logs one line per attempt, each prefixed with the call's number (`#12`) so that two calls
/// to the same URL in flight read apart, with durations measured per call:
///
/// ```
/// #12 → GET https://api.example.com/me?token=%3Credacted%3E
/// #12 ← 200 GET https://api.example.com/me (12 ms, 345 bytes; transfer 9 ms, sent 0 B, received 345 B, 0 redirects)
/// #13 ← 200 business 1001 "token expired" GET https://api.example.com/feed (8 ms, 61 bytes; transfer 7 ms, sent 0 B, received 61 B, 0 redirects)
/// #13 ↻ attempt 2 in 0 ms after business 1001
/// #13 ⟳ token refresh started
/// #13 ⟳ token refresh succeeded in 85 ms
/// #14 ⚠ drift in GET https://api.example.com/me: data.id: coerced, expected Int, found "18"
/// #15 ← 200 GET https://api.example.com/me (cached, 345 bytes) from the cache stored 2026-11-23T10:00:00Z: the network failed (transport error -1009)
/// #16 ← failed after 3 ms (GET https://api.example.com/me): transport error -1004
/// ```
///
/// A response the network answered ends its `←` line with its ``Response/metrics``: the
/// transfer's duration, bytes sent and received, and redirects followed (see
/// ``TransferMetrics`` for what is counted); a stub's or the cache's line has none.
///
/// Drift is one entry per line, at most `driftLines` of them, then `… and N more`; it is logged
/// once per decode, and a response the cache answered logs where it came from, not its drift
/// again.
///
/// Secrets never reach a line: headers, query items and bodies go through `Redaction` (the
/// default secret names, the ones given here, and those of the provider the call goes through:
/// its `sensitiveHeaders` and its transport's, ``Response/redaction``). Headers and bodies are
/// logged at `.debug`.
public struct LoggingPlugin: Plugin {
  /// The lowest level written.
  public let level: LogLevel
  /// What is hidden in every line, besides the names of the provider the call goes through.
  public let redaction: Redaction
  /// Receives each line with its level.
  public let log: @Sendable (LogLevel, String) -> Void
  /// The most drift entries logged for one decode (one per line).
  public let driftLines = 10
  private let clock = ContinuousClock()
  /// When the attempt was sent and what, kept in the call (gone when the call ends).
  private let started = CallValueKey<Start>()

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - level: the lowest level written; `.info` by default.
  ///   - redactedHeaders: more header names to redact.
  ///   - redactedQueryItems: more query item names to redact.
  ///   - redactedFields: more JSON body fields to redact.
  ///   - log: receives each line; by default `print` with the level in brackets.
  public init(
    level: LogLevel = .info, redactedHeaders: Set<String> = [],
    redactedQueryItems: Set<String> = [], redactedFields: Set<String> = [],
    log: @escaping @Sendable (LogLevel, String) -> Void = { print("[\($0)] \($1)") }
  ) {
    self.level = level
    self.redaction = Redaction(
      headers: redactedHeaders, queryItems: redactedQueryItems, fields: redactedFields)
    self.log = log
  }

  /// `#1 → GET url (attempt 2)`; at `.debug` also the headers and the body.
  public func willSend(_ request: URLRequest, target: any TargetType) async {
    let call = ProviderCall.current
    let redaction = hiding(nil)
    let endpoint = "\(request.httpMethod ?? "GET") \(redaction.url(request.url))"
    call?.setValue(Start(instant: clock.now, endpoint: endpoint), for: started)
    var line = "\(prefix(call))→ \(endpoint)"
    if let attempt = call?.attempt, attempt > 1 { line += " (attempt \(attempt))" }
    write(.info, line)
    guard level <= .debug else { return }
    let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
      "\($0.key): \(redaction.header($0.key, $0.value))"
    }
    if !headers.isEmpty { write(.debug, prefix(call) + "  " + headers.joined(separator: ", ")) }
    if let body = request.httpBody, !body.isEmpty {
      write(.debug, prefix(call) + "  body: " + redaction.bodyText(body))
    }
  }

  /// `#1 ← 200 GET url (12 ms, 345 bytes; transfer …)`, a business failure as such, or the
  /// error.
  public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    let call = ProviderCall.current
    let (timing, endpoint) = elapsed(call)
    switch result {
    case .success(let response):
      var line = "\(prefix(call))← \(response.statusCode) \(summary(response, timing))"
      var lineLevel = LogLevel.info
      if let answer = response.cacheAnswer {
        line += cacheSource(answer)
        if case .networkFailed = answer.reason { lineLevel = .warning }  // offline: worth seeing
      }
      write(lineLevel, line)
      debugBody(response, call)
    case .failure(.business(let code, let message, let response)):
      let text = message.map { " \"\($0)\"" } ?? ""
      write(
        .warning,
        "\(prefix(call))← \(response.statusCode) business \(code)\(text) \(summary(response, timing))"
      )
      debugBody(response, call)
    case .failure(let error):
      if let response = error.response {
        write(
          .error,
          "\(prefix(call))← \(response.statusCode) \(summary(response, timing)) \(kind(error))")
        debugBody(response, call)
      } else {
        let sent = endpoint.map { " (\($0))" } ?? ""
        write(.error, "\(prefix(call))← failed after \(timing)\(sent): \(kind(error))")
      }
    }
  }

  /// `#1 ↻ attempt 2 in 0 ms after status 401`.
  public func willRetry(
    after error: ProviderError, target: any TargetType, attempt: Int, delay: Duration
  ) async {
    let millis = Self.milliseconds(delay)
    write(
      .warning,
      "\(prefix(ProviderCall.current))↻ attempt \(attempt) in \(millis) ms after \(kind(error))")
  }

  /// `#1 ⚠ drift in GET url: …`, one entry per line, at most `driftLines`, then `… and N more`;
  /// nothing for a response the cache answered (its drift was logged when it was decoded
  /// from the network; the `←` line says where it came from).
  public func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async
  {
    guard !response.isFromCache else { return }
    let method = response.request?.httpMethod ?? "GET"
    let redaction = hiding(response)
    let head =
      "\(prefix(ProviderCall.current))⚠ drift in \(method) \(redaction.url(response.request?.url)): "
    for entry in report.entries.prefix(driftLines) {
      write(.warning, head + "\(redaction.entry(entry))")
    }
    let more = max(0, report.entries.count - driftLines) + report.omittedCount
    if more > 0 { write(.warning, head + "… and \(more) more") }
  }

  /// `#1 ⟳ token refresh started`, then `succeeded in 85 ms` or `failed in 85 ms: …`.
  public func didRefreshToken(_ refresh: TokenRefresh, target: any TargetType) async {
    let head = "\(prefix(ProviderCall.current))⟳ token refresh "
    switch refresh {
    case .started:
      write(.info, head + "started")
    case .succeeded(let duration):
      write(.info, head + "succeeded in \(Self.milliseconds(duration)) ms")
    case .failed(let error, let duration):
      write(.error, head + "failed in \(Self.milliseconds(duration)) ms: \(type(of: error))")
    }
  }

  /// `#1 ■ stream ended: 1532 values in 3204 ms` (with reconnections, or how it failed).
  public func didFinishStream(_ summary: StreamSummary, target: any TargetType) async {
    var line = "\(prefix(ProviderCall.current))■ stream "
    switch summary.ending {
    case .finished: line += "ended"
    case .stopped: line += "stopped by its consumer"
    case .failed(let error):
      line += "failed: " + ((error as? ProviderError).map(kind) ?? "\(type(of: error))")
    }
    line += ": \(summary.count) values in \(Self.milliseconds(summary.duration)) ms"
    if summary.reconnections > 0 {
      line += ", \(summary.reconnections) reconnection\(summary.reconnections == 1 ? "" : "s")"
    }
    if case .failed = summary.ending {
      write(.error, line)
    } else {
      write(.info, line)
    }
  }

  // MARK: - Lines

  private func write(_ lineLevel: LogLevel, _ line: String) {
    guard lineLevel >= level else { return }
    log(lineLevel, line)
  }

  /// What a line hides: the names given here and those of the provider the call goes through,
  /// which the response carries (a request's are the call's).
  private func hiding(_ response: Response?) -> Redaction {
    redaction.adding(response?.redaction ?? .ofCurrentCall)
  }

  private func prefix(_ call: ProviderCall?) -> String {
    call.map { "#\($0.id) " } ?? ""
  }

  /// `GET url (12 ms, 345 bytes)` or `(cached, 345 bytes)`, with the transfer's metrics when the
  /// network answered: `(12 ms, 345 bytes; transfer 9 ms, sent 0 B, received 345 B, 0 redirects)`.
  private func summary(_ response: Response, _ timing: String) -> String {
    let method = response.request?.httpMethod ?? "GET"
    let when = response.isFromCache ? "cached" : timing
    let transfer = response.metrics.map { Self.transfer($0) } ?? ""
    let redaction = hiding(response)
    return
      "\(method) \(redaction.url(response.request?.url)) (\(when), \(response.data.count) bytes\(transfer))"
  }

  /// `; transfer 9 ms, sent 0 B, received 345 B, 1 redirect`.
  static func transfer(_ metrics: TransferMetrics) -> String {
    let redirects = metrics.redirects == 1 ? "1 redirect" : "\(metrics.redirects) redirects"
    return "; transfer \(milliseconds(metrics.duration)) ms, sent \(metrics.bytesSent) B,"
      + " received \(metrics.bytesReceived) B, \(redirects)"
  }

  private func debugBody(_ response: Response, _ call: ProviderCall?) {
    guard level <= .debug, !response.data.isEmpty else { return }
    write(.debug, prefix(call) + "  body: " + hiding(response).bodyText(response.data))
  }

  /// ` from the cache stored <time>: <why>`.
  private func cacheSource(_ answer: CacheAnswer) -> String {
    let stored = " from the cache stored \(answer.storedAt.formatted(.iso8601))"
    switch answer.reason {
    case .fresh: return stored + ": fresh"
    case .notModified: return stored + ": not modified (304)"
    case .cacheFirst: return stored + ": cache first"
    case .serverError(let status): return stored + ": the server answered \(status)"
    case .networkFailed(let error):
      return stored + ": the network failed (transport error \(error.code.rawValue))"
    }
  }

  /// Whole milliseconds, clamped to what an `Int64` holds.
  static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    guard seconds < Int64.max / 1000, seconds > Int64.min / 1000 else {
      return seconds < 0 ? Int64.min : Int64.max
    }
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
  }

  /// The error's case without its response (the line already shows it).
  private func kind(_ error: ProviderError) -> String {
    switch error {
    case .transport(let error): return "transport error \(error.code.rawValue)"
    case .status(let response): return "status \(response.statusCode)"
    case .business(let code, _, _): return "business \(code)"
    case .decoding(let error, _): return "decoding error: \(DecodingErrorSummary(error))"
    case .emptyBody: return "empty body"
    case .fixtureNotFound(let path): return "fixture not found: \(path)"
    case .envelope(let error, _): return "envelope error: \(error)"
    case .authentication: return "token refresh failed"
    case .underlying(let error, let response):
      // An error the envelope format mapped: the code and message it was mapped from.
      if let status = response?.envelopeStatus, !status.isSuccess {
        let text = status.message.map { " \"\($0)\"" } ?? ""
        return
          "business \(status.code.map { "\($0)" } ?? "?")\(text) (mapped to \(type(of: error)))"
      }
      return "error: \(type(of: error))"
    }
  }

  /// The time since `willSend` and what was sent.
  private func elapsed(_ call: ProviderCall?) -> (String, String?) {
    guard let start = call?.value(for: started) else { return ("?", nil) }
    call?.setValue(nil, for: started)
    return ("\(Self.milliseconds(clock.now - start.instant)) ms", start.endpoint)
  }
}

/// A decoding error's path and kind, without values from the body.
private struct DecodingErrorSummary: CustomStringConvertible {
  let error: DecodingError
  init(_ error: DecodingError) { self.error = error }

  var description: String {
    switch error {
    case .typeMismatch(let type, let context): "\(path(context)): expected \(type)"
    case .valueNotFound(let type, let context): "\(path(context)): no \(type)"
    case .keyNotFound(let key, let context): "\(path(context)): missing \(key.stringValue)"
    case .dataCorrupted(let context): "\(path(context)): corrupted"
    @unknown default: "\(error)"
    }
  }

  private func path(_ context: DecodingError.Context) -> String {
    context.codingPath.isEmpty
      ? "root" : context.codingPath.map(\.stringValue).joined(separator: ".")
  }
}

/// When an attempt was sent, and what (its method and redacted URL).
private struct Start: Sendable {
  let instant: ContinuousClock.Instant
  let endpoint: String
}
