import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one place that decides what a redirect may carry: credentials go only to the origin
/// (scheme, host and port) that the request was addressed to, as curl and browsers do.
///
/// On a redirect to another origin, `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `X-Api-Key` and every header named in `sensitiveHeaders` are dropped; a same-origin redirect
/// keeps them. `URLSessionTransport` installs it as the delegate of every task it starts, on
/// Linux and Apple platforms.
final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
  /// Which headers hold credentials.
  let redaction: Redaction

  init(sensitiveHeaders: Set<String>) {
    self.redaction = Redaction(headers: sensitiveHeaders)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(
      redirect(request, from: [task.originalRequest?.url, task.currentRequest?.url, response.url]))
  }

  /// `request` as it may be sent after a redirect from `origins` (the original request and the
  /// hop that answered with the redirect).
  func redirect(_ request: URLRequest, from origins: [URL?]) -> URLRequest {
    guard let target = request.url,
      origins.contains(where: { $0.map { !Self.sameOrigin($0, target) } ?? false })
    else { return request }
    var stripped = request
    for name in (request.allHTTPHeaderFields ?? [:]).keys where redaction.isSecret(header: name) {
      stripped.setValue(nil, forHTTPHeaderField: name)
    }
    return stripped
  }

  /// Scheme, host and port equal (hosts case-insensitively, default ports filled in).
  static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
    a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
      && port(a) == port(b)
  }

  private static func port(_ url: URL) -> Int? {
    if let port = url.port { return port }
    switch url.scheme?.lowercased() {
    case "http", "ws": return 80
    case "https", "wss": return 443
    default: return nil
    }
  }
}
