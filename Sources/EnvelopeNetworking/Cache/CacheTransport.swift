import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The provider's cache as a transport in its line, and the one place that decides when the
/// cache answers, when an entry is revalidated, what is stored and under which key:
///
/// - `cacheElseLoad(maxAge:)`: an entry younger than `maxAge` answers (`.fresh`).
/// - `.http`: an entry within the response's `Cache-Control: max-age` (else `Expires`) answers,
///   unless it said `no-cache`.
/// - Otherwise the request goes on; when an entry has an `ETag` or `Last-Modified`, the request
///   asks `If-None-Match` / `If-Modified-Since`, and a `304` answers from the entry
///   (`.notModified`) and restarts its age.
/// - `loadElseCache`: when the network fails (and with `onServerError` on a 5xx) the entry answers.
/// - Only decoded 2xx network responses are stored (the provider's last stage calls `store`),
///   never one that says `Cache-Control: no-store`.
///
/// Keys come from `CachePartition`.
struct CacheTransport: LineTransport {
  let next: any LineTransport
  let cache: any ResponseCache
  let scope: (@Sendable () async -> String?)?
  let baseURL: URL?
  let redaction: Redaction
  /// The session of the provider's `URLSessionTransport`: what its cookie jar and configuration
  /// add to a request is part of whose an entry is. Nil for any other transport.
  var session: URLSession? = nil
  /// Transfers are never cached.
  var transfers: any HTTPTransport { next }

  /// The cache's answer, else the next transport's (revalidating an entry when it can).
  nonisolated(nonsending) func response(to request: URLRequest, in exchange: Exchange?)
    async throws -> Response
  {
    guard let exchange,
      let key = await key(for: request, target: exchange.target, use: exchange.cacheUse)
    else {
      if exchange?.cacheUse == .cacheOnly { throw CacheMiss() }
      return try await next.response(to: request, in: exchange)
    }
    let entry = await cache.cachedResponse(forKey: key)
    if exchange.cacheUse == .cacheOnly {
      guard let entry else { throw CacheMiss() }
      return answer(entry, .cacheFirst, request)
    }
    let policy = exchange.cacheUse == .byPolicy ? exchange.target.cachePolicy : .never
    if let entry, Self.isFresh(entry, policy) {
      return answer(entry, .fresh, request)
    }
    var fallsBackOnServerError: Bool?  // nil: the cache never stands in for the network
    if case .loadElseCache(let onServerError) = policy { fallsBackOnServerError = onServerError }
    let conditional = entry.flatMap { Self.revalidating(request, $0) }
    do {
      var response = try await next.response(to: conditional ?? request, in: exchange)
      if response.statusCode == 304, conditional != nil, let entry {
        let renewed = await renew(entry, with: response, request: request, key: key)
        return answer(renewed, .notModified, request)
      }
      if fallsBackOnServerError == true, (500...599).contains(response.statusCode), let entry {
        return answer(entry, .serverError(status: response.statusCode), request)
      }
      response.request = request
      response.cacheEntryKey = CacheEntryKey(key)
      return response
    } catch let error as URLError where fallsBackOnServerError != nil && error.code != .cancelled {
      guard let entry, !Task.isCancelled else { throw error }
      return answer(entry, .networkFailed(error), request)
    }
  }

  /// Streams pass on: the cache neither answers nor stores them (a stream is read once, as it
  /// arrives; keeping it would hold the whole body).
  nonisolated(nonsending) func stream(_ request: URLRequest, in exchange: Exchange?)
    async throws -> StreamedResponse
  {
    try await next.stream(request, in: exchange)
  }

  // MARK: - Storing and removing

  /// Keeps a decoded 2xx network response, unless it says `no-store`, under the key its request
  /// was looked up under when it was sent (`Response.cacheEntryKey`): what the session's jar
  /// holds after the response (its `Set-Cookie` ended or changed the session) does not decide
  /// whose the entry is. A failed write only means a later miss.
  func store(_ response: Response, target: any TargetType, use: CacheUse) async {
    guard !response.isFromCache, (200...299).contains(response.statusCode),
      !CacheControl(response.header("Cache-Control")).noStore, let request = response.request
    else { return }
    var key = response.cacheEntryKey?.hex
    if key == nil { key = await self.key(for: request, target: target, use: use) }
    guard let key else { return }
    // The names the provider was told are secret, beyond the defaults the cache applies.
    var stored = CachePartition.storable(response, redaction: redaction)
    stored.envelopeStatus = nil
    stored.metrics = nil  // the network's cost, not the cache's
    stored.cacheEntryKey = nil
    try? await cache.store(stored, forKey: key)
  }

  /// Removes the entry `request` would be answered from.
  func remove(_ request: URLRequest, target: any TargetType) async throws {
    guard let key = await key(for: request, target: target, use: .refresh) else { return }
    try await cache.removeResponse(forKey: key)
  }

