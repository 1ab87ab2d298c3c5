import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How a target uses the provider's cache. Only `GET` responses with a 2xx status whose body
/// decoded are stored; business failures and decoding errors never are.
public enum CachePolicy: Sendable, Equatable {
  /// No cache: always the network (the default).
  case never
  /// A stored response younger than `maxAge` answers without the network; else load and store.
  case cacheElseLoad(maxAge: Duration)
  /// Always load and store; when the transport fails (offline, timeout) answer the stored
  /// response, however old.
  case loadElseCache
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
}

/// A `ResponseCache` on disk: one file per entry, written atomically, kept across launches.
///
/// Each file is a line of JSON metadata (status, headers, URL, time stored) followed by the body
/// bytes. A file that cannot be read back is treated as missing and removed.
///
/// ```swift
/// let cache = try DiskCache(directory: .cachesDirectory.appending(path: "api"))
/// let provider = Provider<API>(cache: cache)   // targets opt in with `cachePolicy`
/// ```
public final class DiskCache: ResponseCache {
  /// The folder the entries live in.
  public let directory: URL

  /// Opens (and creates when needed) a cache folder.
  ///
  /// - Parameter directory: the folder.
  /// - Throws: when the folder cannot be created.
  public init(directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.directory = directory
  }

  /// The entry stored under `key`, or nil.
  ///
  /// - Parameter key: the entry's key.
  /// - Returns: the entry (its `request` is nil), or nil when there is none or it is unreadable.
  public func cachedResponse(forKey key: String) async -> CachedResponse? {
    guard let file = self.file(forKey: key) else { return nil }
    guard let contents = FileManager.default.contents(atPath: file.path) else { return nil }
    guard let newline = contents.firstIndex(of: UInt8(ascii: "\n")),
      let meta = try? JSONSerialization.jsonObject(with: contents[..<newline]) as? [String: Any],
      let status = meta["status"] as? Int, let headers = meta["headers"] as? [String: String],
      let storedAt = meta["storedAt"] as? Double
    else {
      try? FileManager.default.removeItem(at: file)
      return nil
    }
    let body = Data(contents[contents.index(after: newline)...])
    let response = Response(
      statusCode: status, headers: headers, data: body, request: nil, isFromCache: true)
    return CachedResponse(response: response, storedAt: Date(timeIntervalSince1970: storedAt))
  }

  /// Stores `response` under `key` atomically. The metadata is made by `CachePartition`: no
  /// `Set-Cookie`, secret headers and query items redacted.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - key: the entry's key (64 hex digits).
  /// - Throws: when the key is not 64 hex digits or the file cannot be written.
  public func store(_ response: Response, forKey key: String) async throws {
    guard let file = file(forKey: key) else { throw CocoaError(.fileWriteInvalidFileName) }
    let stored = CachePartition.storable(response)
    let meta: [String: Any] = [
      "status": stored.statusCode, "headers": stored.headers,
      "url": Redaction.default.url(response.request?.url),
      "storedAt": Date().timeIntervalSince1970,
    ]
    var contents = try JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys])
    contents.append(UInt8(ascii: "\n"))
    contents.append(response.data)
    try contents.write(to: file, options: .atomic)
  }

  /// Deletes every entry.
  ///
  /// - Throws: when a file cannot be removed.
  public func removeAll() throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
    where name.hasSuffix(".cache") {
      try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }
  }

  /// The file of a key; nil unless the key is 64 hex digits (so no key names another path).
  private func file(forKey key: String) -> URL? {
    guard key.utf8.count == 64,
      key.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
    else { return nil }
    return directory.appendingPathComponent(key + ".cache")
  }
}

extension Duration {
  /// The duration in seconds, with its fraction.
  var seconds: TimeInterval {
    TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
  }
}
