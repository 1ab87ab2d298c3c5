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
    } else if let index = Self.arrayIndex(of: key) {
      storage = .index(index)
    } else {
      storage = .name(key.stringValue)
    }
  }

  /// A key of a concrete type, without the dynamic cast of `init(_: any CodingKey)`.
  @inline(__always)
  init<Key: CodingKey>(key: Key) {
    if let index = Self.arrayIndex(of: key) {
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

  /// The index when `key` is an array index (an `intValue` spelled "Index n", as Foundation
  /// spells them); nil for an object key, even one with an `intValue` (`[Int: T]` keys). The one
  /// place this question is answered.
  @inline(__always)
  static func arrayIndex<Key: CodingKey>(of key: Key) -> Int? {
    guard let index = key.intValue, key.stringValue == "Index \(index)" else { return nil }
    return index
  }

  /// The key for the dictionary decoding of `superDecoder()`.
  static let `super` = AnyCodingKey(stringValue: "super")
}
