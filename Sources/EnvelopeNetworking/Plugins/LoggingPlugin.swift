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
/// #12 ← 200 GET https://api.example.com/me (12 ms, 345 bytes)
/// #13 ← 200 business 1001 "token expired" GET https://api.example.com/feed (8 ms, 61 bytes)
/// #13 ↻ attempt 2 in 0 ms after business 1001
/// #14 ⚠ drift in GET https://api.example.com/me: data.id: coerced, expected Int, found "18"
/// ```
///
/// Secrets never reach a line: headers, query items and bodies go through `Redaction` (the
/// default secret names plus the ones given here). Headers and bodies are logged at `.debug`.
public struct LoggingPlugin: Plugin {
  /// The lowest level written.
  public let level: LogLevel
  /// What is hidden in every line.
  public let redaction: Redaction
  /// Receives each line with its level.
  public let log: @Sendable (LogLevel, String) -> Void
  private let clock = ContinuousClock()
  private let started = StartTimes()

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
    started.set(clock.now, for: call)
    var line = "\(prefix(call))→ \(request.httpMethod ?? "GET") \(redaction.url(request.url))"
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

  /// `#1 ← 200 GET url (12 ms, 345 bytes)`, a business failure as such, or the error.
  public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    let call = ProviderCall.current
    let timing = elapsed(call)
    switch result {
    case .success(let response):
      write(.info, "\(prefix(call))← \(response.statusCode) \(summary(response, timing))")
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
        write(.error, "\(prefix(call))← failed after \(timing): \(kind(error))")
      }
    }
  }

  /// `#1 ↻ attempt 2 in 0 ms after status 401`.
  public func willRetry(
    after error: ProviderError, target: any TargetType, attempt: Int, delay: Duration
  ) async {
    let millis = Int(delay.seconds * 1000)
    write(
      .warning,
      "\(prefix(ProviderCall.current))↻ attempt \(attempt) in \(millis) ms after \(kind(error))")
  }

  /// `#1 ⚠ drift in GET url: …`, one entry per line after the first.
  public func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async
  {
    let method = response.request?.httpMethod ?? "GET"
    var line =
      "\(prefix(ProviderCall.current))⚠ drift in \(method) \(redaction.url(response.request?.url)): "
    line += report.entries.map { "\(redaction.entry($0))" }.joined(separator: "; ")
    if report.omittedCount > 0 { line += "; and \(report.omittedCount) more" }
    write(.warning, line)
  }

  // MARK: - Lines

  private func write(_ lineLevel: LogLevel, _ line: String) {
    guard lineLevel >= level else { return }
    log(lineLevel, line)
  }

  private func prefix(_ call: ProviderCall?) -> String {
    call.map { "#\($0.id) " } ?? ""
  }

  /// `GET url (12 ms, 345 bytes)` or `(cached, 345 bytes)`.
  private func summary(_ response: Response, _ timing: String) -> String {
    let method = response.request?.httpMethod ?? "GET"
    let when = response.isFromCache ? "cached" : timing
    return
      "\(method) \(redaction.url(response.request?.url)) (\(when), \(response.data.count) bytes)"
  }

  private func debugBody(_ response: Response, _ call: ProviderCall?) {
    guard level <= .debug, !response.data.isEmpty else { return }
    write(.debug, prefix(call) + "  body: " + redaction.bodyText(response.data))
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
    case .underlying(let error, _): return "error: \(type(of: error))"
    }
  }

  private func elapsed(_ call: ProviderCall?) -> String {
    guard let start = started.take(for: call) else { return "?" }
    return "\(Int((clock.now - start).seconds * 1000)) ms"
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

/// Start times by call and attempt. `@unchecked Sendable`: all access goes through `lock`.
private final class StartTimes: @unchecked Sendable {
  private let lock = NSLock()
  private var times: [ProviderCall?: ContinuousClock.Instant] = [:]

  func set(_ instant: ContinuousClock.Instant, for call: ProviderCall?) {
    lock.withLock { times[call] = instant }
  }

  func take(for call: ProviderCall?) -> ContinuousClock.Instant? {
    lock.withLock { times.removeValue(forKey: call) }
  }
}
