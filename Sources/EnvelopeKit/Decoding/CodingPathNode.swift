/// A `CodingKey` for dynamic keys and array indexes.
///
/// An index key spells its `stringValue` ("Index 3", as Foundation does) only when asked, so
/// stepping through an array allocates nothing.
struct AnyCodingKey: CodingKey, Hashable, Sendable {
  /// One case per kind keeps the key within an existential's inline buffer (no box).
  private enum Storage: Hashable, Sendable {
    case name(String)
    case index(Int)
  }
  private let storage: Storage

  var stringValue: String {
    switch storage {
    case .name(let name): return name
    case .index(let index): return "Index \(index)"
    }
  }

  var intValue: Int? {
    if case .index(let index) = storage { return index }
    return nil
  }

  init(stringValue: String) {
    storage = .name(stringValue)
  }

  init(intValue: Int) {
    storage = .index(intValue)
  }

  init(_ key: any CodingKey) {
    if let key = key as? AnyCodingKey {
      self = key
    } else if let index = key.intValue, key.stringValue == "Index \(index)" {
      storage = .index(index)
    } else {
      storage = .name(key.stringValue)
    }
  }

  /// A key of a concrete type, without the dynamic cast of `init(_: any CodingKey)`.
  @inline(__always)
  init<Key: CodingKey>(key: Key) {
    if let index = key.intValue, key.stringValue == "Index \(index)" {
      storage = .index(index)
    } else {
      storage = .name(key.stringValue)
    }
  }

  init(_ component: JSONPath.Component) {
    switch component {
    case .key(let key): self.init(stringValue: key)
    case .index(let index): self.init(intValue: index)
    }
  }

  /// The key for the dictionary decoding of `superDecoder()`.
  static let `super` = AnyCodingKey(stringValue: "super")
}

/// The coding path as a linked list, turned into `[CodingKey]` only when throwing or reporting.
final class CodingPathNode: Sendable {
  let parent: CodingPathNode?
  let key: AnyCodingKey?
  /// The number of keys from the root.
  let depth: Int

  static let root = CodingPathNode(parent: nil, key: nil)

  private init(parent: CodingPathNode?, key: AnyCodingKey?) {
    self.parent = parent
    self.key = key
    depth = parent.map { $0.depth + 1 } ?? 0
  }

  func appending(_ key: any CodingKey) -> CodingPathNode {
    CodingPathNode(parent: self, key: AnyCodingKey(key))
  }

  func appending(_ key: AnyCodingKey) -> CodingPathNode {
    CodingPathNode(parent: self, key: key)
  }

  func appending(_ key: AnyCodingKey?) -> CodingPathNode {
    guard let key else { return self }
    return CodingPathNode(parent: self, key: key)
  }

  var path: [any CodingKey] {
    var keys: [any CodingKey] = []
    var node: CodingPathNode? = self
    while let current = node, let key = current.key {
      keys.append(key)
      node = current.parent
    }
    return keys.reversed()
  }

  /// The path plus an optional last key.
  func path(with key: (any CodingKey)?) -> [any CodingKey] {
    guard let key else { return path }
    return path + [key]
  }
}

/// Formats a coding path as `data.items[2].age` (empty for the root), as reports do.
package func formatCodingPath(_ path: [any CodingKey]) -> String {
  formatPath(
    path.map { key in
      if let index = key.intValue, key.stringValue == "Index \(index)" { return .index(index) }
      return .key(key.stringValue)
    })
}
