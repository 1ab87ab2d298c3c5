import Foundation

/// What identifies a target's cache entry, besides its owner (see `CachePartition`).
public enum CacheKey: Sendable, Hashable {
  /// Method, URL with its query sorted, and the SHA-256 of the body: two POST searches with
  /// different bodies never share an entry.
  case `default`
  /// Method, base URL and path (MoyaMapper's `.base`): every query and body shares one entry,
  /// but for query items with a secret name (`api_key`, `access_token`, a signed URL's `sig`),
  /// which stay in the key: two users authenticated by a query item never share an entry, and a
  /// URL signed again is another entry.
  case base
  /// Method, base URL, path, `?` and the string (MoyaMapper's `.custom`), plus the query items
  /// with a secret name, as for `.base`.
  case custom(String)
}
