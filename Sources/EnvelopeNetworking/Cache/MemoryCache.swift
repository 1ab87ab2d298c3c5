import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `ResponseCache` in memory, evicting the least recently used entries past a count or a
/// byte limit. Safe to share between tasks.
///
/// ```swift
/// let memory = MemoryCache(countLimit: 200, byteLimit: 20 << 20)
/// try await memory.set(profile, forKey: "profile")      // plain values too
/// let cached: Profile? = await memory.value(Profile.self, forKey: "profile")
/// ```
///
/// `@unchecked Sendable`: every access to `entries`, `order` and `bytes` holds `lock`.
public final class MemoryCache: ResponseCache, @unchecked Sendable {
  /// The most entries kept.
  public let countLimit: Int
  /// The most body bytes kept.
  public let byteLimit: Int
  private let lock = NSLock()
  private var entries: [String: CachedResponse] = [:]
  /// Keys from least to most recently used.
  private var order = LRUOrder()
  private var bytes = 0

  /// Creates an empty cache.
  ///
  /// - Parameters:
  ///   - countLimit: the most entries; 100 by default.
  ///   - byteLimit: the most body bytes; 10 MB by default.
  public init(countLimit: Int = 100, byteLimit: Int = 10 << 20) {
    self.countLimit = countLimit
    self.byteLimit = byteLimit
  }

  /// The entry under `key`, marked as just used; nil when there is none.
  ///
  /// - Parameter key: the entry's key.
  /// - Returns: the entry.
  public func cachedResponse(forKey key: String) async -> CachedResponse? {
    lock.withLock {
      guard let entry = entries[key] else { return nil }
      order.touch(key)
      return entry
    }
  }

  /// Stores `response` (without `Set-Cookie`, secret headers redacted) and evicts past the
  /// limits. A body larger than `byteLimit` is not kept.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - key: the entry's key.
  /// - Throws: nothing; the signature is `ResponseCache`'s.
  public func store(_ response: Response, forKey key: String) async throws {
    var stored = CachePartition.storable(response)
    stored.isFromCache = true
    let entry = CachedResponse(response: stored, storedAt: Date())
    lock.withLock {
      remove(key)
      guard stored.data.count <= byteLimit, countLimit > 0 else { return }
      entries[key] = entry
      bytes += stored.data.count
      order.touch(key)
      while entries.count > countLimit || bytes > byteLimit, let oldest = order.oldest {
        remove(oldest)
      }
    }
  }

  /// Removes the entry under `key`, if any.
  ///
  /// - Parameter key: the entry's key.
  public func removeResponse(forKey key: String) {
    lock.withLock { remove(key) }
  }

  /// How many entries are kept.
  public var count: Int { lock.withLock { entries.count } }
  /// The body bytes kept.
  public var totalBytes: Int { lock.withLock { bytes } }

  /// Deletes every entry.
  public func removeAll() {
    lock.withLock {
      entries = [:]
      order = LRUOrder()
      bytes = 0
    }
  }

  /// Called with `lock` held.
  private func remove(_ key: String) {
    guard let old = entries.removeValue(forKey: key) else { return }
    bytes -= old.response.data.count
    order.remove(key)
  }
}

/// Keys in order of use: a doubly linked list threaded through a dictionary, O(1) per step.
struct LRUOrder {
  private var links: [String: (previous: String?, next: String?)] = [:]
  private var head: String?  // least recently used
  private var tail: String?  // most recently used

  var oldest: String? { head }

  /// Moves (or adds) `key` to the most recent end.
  mutating func touch(_ key: String) {
    remove(key)
    links[key] = (tail, nil)
    if let tail { links[tail]?.next = key } else { head = key }
    tail = key
  }

  mutating func remove(_ key: String) {
    guard let link = links.removeValue(forKey: key) else { return }
    if let previous = link.previous { links[previous]?.next = link.next } else { head = link.next }
    if let next = link.next { links[next]?.previous = link.previous } else { tail = link.previous }
  }
}
