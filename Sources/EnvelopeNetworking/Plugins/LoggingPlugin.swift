import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Logs method, URL, status, duration and body size; redacts Authorization, Cookie, Set-Cookie
/// and any header you name.
public struct LoggingPlugin: Plugin {
  /// Header names whose values are replaced by `<redacted>` (case-insensitive).
  public let redactedHeaders: Set<String>
  /// Receives each line.
  public let log: @Sendable (String) -> Void
  private let clock = ContinuousClock()
  private let started = StartTimes()

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - redacting: more header names to redact.
  ///   - log: receives each line; `print` by default.
  public init(
    redacting: Set<String> = [], log: @escaping @Sendable (String) -> Void = { print($0) }
  ) {
    self.redactedHeaders = Set(
      (redacting.union(["Authorization", "Cookie", "Set-Cookie"])).map { $0.lowercased() })
    self.log = log
  }

  /// Logs `→ GET url Name: value, …` with headers sorted by name and redacted.
  public func willSend(_ request: URLRequest, target: any TargetType) async {
    started.set(clock.now, for: request.url)
    let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
      name, value in
      "\(name): \(redactedHeaders.contains(name.lowercased()) ? "<redacted>" : value)"
    }
    log(
      "→ \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") \(headers.joined(separator: ", "))"
    )
  }

  /// Logs `← 200 GET url (12 ms, 345 bytes)`, `(cached, 345 bytes)`, or the error.
  public func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    switch result {
    case .success(let response):
      let started = started.take(for: response.request?.url)
      var timing = "cached"
      if !response.isFromCache, let started {
        let elapsed = clock.now - started
        let millis =
          elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        timing = "\(millis) ms"
      }
      let method = response.request?.httpMethod ?? "GET"
      let url = response.request?.url?.absoluteString ?? ""
      log("← \(response.statusCode) \(method) \(url) (\(timing), \(response.data.count) bytes)")
    case .failure(let error):
      _ = started.take(for: error.response?.request?.url)
      log("← failed: \(error)")
    }
  }
}

/// Start times by URL. `@unchecked Sendable`: all access goes through `lock`.
private final class StartTimes: @unchecked Sendable {
  private let lock = NSLock()
  private var times: [URL?: ContinuousClock.Instant] = [:]

  func set(_ instant: ContinuousClock.Instant, for url: URL?) {
    lock.withLock { times[url] = instant }
  }

  func take(for url: URL?) -> ContinuousClock.Instant? {
    lock.withLock { times.removeValue(forKey: url) }
  }
}
