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
  ///   - maxDepth: the deepest nesting accepted; 512 by default.
  /// - Throws: `JSONReaderError` with the byte offset, line and column of the problem.
  public init(data: Data, maxDepth: Int = 512) throws {
    self = try JSONDocument.scanning(data, maxDepth: maxDepth) { JSON(document: $0, index: 0) }
  }

  /// Builds the value of the token at `index`.
  init(document: JSONDocument, index: Int) {
    switch document.kind(index) {
    case .null: self = .null
    case .true: self = .bool(true)
    case .false: self = .bool(false)
    case .number: self = .number(JSONNumber(validated: document.rawText(index)))
    case .string: self = .string(document.string(index))
    case .array:
      var elements: [JSON] = []
      elements.reserveCapacity(document.count(index))
      var child = index + 1
      let end = document.next(index)
      while child < end {
        elements.append(JSON(document: document, index: child))
        child = document.next(child)
      }
      self = .array(elements)
    case .object:
      var object = JSONObject()
      var child = index + 1
      let end = document.next(index)
      while child < end {
        let key = document.string(child)
        if object[key] == nil {
          object.append(key, JSON(document: document, index: child + 1))
        }
        child = document.next(child + 1)
      }
      self = .object(object)
    }
  }

  /// The value at `path`, or nil when a step is missing or of the wrong kind.
  ///
  /// - Parameter path: e.g. `"data.items.0.name"`.
  public subscript(path: JSONPath) -> JSON? {
    var current = self
    for component in path.components {
      switch (component, current) {
      case (.key(let key), .object(let object)):
        guard let value = object[key] else { return nil }
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
  public var rawText: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let bool): output += bool ? "true" : "false"
    case .number(let number): output += number.text
    case .string(let string): writeEscaped(string, to: &output)
    case .array(let elements):
      output += "["
      for (position, element) in elements.enumerated() {
        if position > 0 { output += "," }
        element.write(to: &output)
      }
      output += "]"
    case .object(let object):
      output += "{"
      for (position, key) in object.keys.enumerated() {
        if position > 0 { output += "," }
        writeEscaped(key, to: &output)
        output += ":"
        object.values[position].write(to: &output)
      }
      output += "}"
    }
  }
}

/// Appends `string` as a JSON string literal.
func writeEscaped(_ string: String, to output: inout String) {
  output += "\""
  for scalar in string.unicodeScalars {
    switch scalar {
    case "\"": output += "\\\""
    case "\\": output += "\\\\"
    case "\n": output += "\\n"
    case "\r": output += "\\r"
    case "\t": output += "\\t"
    case "\u{08}": output += "\\b"
    case "\u{0C}": output += "\\f"
    case "\u{00}"..."\u{1F}":
      let hex = String(scalar.value, radix: 16)
      output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: output.unicodeScalars.append(scalar)
    }
  }
  output += "\""
}

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
    lhs.keys == rhs.keys && lhs.values == rhs.values
  }

  /// Hashes keys and values in order.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(keys)
    hasher.combine(values)
  }
}
