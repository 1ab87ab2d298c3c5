/// A container's place in a decode: the document it reads, the declared initial values of the
/// `LenientDecodable` it decodes, and its coding path as a linked list of frames, turned into
/// `[CodingKey]` only when throwing or reporting.
///
/// Every `DecodingPosition` holds the frame of the container its value sits in, so copying a
/// position retains one object rather than a document, a path and a dictionary (position copies
/// were a tenth of citm_catalog's decode). `KeyedContainer` is a frame itself: a keyed container
/// costs one allocation for container and path.
class ContainerFrame {
  final let parent: ContainerFrame?
  final let key: AnyCodingKey?
  /// The number of keys from the root.
  final let depth: Int
  final let document: JSONDocument
  /// The declared initial values, by key, of the `LenientDecodable` this container decodes.
  final let fallbacks: [String: Any]?

  /// The root of `document`.
  init(root document: JSONDocument) {
    parent = nil
    key = nil
    depth = 0
    self.document = document
    fallbacks = nil
  }

  /// The frame one key below `parent` (the same frame when `key` is nil), reading `document`.
  init(
    parent: ContainerFrame, key: AnyCodingKey?, document: JSONDocument,
    fallbacks: [String: Any]? = nil
  ) {
    self.parent = key == nil ? parent.parent : parent
    self.key = key ?? parent.key
    depth = key == nil ? parent.depth : parent.depth + 1
    self.document = document
    self.fallbacks = fallbacks
  }

  /// The frame below this one at `key`, in the same document.
  final func appending(_ key: AnyCodingKey) -> ContainerFrame {
    ContainerFrame(parent: self, key: key, document: document)
  }

  /// The frame below this one along `path`, in the same document.
  final func appending(path: JSONPath) -> ContainerFrame {
    path.components.reduce(self) { $0.appending(AnyCodingKey($1)) }
  }

  final var path: [any CodingKey] {
    var keys: [any CodingKey] = []
    var node: ContainerFrame? = self
    while let current = node, let key = current.key {
      keys.append(key)
      node = current.parent
    }
    return keys.reversed()
  }

  /// The path plus an optional last key.
  final func path(with key: (any CodingKey)?) -> [any CodingKey] {
    guard let key else { return path }
    return path + [key]
  }
}

/// Formats a coding path as `data.items[2].age` (empty for the root), as reports do.
package func formatCodingPath(_ path: [any CodingKey]) -> String {
  formatPath(
    path.map { key in
      if let index = AnyCodingKey.arrayIndex(of: key) { return .index(index) }
      return .key(key.stringValue)
    })
}
