import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one place that decides whose a cache entry is, what of a response may be stored, and
/// which requests in flight may share one network exchange (`flightKey`).
///
/// - An entry's key covers the method, what `TargetType.cacheKey` names (by default the URL with
///   its query sorted and a hash of the body), and its owner: the provider's `cacheScope` when
///   one is set (a user id, so a token refresh keeps the user's entries), else the values of
///   every credential-bearing header (`Authorization`, `Proxy-Authorization`, `Cookie`,
///   `X-Api-Key` and the ones you name), those the request carries and those its
///   `URLSessionTransport`'s session adds when it sends it (the cookies of its jar for the URL,
///   the credential headers of its configuration: `sessionCredentials`), and under `.base` and
///   `.custom` (which leave the query and the body out) the credentials the query and the
///   body carry (every value `Redaction` hides in them: `queryCredentials`, `bodyCredentials`). Two users therefore
///   never share an entry, whatever their authentication. The key is a SHA-256, so no
///   credential reaches a file name. It is taken as the request goes out, and the answer is
///   stored under that key (`CacheTransport`): an answer whose `Set-Cookie` ends or changes the
///   session belongs to the session that asked.
/// - A stored response keeps no `Set-Cookie` (replaying one would hand out a stale session),
///   and every other secret header is redacted.
package enum CachePartition {
  /// The key of a request: 64 hex digits.
  ///
  /// - Parameters:
  ///   - request: the prepared request (after plugins added credentials).
  ///   - identity: what identifies the entry besides its owner (`TargetType.cacheKey`).
  ///   - endpoint: the base URL and path, for `.base` and `.custom` identities.
  ///   - scope: the provider's cache scope, if any.
  ///   - redaction: which headers carry credentials.
  ///   - session: the session that sends the request, when the provider knows it (its
  ///     transport is a `URLSessionTransport`).
  /// - Returns: the key.
  package static func key(
    for request: URLRequest, identity: CacheKey = .default, endpoint: (URL, String)? = nil,
    scope: String?, redaction: Redaction = .default, session: URLSession? = nil
  ) -> String {
    var parts = [request.httpMethod ?? "GET"]
    let base =
      endpoint.map { $0.0.absoluteString + "\n" + $0.1 } ?? request.url?.absoluteString ?? ""
    switch identity {
    case .default:
      parts.append(sortedURL(request.url))
      parts.append(request.httpBody.map { SHA256.hex($0) } ?? "")
    case .base:
      parts.append("base " + base)
    case .custom(let custom):
      parts.append("custom " + base + "?" + custom)
    }
    if let scope {
      parts.append("scope=" + scope)
    } else {
      let credentials = (request.allHTTPHeaderFields ?? [:])
        .filter { redaction.isSecret(header: $0.key) }
        .map { ($0.key.lowercased(), $0.value) }
        .sorted { $0 < $1 }
      for (name, value) in credentials { parts.append(name + ": " + value) }
      // `.base` and `.custom` leave the query and the body out: their credentials (`api_key=…`,
      // a GraphQL query's `"token":…`) still own the entry. (`.default` hashes both whole.)
      if identity != .default {
        for item in queryCredentials(request.url, redaction: redaction) {
          parts.append("query " + item)
        }
        for credential in bodyCredentials(request.httpBody, redaction: redaction) {
          parts.append("body " + credential)
        }
      }
      for (name, value) in sessionCredentials(for: request, in: session, redaction: redaction) {
        parts.append("session " + name + ": " + value)
      }
    }
    // Lengths first, so that no value can imitate a separator.
    let framed = parts.map { "\($0.utf8.count):\($0)" }.joined(separator: "\n")
    return SHA256.hex(Data(framed.utf8))
  }

  /// The credentials `url`'s query carries: every value `redaction` hides in it (a secret
  /// item's value, an OAuth exchange's `code` beside `state`, a token inside an encoded URL: the
  /// one rule of what is secret, as for the body), sorted: a callback's `?code=…&state=…`
  /// names no secret item, yet its code is a credential.
  private static func queryCredentials(_ url: URL?, redaction: Redaction) -> [String] {
    guard let url,
      let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?
        .percentEncodedQuery, !query.isEmpty
    else { return [] }
    let numbers = SecretNumbers()
    _ = redaction.numbering(numbers).query(query)
    return numbers.values
  }

  /// The credentials a request body carries: every value `redaction` hides in it (JSON fields
  /// at any depth and inside stringified JSON, form fields, `name=value` pairs, an OAuth
  /// exchange's `code`: the one rule of what is secret), sorted, so that the rest of the body
  /// (a GraphQL query's variables, a page) stays out of a `.base` key as the query does. A body
  /// that `redaction` withholds whole (text that may hold a secret it cannot tell apart, such
  /// as a multipart part named `password`) counts whole, as its SHA-256. Only the key's hash
  /// holds them: no credential reaches a file.
  ///
  /// - Parameters:
  ///   - body: the request body.
  ///   - redaction: which names are secret.
  /// - Returns: the credentials, or a hash of the whole body.
  package static func bodyCredentials(_ body: Data?, redaction: Redaction) -> [String] {
    guard let body, !body.isEmpty else { return [] }
    let numbers = SecretNumbers()
    if case .withheld = redaction.numbering(numbers).body(body) {
      return ["whole " + SHA256.hex(body)]
    }
    return numbers.values
  }

  /// What `session` adds to `request` when it sends it that the request does not carry: the
  /// `Cookie` its jar holds for the URL (when the session and the request let it add cookies;
  /// an app's session that signs users in keeps their session cookie there), and the
  /// credential headers of its configuration (`httpAdditionalHeaders`). Names lower-case,
  /// sorted; nothing without a session.
  ///
  /// - Parameters:
  ///   - request: the prepared request.
  ///   - session: the session that sends it.
  ///   - redaction: which headers carry credentials.
  /// - Returns: the headers the session adds, as name and value.
  package static func sessionCredentials(
    for request: URLRequest, in session: URLSession?, redaction: Redaction = .default
  ) -> [(String, String)] {
    guard let session else { return [] }
    let configuration = session.configuration
    var added: [(String, String)] = []
    if request.httpShouldHandleCookies, configuration.httpShouldSetCookies,
      let url = request.url, let cookies = configuration.httpCookieStorage?.cookies(for: url),
      !cookies.isEmpty
    {
      let ordered = cookies.sorted { ($0.name, $0.path, $0.value) < ($1.name, $1.path, $1.value) }
      let value = ordered.map { $0.name + "=" + $0.value }.joined(separator: "; ")
      added.append(("cookie", value))
    }
    for (key, value) in configuration.httpAdditionalHeaders ?? [:] {
      let name = ((key.base as? String) ?? String(describing: key.base)).lowercased()
      if redaction.isSecret(header: name) { added.append((name, "\(value)")) }
    }
    return added.sorted { $0 < $1 }
  }

  // MARK: - Exchanges in flight

  /// Whether `request` may share a network exchange with identical requests in flight
  /// (`Provider(deduplicatesRequests: true)`): a GET without a body. Any other method may
  /// change something on the server, so each is sent.
  ///
  /// - Parameter request: the prepared request.
  /// - Returns: whether it may be shared.
  package static func mayShare(_ request: URLRequest) -> Bool {
    (request.httpMethod ?? "GET").uppercased() == "GET" && request.httpBody == nil
      && request.httpBodyStream == nil
  }

  /// Which requests in flight share one exchange: the same URL (byte for byte), the same
  /// headers (every one, names compared without case: credentials among them, so two users'
  /// requests never share), the same timeout, the same cookie handling and cache policy (a
  /// request that asks the session to add no cookies, or not to answer from its `URLCache`,
  /// never gets the answer of one that did), and the same owner as the cache sees it (the
  /// provider's `cacheScope`, when it has one). The key is kept in memory only while the
  /// exchange is in flight; it holds the header values as they are.
  ///
  /// - Parameters:
  ///   - request: the prepared request (after plugins added credentials); see `mayShare`.
  ///   - scope: the provider's cache scope, if any.
  /// - Returns: the key.
  package static func flightKey(for request: URLRequest, scope: String?) -> String {
    var parts = [
      request.url?.absoluteString ?? "", "\(request.timeoutInterval)",
      "cookies=\(request.httpShouldHandleCookies)", "cache=\(request.cachePolicy.rawValue)",
      scope.map { "scope=" + $0 } ?? "no scope",
    ]
    let headers = (request.allHTTPHeaderFields ?? [:]).map { ($0.key.lowercased(), $0.value) }
    for (name, value) in headers.sorted(by: { $0 < $1 }) { parts.append(name + ": " + value) }
    // Lengths first, so that no value can imitate a separator.
    return parts.map { "\($0.utf8.count):\($0)" }.joined(separator: "\n")
  }

  /// `response` as a cache may keep it: no `Set-Cookie`, other secret headers redacted, and the
  /// URL of its request (which a `DiskCache` writes in its metadata) redacted. Other headers are
  /// kept as they came (a cached `Link` or `Location` is read again by the app, as the cached
  /// body is), but for the credentials the request sent in its query that the server copied into
  /// them (`Link: <…?access_token=…&page=2>`): each becomes a numbered stand-in
  /// (`access_token=%3Csent%201%3E`) that `restored(_:for:redaction:)` puts back from the
  /// request the entry answers, so no credential of the user's reaches a file and a cached page's
  /// next link still works. The provider's cache passes the provider's `redaction` (the names
  /// you gave its `sensitiveHeaders:` and its transport's) before the cache, which applies the
  /// response's `redaction` again, sees the response.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - redaction: which names are secret.
  /// - Returns: the response to store.
  package static func storable(_ response: Response, redaction: Redaction = .default) -> Response {
    var stored = response
    let sent = sentCredentials(response.request, redaction: redaction)
    var headers: [String: String] = [:]
    for (name, value) in response.headers where name.lowercased() != "set-cookie" {
      headers[name] =
        redaction.isSecret(header: name) ? Redaction.placeholder : standingIn(for: sent, in: value)
    }
    stored.headers = headers
    if let url = response.request?.url {
      // A redacted URL always parses (the placeholder is percent-encoded); else none is kept.
      stored.request?.url = URL(string: redaction.url(url))
    }
    return stored
  }

  /// `response` (a stored one) with the credentials `request` sent put back where `storable`
  /// left stand-ins: the request an entry answers has the credentials of the one that stored it
  /// (they are part of the key), or, under a `cacheScope`, the user's current ones. A stand-in
  /// the request has no credential for stays.
  ///
  /// - Parameters:
  ///   - response: the stored response.
  ///   - request: the request it answers.
  ///   - redaction: which names are secret (the one `storable` was given).
  /// - Returns: the response with its headers as the server wrote them.
  package static func restored(
    _ response: Response, for request: URLRequest, redaction: Redaction = .default
  ) -> Response {
    guard response.headers.values.contains(where: { $0.contains(standInPrefix) }) else {
      return response
    }
    let sent = sentCredentials(request, redaction: redaction)
    var restored = response
    for (name, value) in response.headers where value.contains(standInPrefix) {
      var text = value
      for (index, credential) in sent.enumerated() {
        text = text.replacingOccurrences(of: standIn(index), with: credential)
      }
      restored.headers[name] = text
    }
    return restored
  }

  /// How every stand-in of a sent credential starts (`<sent `, percent-encoded).
  private static let standInPrefix = "%3Csent%20"

  /// The stand-in of the `index`th sent credential: `%3Csent%201%3E` (`<sent 1>`).
  private static func standIn(_ index: Int) -> String { standInPrefix + "\(index + 1)%3E" }

  /// The credentials `request` sent in its query (every value `redaction` hides in it), each as
  /// written in the URL, decoded and percent-encoded (a server copies it in one of these forms),
  /// sorted: the stand-in `n` is the nth.
  private static func sentCredentials(_ request: URLRequest?, redaction: Redaction) -> [String] {
    guard let url = request?.url,
      let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return [] }
    var forms = Set<String>()
    for item in components.percentEncodedQueryItems ?? [] {
      let name = item.name.removingPercentEncoding ?? item.name
      if redaction.isSecret(name: name), let value = item.value { forms.insert(value) }
    }
    for value in queryCredentials(url, redaction: redaction) {
      forms.insert(value)
      if let encoded = value.addingPercentEncoding(withAllowedCharacters: unreserved) {
        forms.insert(encoded)
      }
    }
    let placeholders = [Redaction.placeholder, "%3Credacted%3E"]
    return forms.filter { !$0.isEmpty && !placeholders.contains($0) && !$0.contains(standInPrefix) }
      .sorted()
  }

  /// RFC 3986's unreserved characters: what a percent-encoding writer leaves as it is.
  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// `value` with every `=credential` of `sent` that ends a value (at `&`, `#`, `;`, `,`, `>`,
  /// a quote, a space or the end) written as the credential's stand-in; longer credentials
  /// first, so that one inside another is not cut.
  private static func standingIn(for sent: [String], in value: String) -> String {
    guard !sent.isEmpty, value.contains("=") else { return value }
    var text = value
    let ends: Set<Character> = ["&", "#", ";", ",", ">", "\"", "'", " ", "\t"]
    for (index, credential) in sent.enumerated().sorted(by: { $0.1.count > $1.1.count }) {
      let pair = "=" + credential
      var result = ""
      var rest = text[...]
      while let found = rest.range(of: pair) {
        let after = found.upperBound
        let endsValue = after == rest.endIndex || ends.contains(rest[after])
        result += rest[..<found.lowerBound]
        result += endsValue ? "=" + standIn(index) : pair
        rest = rest[after...]
      }
      text = result + rest
    }
    return text
  }

  private static func sortedURL(_ url: URL?) -> String {
    guard let url else { return "" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
      let query = components.percentEncodedQuery
    else { return url.absoluteString }
    components.percentEncodedQuery = query.split(separator: "&").sorted().joined(separator: "&")
    return components.string ?? url.absoluteString
  }
}
