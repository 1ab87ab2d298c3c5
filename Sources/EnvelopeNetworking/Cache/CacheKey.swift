import Foundation

/// What identifies a target's cache entry, besides its owner (see `CachePartition`).
public enum CacheKey: Sendable, Hashable {
  /// Method, URL with its query sorted, and the SHA-256 of the body: two POST searches with
  /// different bodies never share an entry.
  case `default`
  /// Method, base URL and path (MoyaMapper's `.base`): every query and body shares one entry,
  /// but for the credentials they carry, which stay in the key: every value `Redaction` hides
  /// in the query (`api_key`, `access_token`, a signed URL's `sig`, an OAuth callback's `code`
  /// beside `state`) and in the body (a GraphQL query's `"token"`, a form's `access_token`; a
  /// body whose secrets cannot be told apart counts whole). Two users authenticated by a query item or by their body never
  /// share an entry, and a URL signed again is another entry.
  case base
  /// Method, base URL, path, `?` and the string (MoyaMapper's `.custom`), plus the credentials
  /// of the query and the body, as for `.base`.
  case custom(String)
}
