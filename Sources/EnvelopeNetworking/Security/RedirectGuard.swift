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
/// next request itself (`resend(_:after:hasBody:origins:)`).
///
/// A session whose configuration holds a credential (`httpAdditionalHeaders` with an
/// `Authorization`, a `Cookie` or another secret header) follows no redirect to another origin:
/// URLSession adds those headers to every request it sends, the next hop too, so no header the
/// guard strips from a request keeps them from that origin. The 3xx is then the answer (its
/// status and `Location` reach the caller). Same-origin redirects are followed as usual.
///
/// The body goes only as far as the method that carries it: after a 303 (or a 301 or 302 that
/// turned a POST into a GET) the chain is a GET without a body, also when a later 307 or 308
/// keeps the method; and a body is never sent again from https to http (the 307 or 308 is then
/// the answer).
final class RedirectGuard: Sendable {
  /// Which headers hold credentials.
  let redaction: Redaction
  /// Whether the session's configuration adds a credential header to every request.
  private let sessionHoldsSecret: Bool

  /// The most redirects one request follows, as Foundation and browsers do; then
  /// `URLError(.httpTooManyRedirects)`.
  static let maximumRedirects = 20

  /// - Parameters:
  ///   - sensitiveHeaders: more header names that carry credentials.
  ///   - sessionHeaders: the session configuration's `httpAdditionalHeaders`.
  init(sensitiveHeaders: Set<String>, sessionHeaders: [AnyHashable: Any]? = nil) {
    let redaction = Redaction(headers: sensitiveHeaders)
    self.redaction = redaction
    self.sessionHoldsSecret = (sessionHeaders ?? [:]).keys.contains {
      redaction.isSecret(header: ($0.base as? String) ?? String(describing: $0.base))
    }
  }

  /// The answer to a session's `willPerformHTTPRedirection`: nil (no automatic redirect) for a
  /// redirect to another origin when the session's configuration holds a credential, and for a
  /// 307 or 308 of a hop that still has its body (the transport resends it); else `request`
  /// without the credentials another origin must not get.
  ///
  /// - Parameters:
  ///   - request: the next request the session proposes.
  ///   - response: the redirect.
  ///   - task: the task being redirected.
  ///   - hasBody: whether the task's request has a body the transport can send again (the hop
  ///     that got the redirect has it when its method is still the task's first).
  /// - Returns: the request to follow the redirect with, or nil to end the task with it.
  func proposed(
    _ request: URLRequest, after response: HTTPURLResponse, of task: URLSessionTask, hasBody: Bool
  ) -> URLRequest? {
    let origins = [task.originalRequest?.url, task.currentRequest?.url, response.url]
    if refusesSessionCredential(to: request.url, from: origins) { return nil }
    let bodyLeft =
      hasBody
      && (task.currentRequest.map { Self.sameMethod($0, task.originalRequest) } ?? true)
    if Self.keepsBody(response.statusCode) && bodyLeft { return nil }
    return redirect(request, from: origins)
  }

  /// The request to send after `response` redirected `request` with a 307 or 308 that the
  /// session was told not to follow: same method, headers and body, at the `Location` (resolved
  /// against the URL that answered), without credentials when that is another origin than any
  /// of `origins` or the request's. Nil when `response` is no such redirect, when it goes from
  /// https to http (the body would travel in clear), and when it goes to another origin while
  /// the session's configuration holds a credential or the body holds one (a field or form item
  /// that `redaction` hides: `refresh_token=…`, `{"password": …}`).
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
    let chain = origins + [request.url, response.url]
    if target.scheme?.lowercased() == "http",
      [request.url, response.url].contains(where: { $0?.scheme?.lowercased() == "https" })
    {
      return nil
    }
    if refusesSessionCredential(to: target, from: chain) { return nil }
    // A body is sent again as it is: one that holds a credential (a refresh token, a password in
    // a form or JSON) is not sent to another origin, as its credential headers are not.
    if let body = request.httpBody, crossesOrigin(to: target, from: chain),
      redaction.holdsSecret(body: body)
    {
      return nil
    }
    var next = request
    next.url = target
    return redirect(next, from: chain)
  }

  /// Whether `a` and `b` have the same method (none is a GET): a hop whose method is no longer
  /// the first request's (a 303, or a 301 or 302 of a POST) has no body.
  static func sameMethod(_ a: URLRequest, _ b: URLRequest?) -> Bool {
    (a.httpMethod ?? "GET").uppercased() == (b?.httpMethod ?? "GET").uppercased()
  }

  /// Whether nothing may be sent to `target` at all: it is another origin than one of `origins`
  /// while the session's configuration adds a credential to every request (URLSession sends it
  /// there too, whatever the request carries). For redirects and for a page's next link.
  func refusesSessionCredential(to target: URL?, from origins: [URL?]) -> Bool {
    sessionHoldsSecret && crossesOrigin(to: target, from: origins)
  }

  /// Whether `target` is another origin than one of `origins`.
  private func crossesOrigin(to target: URL?, from origins: [URL?]) -> Bool {
    guard let target else { return true }
    return origins.contains { $0.map { !Self.sameOrigin($0, target) } ?? false }
  }

  /// 307 and 308 keep the method and body (301, 302 and 303 of a POST become a GET without one).
  static func keepsBody(_ status: Int) -> Bool { status == 307 || status == 308 }

  /// `request` as it may be sent after a redirect from `origins` (the original request and the
  /// hop that answered with the redirect).
  func redirect(_ request: URLRequest, from origins: [URL?]) -> URLRequest {
    guard request.url != nil, crossesOrigin(to: request.url, from: origins) else { return request }
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
