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
public protocol ResponseCache: Sendable {
  /// The entry stored for `request`, or nil.
  ///
  /// - Parameter request: the prepared request (method, URL and `Authorization` form the key).
  /// - Returns: the entry, or nil.
  func cachedResponse(for request: URLRequest) async -> CachedResponse?
  /// Stores `response` for `request`, replacing any older entry.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - request: the prepared request.
  /// - Throws: when the entry cannot be written.
  func store(_ response: Response, for request: URLRequest) async throws
}

extension ResponseCache {
  /// The cache key of a request: method, URL and the `Authorization` value (so that two users
  /// never share an entry), hashed.
  ///
  /// - Parameter request: the request.
  /// - Returns: 64 hex digits.
  public func key(for request: URLRequest) -> String {
    let parts = [
      request.httpMethod ?? "GET", request.url?.absoluteString ?? "",
      request.value(forHTTPHeaderField: "Authorization") ?? "",
    ]
    return SHA256.hex(Data(parts.joined(separator: "\n").utf8))
  }
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

  /// The entry stored for `request`, or nil.
  ///
  /// - Parameter request: the prepared request.
  /// - Returns: the entry, or nil when there is none or it is unreadable.
  public func cachedResponse(for request: URLRequest) async -> CachedResponse? {
    let file = self.file(for: request)
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
      statusCode: status, headers: headers, data: body, request: request, isFromCache: true)
    return CachedResponse(response: response, storedAt: Date(timeIntervalSince1970: storedAt))
  }

  /// Stores `response` for `request` atomically.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - request: the prepared request.
  /// - Throws: when the file cannot be written.
  public func store(_ response: Response, for request: URLRequest) async throws {
    let meta: [String: Any] = [
      "status": response.statusCode, "headers": response.headers,
      "url": request.url?.absoluteString ?? "", "storedAt": Date().timeIntervalSince1970,
    ]
    var contents = try JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys])
    contents.append(UInt8(ascii: "\n"))
    contents.append(response.data)
    try contents.write(to: file(for: request), options: .atomic)
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

  private func file(for request: URLRequest) -> URL {
    directory.appendingPathComponent(key(for: request) + ".cache")
  }
}

extension Duration {
  /// The duration in seconds, with its fraction.
  var seconds: TimeInterval {
    TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
  }
}
