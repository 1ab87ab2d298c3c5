import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one place that decides what a redirect may carry: credentials go only to the origin
/// (scheme, host and port) that the request was addressed to, as curl and browsers do; a 307 or
/// 308 keeps the method and body (RFC 9110 15.4.8, 15.4.9).
///
/// On a redirect to another origin, `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `X-Api-Key` and every header named in `sensitiveHeaders` are dropped; a same-origin redirect
/// keeps them. `URLSessionTransport` asks it about every redirect of every task it starts, on
/// Linux and Apple platforms, and about the hops it sends itself: FoundationNetworking sends a
/// 307 or 308 of a request with a body on with `Content-Length: 0` (and ignores the body of the
/// request a redirect delegate returns), so the transport refuses those redirects and sends the
/// next request itself (`resend(_:after:hasBody:)`).
final class RedirectGuard: Sendable {
  /// Which headers hold credentials.
  let redaction: Redaction

  /// The most redirects one request follows, as Foundation and browsers do; then
  /// `URLError(.httpTooManyRedirects)`.
  static let maximumRedirects = 20

  init(sensitiveHeaders: Set<String>) {
    self.redaction = Redaction(headers: sensitiveHeaders)
  }

  /// The answer to a session's `willPerformHTTPRedirection`: nil (no automatic redirect: the
  /// transport resends) for a 307 or 308 of a request with a body, else `request` without the
  /// credentials another origin must not get.
  ///
  /// - Parameters:
  ///   - request: the next request the session proposes.
  ///   - response: the redirect.
  ///   - task: the task being redirected.
  ///   - hasBody: whether the task's request has a body the transport can send again.
  /// - Returns: the request to follow the redirect with, or nil to end the task with it.
  func proposed(
    _ request: URLRequest, after response: HTTPURLResponse, of task: URLSessionTask, hasBody: Bool
  ) -> URLRequest? {
    if Self.keepsBody(response.statusCode) && hasBody { return nil }
    return redirect(
      request, from: [task.originalRequest?.url, task.currentRequest?.url, response.url])
  }

  /// The request to send after `response` redirected `request` with a 307 or 308 that the
  /// session was told not to follow: same method, headers and body, at the `Location` (resolved
  /// against the URL that answered), without credentials when that is another origin than any
  /// of `origins` or the request's. Nil when `response` is no such redirect.
  ///
  /// - Parameters:
  ///   - request: the request that got `response`.
  ///   - response: the answer.
  ///   - hasBody: whether `request` has a body the transport can send again.
  ///   - origins: earlier URLs of the chain (the first request's).
  /// - Returns: the next hop, or nil.
  func resend(
    _ request: URLRequest, after response: HTTPURLResponse, hasBody: Bool, origins: [URL?] = []
  ) -> URLRequest? {
    guard hasBody, Self.keepsBody(response.statusCode),
      let location = response.value(forHTTPHeaderField: "Location"),
      let base = response.url ?? request.url,
      let target = URL(string: location, relativeTo: base)?.absoluteURL,
      ["http", "https"].contains(target.scheme?.lowercased() ?? "")
    else { return nil }
    var next = request
    next.url = target
    return redirect(next, from: origins + [request.url, response.url])
  }

  /// 307 and 308 keep the method and body (301, 302 and 303 of a POST become a GET without one).
  static func keepsBody(_ status: Int) -> Bool { status == 307 || status == 308 }

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
