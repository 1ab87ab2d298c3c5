import Foundation

/// A JSON value, for raw access in the style of SwiftyJSON or MoyaMapper's `fetchString`.
///
/// ```swift
/// let json = try JSON(data: body)
/// json["data.items.0.name"]?.stringValue   // "Ada"
/// json["error>errMsg"]                      // use JSONPath(_:separator:) for other separators
/// json["data"]?.rawText                      // compact JSON text of the subtree
/// ```
public enum JSON: Hashable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number, with its exact source text.
  case number(JSONNumber)
  /// A string.
  case string(String)
  /// An array.
  case array([JSON])
  /// An object, keys in source order.
  case object(JSONObject)

  /// Parses strict RFC 8259 JSON.
  ///
  /// Duplicate keys keep their first value, as Foundation's `JSONDecoder` does.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON text.
  ///   - maxDepth: the deepest nesting accepted; 512 by default. A `JSON` value is a tree that
  ///     Swift frees recursively, so values deeper than
  ///     `JSON.deepestValue` are refused whatever this says (see there).
  /// - Throws: `JSONReaderError` with the byte offset, line and column of the problem.
  public init(data: Data, maxDepth: Int = 512) throws {
    self = try JSONDocument.scanning(data, maxDepth: min(maxDepth, Self.deepestValue)) {
      try JSON(document: $0, index: 0)
    }
  }

  /// The deepest `JSON` value EnvelopeKit builds: 1,024 levels (Foundation's default limit is 512).
  ///
  /// Swift frees, compares and hashes an enum tree recursively, one stack frame per level,
  /// wherever the value ends up, on whatever thread. This bound keeps every such walk inside a
  /// 512 KB thread stack (the smallest a decode is promised to be safe on); deeper input throws
  /// `JSONReaderError` ("nesting deeper than 1024 levels") instead of crashing later.
  public static let deepestValue = 1_024

  /// Builds the value of the token at `index`, without recursion (the tree is as deep as the
  /// document allows).
  ///
  /// - Throws: `JSONReaderError` when the value nests deeper than `deepestValue`.
  init(document: JSONDocument, index root: Int) throws(JSONReaderError) {
    /// A container being filled: its elements or members so far and where it ends.
    struct Open {
      var elements: [JSON] = []
      var object: JSONObject?
      var key = ""
      let end: Int

      /// Adds a finished child; duplicate keys keep their first value.
      mutating func add(_ value: JSON) {
        if object == nil {
          elements.append(value)
        } else if object?[key] == nil {
          object?.append(key, value)
        }
      }

      /// The token of the next child's value, reading a member's key on the way.
      mutating func child(at index: Int, in document: JSONDocument) -> Int {
        guard object != nil else { return index }
        key = document.string(index)
        return index + 1
      }

      var value: JSON { object.map(JSON.object) ?? .array(elements) }
    }
    var open: [Open] = []
    var index = root
    while true {
      var value: JSON
      var after = document.next(index)
      switch document.kind(index) {
      case .null: value = .null
      case .true: value = .bool(true)
      case .false: value = .bool(false)
      case .number: value = .number(JSONNumber(validated: document.rawText(index)))
      case .string: value = .string(document.string(index))
      case .array, .object:
        let isObject = document.kind(index) == .object
        guard document.count(index) > 0 else {
          value = isObject ? .object(JSONObject()) : .array([])
          break
        }
        guard open.count < Self.deepestValue else {
          throw document.error(.tooDeep(limit: Self.deepestValue), at: index)
        }
        var container = Open(object: isObject ? JSONObject() : nil, end: after)
        if !isObject { container.elements.reserveCapacity(document.count(index)) }
        index = container.child(at: index + 1, in: document)
        open.append(container)
        continue
      }
      // Hand the value to its container, closing every container it completes.
      while let last = open.indices.last {
        open[last].add(value)
        if after < open[last].end {
          index = open[last].child(at: after, in: document)
          break
        }
        let closed = open.removeLast()
        value = closed.value
        after = closed.end
      }
      if open.isEmpty {
        self = value
        return
      }
    }
  }

  /// The value at `path`, or nil when a step is missing or of the wrong kind.
  ///
  /// - Parameter path: e.g. `"data.items.0.name"`.
  public subscript(path: JSONPath) -> JSON? {
    var current = self
    for component in path.components {
      switch (component, current) {
      case (_, .object(let object)):
        guard let value = object[component.memberName] else { return nil }
        current = value
      case (.index(let index), .array(let elements)):
        guard index >= 0, index < elements.count else { return nil }
        current = elements[index]
      default:
        return nil
      }
    }
    return current
  }

  /// Strings as themselves, numbers as their source text, bools as `true`/`false`; else nil.
  public var stringValue: String? {
    switch self {
    case .string(let string): return string
    case .number(let number): return number.text
    case .bool(let bool): return bool ? "true" : "false"
    case .null, .array, .object: return nil
    }
  }

  /// The number, if this is one.
  public var numberValue: JSONNumber? {
    if case .number(let number) = self { return number }
    return nil
  }

  /// The bool, if this is one.
  public var boolValue: Bool? {
    if case .bool(let bool) = self { return bool }
    return nil
  }

  /// The elements, if this is an array.
  public var arrayValue: [JSON]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// The object, if this is one.
  public var objectValue: JSONObject? {
    if case .object(let object) = self { return object }
    return nil
  }

  /// Whether this is `null`.
  public var isNull: Bool { self == .null }

  /// Compact JSON text of this value: no whitespace, keys in source order, numbers as written.
  ///
  /// Written by EnvelopeKit's one JSON writer, escaped as `JSONEncoder` escapes with
  /// `.withoutEscapingSlashes`, without recursion (a value may be `deepestValue` levels deep).
  public var rawText: String { text(pretty: false, sortedKeys: false) }

  /// The text of this value through the one writer.
  package func text(pretty: Bool, sortedKeys: Bool) -> String {
    let tree = EncodedTree(escapesSlashes: false)
    tree.appendJSON(self, into: 0, depth: 1)
    let writer = JSONWriter(
      pretty: pretty, sortedKeys: sortedKeys, deduplicatesKeys: false, depthLimit: .max)
    // No depth limit: the writer cannot refuse.
    return (try? writer.string(tree)) ?? ""
  }

  /// Equal when of the same kind with equal contents: numbers by their text, objects by keys
  /// and values in order. Compared without recursion.
  public static func == (lhs: JSON, rhs: JSON) -> Bool {
    var pending: [(JSON, JSON)] = [(lhs, rhs)]
    while let (left, right) = pending.popLast() {
      switch (left, right) {
      case (.null, .null): continue
      case (.bool(let a), .bool(let b)): guard a == b else { return false }
      case (.number(let a), .number(let b)): guard a == b else { return false }
      case (.string(let a), .string(let b)): guard a == b else { return false }
      case (.array(let a), .array(let b)):
        guard a.count == b.count else { return false }
        pending.append(contentsOf: zip(a, b))
      case (.object(let a), .object(let b)):
        guard a.keys == b.keys else { return false }
        pending.append(contentsOf: zip(a.values, b.values))
      default: return false
      }
    }
    return true
  }

  /// Hashes the kind and contents of the first `hashedLevels` levels: equal values hash
  /// equally, and hashing stays within a small stack whatever the depth.
  public func hash(into hasher: inout Hasher) {
    hash(into: &hasher, levels: Self.hashedLevels)
  }

  private static let hashedLevels = 8

  private func hash(into hasher: inout Hasher, levels: Int) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let bool): hasher.combine(bool)
    case .number(let number): hasher.combine(number)
    case .string(let string): hasher.combine(string)
    case .array(let elements):
      hasher.combine(elements.count)
      guard levels > 0 else { return }
      for element in elements { element.hash(into: &hasher, levels: levels - 1) }
    case .object(let object):
      hasher.combine(object.keys)
      guard levels > 0 else { return }
      for value in object.values { value.hash(into: &hasher, levels: levels - 1) }
    }
  }
}