  /// The key when this exchange may use the cache: the target's policy is not `.never` (or the
  /// call reads or refreshes the cache whatever the policy). See `CachePartition`.
  func key(for request: URLRequest, target: any TargetType, use: CacheUse) async -> String? {
    switch use {
    case .none: return nil
    case .byPolicy where target.cachePolicy == .never: return nil
    case .byPolicy, .refresh, .cacheOnly: break
    }
    return CachePartition.key(
      for: request, identity: target.cacheKey, endpoint: (baseURL ?? target.baseURL, target.path),
      scope: await scope?(), redaction: redaction, session: session)
  }

  // MARK: - Freshness and revalidation

  /// Whether `entry` answers without asking the server under `policy`.
  static func isFresh(_ entry: CachedResponse, _ policy: CachePolicy, now: Date = Date()) -> Bool {
    let age = now.timeIntervalSince(entry.storedAt)
    guard age >= 0 else { return false }  // dated in the future: the clock moved
    switch policy {
    case .cacheElseLoad(let maxAge):
      return age < maxAge.seconds
    case .http:
      let response = entry.response
      let control = CacheControl(response.header("Cache-Control"))
      guard !control.noCache, !control.noStore else { return false }
      let received = response.header("Age").flatMap(TimeInterval.init) ?? 0
      guard let lifetime = control.maxAge ?? expiresLifetime(response, storedAt: entry.storedAt)
      else { return false }
      return age + max(0, received) < lifetime
    case .never, .loadElseCache:
      return false
    }
  }

  /// `Expires` minus the response's `Date` (or, without one, the time it was stored); an
  /// invalid `Expires` is already expired (RFC 9111 §5.3).
  private static func expiresLifetime(_ response: Response, storedAt: Date) -> TimeInterval? {
    guard let expires = response.header("Expires") else { return nil }
    guard let end = HTTPDate.parse(expires) else { return 0 }
    let start = response.header("Date").flatMap { HTTPDate.parse($0) } ?? storedAt
    return end.timeIntervalSince(start)
  }

  /// `request` asking whether `entry` is still current, or nil when the entry has no validator
  /// or the request already asks its own question.
  private static func revalidating(_ request: URLRequest, _ entry: CachedResponse) -> URLRequest? {
    guard request.value(forHTTPHeaderField: "If-None-Match") == nil,
      request.value(forHTTPHeaderField: "If-Modified-Since") == nil
    else { return nil }
    let etag = entry.response.header("ETag")
    let modified = entry.response.header("Last-Modified")
    guard etag != nil || modified != nil else { return nil }
    var conditional = request
    if let etag { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
    if let modified { conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
    return conditional
  }

  /// The entry after a `304`: the headers the 304 updates, stored again now.
  private func renew(
    _ entry: CachedResponse, with notModified: Response, request: URLRequest, key: String
  ) async -> CachedResponse {
    var response = entry.response
    for (name, value) in notModified.headers where !RenewedHeaders.kept.contains(name.lowercased())
    {
      response.headers = response.headers.filter {
        $0.key.caseInsensitiveCompare(name) != .orderedSame
      }
      response.headers[name] = value
    }
    response.request = request
    response.isFromCache = false
    response.cacheAnswer = nil
    response.metrics = nil
    try? await cache.store(CachePartition.storable(response, redaction: redaction), forKey: key)
    return CachedResponse(response: response, storedAt: Date())
  }

  /// A cached answer to `request`, saying why the cache answered.
  private func answer(_ entry: CachedResponse, _ reason: CacheAnswer.Reason, _ request: URLRequest)
    -> Response
  {
    var response = CachePartition.restored(entry.response, for: request, redaction: redaction)
    response.request = request
    response.isFromCache = true
    response.metrics = nil
    response.cacheAnswer = CacheAnswer(storedAt: entry.storedAt, reason: reason)
    return response
  }
}

/// Headers of a `304` that never replace the stored response's (they describe the 304 itself).
private enum RenewedHeaders {
  static let kept: Set<String> = [
    "content-length", "content-type", "transfer-encoding", "connection",
  ]
}

/// A key of `CachePartition.key` (64 lower-case hex digits) as four words, so that the
/// `Response` field that carries it to `store` (`Response.cacheEntryKey`) costs the copies of a
/// response on every call no reference count, as a `String` field did.
struct CacheEntryKey: Sendable, Hashable {
  private var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

  /// The key's words; nil for text that is not 64 hex digits (then `store` takes the key again).
  init?(_ hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 64 else { return nil }
    var words: [UInt64] = []
    for start in stride(from: 0, to: 64, by: 16) {
      guard
        let word = UInt64(String(decoding: digits[start..<start + 16], as: UTF8.self), radix: 16)
      else { return nil }
      words.append(word)
    }
    (w0, w1, w2, w3) = (words[0], words[1], words[2], words[3])
  }

  /// The 64 hex digits again.
  var hex: String {
    [w0, w1, w2, w3].map { word in
      let text = String(word, radix: 16)
      return String(repeating: "0", count: 16 - text.utf8.count) + text
    }.joined()
  }
}
