import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Memory in front of disk: reads memory, then disk (promoting a disk hit into memory); writes
/// both.
///
/// ```swift
/// let cache = HybridCache(memory: MemoryCache(), disk: try DiskCache(directory: folder))
/// let provider = Provider<API>(cache: cache)
/// ```
public final class HybridCache: ResponseCache {
  /// The fast layer.
  public let memory: MemoryCache
  /// The lasting layer.
  public let disk: DiskCache

  /// Creates a cache over two layers.
  ///
  /// - Parameters:
  ///   - memory: the memory layer.
  ///   - disk: the disk layer.
  public init(memory: MemoryCache, disk: DiskCache) {
    self.memory = memory
    self.disk = disk
  }

  /// The memory entry, else the disk entry (then kept in memory too).
  ///
  /// - Parameter key: the entry's key.
  /// - Returns: the entry, or nil.
  public func cachedResponse(forKey key: String) async -> CachedResponse? {
    if let hit = await memory.cachedResponse(forKey: key) { return hit }
    guard let hit = await disk.cachedResponse(forKey: key) else { return nil }
    try? await memory.store(hit.response, forKey: key)
    return hit
  }

  /// Stores in both layers.
  ///
  /// - Parameters:
  ///   - response: the response.
  ///   - key: the entry's key.
  /// - Throws: when the disk write fails (the memory layer has the entry anyway).
  public func store(_ response: Response, forKey key: String) async throws {
    try await memory.store(response, forKey: key)
    try await disk.store(response, forKey: key)
  }

  /// Removes the entry from both layers.
  ///
  /// - Parameter key: the entry's key.
  /// - Throws: when the disk entry cannot be removed (the memory entry is gone anyway).
  public func removeResponse(forKey key: String) throws {
    memory.removeResponse(forKey: key)
    try disk.removeResponse(forKey: key)
  }

  /// Removes every entry from both layers.
  ///
  /// - Throws: when a disk entry cannot be removed.
  public func removeAll() throws {
    memory.removeAll()
    try disk.removeAll()
  }
}