/// Appends `string` as a JSON string literal.
/// A JSON object that keeps its keys in source order.
public struct JSONObject: Hashable, Sendable, Sequence {
  /// The keys in source order.
  public private(set) var keys: [String] = []
  /// The values, parallel to `keys`.
  public private(set) var values: [JSON] = []
  /// The position of each key's first occurrence, so lookups stay O(1) in large objects.
  private var positions: [String: Int] = [:]

  /// Creates an empty object.
  public init() {}

  /// The number of members.
  public var count: Int { keys.count }

  /// The value for `key` (its first occurrence), or nil.
  ///
  /// - Parameter key: the member name.
  public subscript(key: String) -> JSON? {
    guard let position = positions[key] else { return nil }
    return values[position]
  }

  /// Adds a member at the end.
  ///
  /// - Parameters:
  ///   - key: the member name.
  ///   - value: its value.
  public mutating func append(_ key: String, _ value: JSON) {
    if positions[key] == nil { positions[key] = keys.count }
    keys.append(key)
    values.append(value)
  }

  /// Iterates members in source order.
  public func makeIterator() -> Zip2Sequence<[String], [JSON]>.Iterator {
    zip(keys, values).makeIterator()
  }

  /// Equal when keys and values are equal in order.
  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    JSON.object(lhs) == JSON.object(rhs)
  }

  /// Hashes keys and values in order (values as `JSON.hash(into:)` does).
  public func hash(into hasher: inout Hasher) {
    JSON.object(self).hash(into: &hasher)
  }
}
