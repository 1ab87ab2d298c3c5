import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How a target uses the provider's cache. Only responses with a 2xx status whose body decoded
/// are stored; business failures, decoding errors and responses that say
/// `Cache-Control: no-store` never are. Under every policy but `.never`, a stale entry with an
/// `ETag` or `Last-Modified` is revalidated, and a `304` answers from it. A target that sets a policy
/// opts in whatever its method (a POST search is keyed by its body; see `CacheKey`).
public enum CachePolicy: Sendable, Equatable {
  /// No cache: always the network (the default).
  case never
  /// A stored response younger than `maxAge` answers without the network; else load and store.
  case cacheElseLoad(maxAge: Duration)
  /// Always load and store; when the transport fails (offline, timeout), and with
  /// `onServerError` also on a 5xx, answer the stored response, however old.
  case loadElseCache(onServerError: Bool)

  /// As HTTP says (RFC 9111): a stored response answers while it is fresh by its own
  /// `Cache-Control: max-age` (else `Expires`); `no-cache` or a stale entry is revalidated with
  /// `If-None-Match` / `If-Modified-Since`, and a `304` answers from the cache.
  case http

  /// `.loadElseCache(onServerError: false)`: the cache answers only when the transport fails.
  public static var loadElseCache: CachePolicy { .loadElseCache(onServerError: false) }
}

/// A stored response and when it was stored.
public struct CachedResponse: Sendable {
  /// The response, with `isFromCache` set.
  public var response: Response
  /// When it was stored.
  public var storedAt: Date

  /// Creates an entry.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - storedAt: when it was stored.
  public init(response: Response, storedAt: Date) {
    self.response = response
    self.storedAt = storedAt
  }
}

/// Where a provider keeps responses for `CachePolicy`.
///
/// The provider computes each entry's key (see `CachePartition`): method, URL, body hash, and the
/// user the entry belongs to (the provider's `cacheScope`, else every credential-bearing
/// header). A cache only stores and returns entries by that key.
public protocol ResponseCache: Sendable {
  /// The entry stored under `key`, or nil.
  ///
  /// - Parameter key: 64 hex digits from the provider.
  /// - Returns: the entry, or nil.
  func cachedResponse(forKey key: String) async -> CachedResponse?
  /// Stores `response` under `key`, replacing any older entry.
  ///
  /// - Parameters:
  ///   - response: the response; the cache keeps no `Set-Cookie` and no credential.
  ///   - key: 64 hex digits from the provider.
  /// - Throws: when the entry cannot be written.
  func store(_ response: Response, forKey key: String) async throws
  /// Removes the entry under `key`, if any (MoyaMapper's `removeResponseCache`).
  ///
  /// - Parameter key: 64 hex digits from the provider.
  /// - Throws: when the entry exists and cannot be removed.
  func removeResponse(forKey key: String) async throws
  /// Removes every entry: responses and plain values (MoyaMapper's `removeAllResponseCache`).
  /// Call it when the user logs out.
  ///
  /// - Throws: when an entry cannot be removed.
  func removeAll() async throws
}

extension Duration {
  /// The duration in seconds, with its fraction.
  var seconds: TimeInterval {
    TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
  }
}

// MARK: - Plain values

extension ResponseCache {
  /// Keeps any `Encodable` value under a name of your own (MoyaMapper's
  /// `cacheXXX(value:key:)`), as JSON written by `ModelEncoder`, beside the responses and
  /// under the same limits.
  ///
  /// - Parameters:
  ///   - value: the value.
  ///   - name: the name to read it back with.
  /// - Throws: `EncodingError`, or the cache's write error.
  public func set<Value: Encodable>(_ value: Value, forKey name: String) async throws {
    let data = try ModelEncoder().encode(value)
    try await store(Response(statusCode: 200, data: data), forKey: Self.valueKey(name))
  }

  /// The value kept under `name`, or nil when there is none or it no longer decodes as `Value`
  /// (read by a strict `LenientDecoder`: a value that changed shape is not coerced).
  ///
  /// - Parameters:
  ///   - type: the value's type.
  ///   - name: its name.
  /// - Returns: the value.
  public func value<Value: Decodable>(_ type: Value.Type, forKey name: String) async -> Value? {
    guard let entry = await cachedResponse(forKey: Self.valueKey(name)) else { return nil }
    return try? LenientDecoder(policy: .strict).decode(Value.self, from: entry.response.data)
  }

  /// Removes the value kept under `name`, if any (MoyaMapper's `removeJSONCache`).
  ///
  /// - Parameter name: its name.
  /// - Throws: the cache's removal error.
  public func removeValue(forKey name: String) async throws {
    try await removeResponse(forKey: Self.valueKey(name))
  }

  /// The key a plain value is kept under: `value:` and the name, hashed.
  static func valueKey(_ name: String) -> String { SHA256.hex(Data(("value:" + name).utf8)) }
}
