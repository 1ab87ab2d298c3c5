import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `ResponseCache` on disk: one file per entry, written atomically, kept across launches, and
/// the least recently used entries evicted past `byteLimit`.
///
/// Each file is a line of JSON metadata (status, headers, URL, body length, time stored) and the
/// body bytes. A file that cannot be read back, or whose body is not as long as its metadata
/// says (a truncated write), is a miss and is removed.
///
/// ```swift
/// let cache = try DiskCache(directory: .cachesDirectory.appending(path: "api"))
/// let provider = Provider<API>(cache: cache)   // targets opt in with `cachePolicy`
/// ```
public final class DiskCache: ResponseCache {
  /// The folder the entries live in.
  public let directory: URL
  /// The most bytes the entries may take; past it the least recently used are removed.
  public let byteLimit: Int
  /// Serialises writes and eviction; reads need no lock (files are replaced atomically).
  private let lock = NSLock()

  /// Opens (and creates when needed) a cache folder.
  ///
  /// - Parameters:
  ///   - directory: the folder.
  ///   - byteLimit: the most bytes kept; 50 MB by default.
  /// - Throws: when the folder cannot be created.
  public init(directory: URL, byteLimit: Int = 50 << 20) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.directory = directory
    self.byteLimit = byteLimit
  }

  /// The entry stored under `key`, or nil; a hit counts as a use for eviction.
  ///
  /// - Parameter key: the entry's key.
  /// - Returns: the entry (its `request` is nil), or nil when there is none or it is unreadable.
  public func cachedResponse(forKey key: String) async -> CachedResponse? {
    guard let file = self.file(forKey: key) else { return nil }
    guard let contents = FileManager.default.contents(atPath: file.path) else { return nil }
    guard let entry = Self.entry(contents) else {
      try? FileManager.default.removeItem(at: file)
      return nil
    }
    try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    return entry
  }

  /// Stores `response` under `key` atomically, then evicts the least recently used entries
  /// past the byte limit. The metadata is made by `CachePartition`: no `Set-Cookie`, secret
  /// headers and query items redacted, by the names of the response's `redaction` (a
  /// provider's response carries the provider's names; a response you make, the defaults
  /// unless you set it).
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - key: the entry's key (64 hex digits).
  /// - Throws: when the key is not 64 hex digits or the file cannot be written.
  public func store(_ response: Response, forKey key: String) async throws {
    guard let file = file(forKey: key) else { throw CocoaError(.fileWriteInvalidFileName) }
    let redaction = response.redaction
    let stored = CachePartition.storable(response, redaction: redaction)
    let meta = EntryMeta(
      status: stored.statusCode, headers: stored.headers,
      url: redaction.url(stored.request?.url), bodyLength: response.data.count,
      storedAt: Date().timeIntervalSince1970)
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    var contents = try encoder.encode(meta)
    contents.append(UInt8(ascii: "\n"))
    contents.append(response.data)
    try lock.withLock {
      try contents.write(to: file, options: .atomic)
      try evict()
    }
  }

  /// Deletes the entry under `key`, if any.
  ///
  /// - Parameter key: the entry's key.
  /// - Throws: when the file exists and cannot be removed.
  public func removeResponse(forKey key: String) throws {
    guard let file = file(forKey: key) else { return }
    try lock.withLock {
      guard FileManager.default.fileExists(atPath: file.path) else { return }
      try FileManager.default.removeItem(at: file)
    }
  }

  /// Deletes every entry.
  ///
  /// - Throws: when a file cannot be removed.
  public func removeAll() throws {
    try lock.withLock {
      for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
      where name.hasSuffix(".cache") {
        try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
      }
    }
  }

  /// The bytes the entries take now.
  public var totalBytes: Int {
    (try? entries().reduce(0) { $0 + $1.size }) ?? 0
  }

  // MARK: - Files

  /// Removes the least recently used entries until the rest fit the limit. Called with `lock`.
  private func evict() throws {
    var files = try entries()
    var total = files.reduce(0) { $0 + $1.size }
    guard total > byteLimit else { return }
    files.sort { $0.used < $1.used }
    for file in files where total > byteLimit {
      try? FileManager.default.removeItem(at: file.url)
      total -= file.size
    }
  }

  private func entries() throws -> [(url: URL, size: Int, used: Date)] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name in
      guard name.hasSuffix(".cache") else { return nil }
      let url = directory.appendingPathComponent(name)
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else {
        return nil  // removed meanwhile
      }
      let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
      return (url, size, attributes[.modificationDate] as? Date ?? .distantPast)
    }
  }

  /// An entry from a file's contents; nil when the metadata is unreadable or the body's length
  /// is not the one recorded.
  private static func entry(_ contents: Data) -> CachedResponse? {
    guard let newline = contents.firstIndex(of: UInt8(ascii: "\n")),
      let meta = try? LenientDecoder(policy: .strict).decode(
        EntryMeta.self, from: Data(contents[..<newline]))
    else { return nil }
    let body = Data(contents[contents.index(after: newline)...])
    guard body.count == meta.bodyLength else { return nil }
    let response = Response(
      statusCode: meta.status, headers: meta.headers, data: body, request: nil, isFromCache: true)
    return CachedResponse(
      response: response, storedAt: Date(timeIntervalSince1970: meta.storedAt))
  }

  /// The file of a key; nil unless the key is 64 hex digits (so no key names another path).
  private func file(forKey key: String) -> URL? {
    guard key.utf8.count == 64,
      key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
    else { return nil }
    return directory.appendingPathComponent(key + ".cache")
  }
}

/// The first line of an entry's file: what the response was, without its body.
private struct EntryMeta: Codable {
  var status: Int
  var headers: [String: String]
  var url: String?
  var bodyLength: Int
  var storedAt: Double
}
