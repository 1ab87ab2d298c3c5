/// A path into a JSON document.
///
/// Written as text, components are separated by dots and an all-digit component indexes an
/// array: `"data.items.0.name"`. Where it meets an object, an index names the member of that
/// name, as in a JSON Pointer (RFC 6901): `"data.users.18"` reads `{"users": {"18": …}}`
/// (`memberName`); digits with a leading zero (`"007"`) are a key. A MoyaMapper path pasted as
/// written works too: text with no `.` but a `>` is split on `>` (`"data>list"`), so one rule
/// serves every place a path is taken (`at:`, `inData:`, `decodeEnvelope(at:)`,
/// `map(_:key:to:)`, envelope formats, the `envelope` command). A key that itself holds `.` or `>` is written as a component:
/// `["data", "a.b", 0]`, `["a>b"]`; `JSONPath(text, separator:)` names the separator outright.
/// The empty path is the document root.
public struct JSONPath: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
  CustomStringConvertible
{
  /// One step of a path: an object key or an array index.
  public enum Component: Hashable, Sendable, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, CustomStringConvertible
  {
    /// An object member.
    case key(String)
    /// An array element, from 0.
    case index(Int)

    /// Creates a key component.
    ///
    /// - Parameter value: the key.
    public init(stringLiteral value: String) { self = .key(value) }

    /// Creates an index component.
    ///
    /// - Parameter value: the index.
    public init(integerLiteral value: Int) { self = .index(value) }

    /// The member this component names in an object: the key, or an index's digits (an
    /// all-digit path component reads an object's member of that name, as in RFC 6901).
    public var memberName: String {
      switch self {
      case .key(let key): return key
      case .index(let index): return String(index)
      }
    }

    /// The key, or the index in brackets.
    public var description: String {
      switch self {
      case .key(let key): return key
      case .index(let index): return "[\(index)]"
      }
    }
  }

  /// The steps from the root.
  public var components: [Component]

  /// Parses a textual path.
  ///
  /// - Parameters:
  ///   - string: components joined by `separator`; all-digit components are array indexes.
  ///   - separator: the character between components; nil for the rule: `.`, or `>` when the
  ///     text has a `>` and no `.`.
  public init(_ string: String, separator: Character? = nil) {
    let separator =
      separator ?? (string.contains(">") && !string.contains(".") ? ">" : ".")
    guard !string.isEmpty else {
      components = []
      return
    }
    components = string.split(separator: separator, omittingEmptySubsequences: false).map {
      part in
      // "007" is a key, never the index 7: an index component stands for its digits' text
      // where it names an object's member, and 7 is not "007".
      if !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }),
        part.count == 1 || part.first != "0", let index = Int(part)
      {
        return .index(index)
      }
      return .key(String(part))
    }
  }

  /// Creates a path from explicit components.
  ///
  /// - Parameter components: the steps from the root.
  public init(_ components: [Component]) {
    self.components = components
  }

  /// Parses a textual path: split on `.`, or on `>` when the text has a `>` and no `.`.
  ///
  /// - Parameter value: the path text.
  public init(stringLiteral value: String) {
    self.init(value)
  }

  /// Creates a path from components.
  ///
  /// - Parameter elements: the steps from the root.
  public init(arrayLiteral elements: Component...) {
    self.init(elements)
  }

  /// The root of the document.
  public static let root = JSONPath([Component]())

  /// Whether this is the root path.
  public var isEmpty: Bool { components.isEmpty }

  /// The path in report style: `data.items[2].name`.
  public var description: String {
    components.isEmpty ? "<root>" : formatPath(components)
  }

  /// This path followed by `other`.
  ///
  /// - Parameter other: the path to append.
  /// - Returns: the joined path.
  public func appending(_ other: JSONPath) -> JSONPath {
    // No new array when either is empty (an envelope's data with no path inside it).
    if other.components.isEmpty { return self }
    if components.isEmpty { return other }
    return JSONPath(components + other.components)
  }
}

/// Formats steps as `data.items[2].name`.
func formatPath(_ components: [JSONPath.Component]) -> String {
  var text = ""
  for component in components {
    switch component {
    case .key(let key):
      if !text.isEmpty { text += "." }
      text += key
    case .index(let index):
      text += "[\(index)]"
    }
  }
  return text
}

/// Reads back a path `formatPath` wrote: `data.items[2].name` → `data`, `items`, 2, `name`.
/// A key that itself holds `.` or `[n]` reads back split (report paths do not escape them).
package func parseReportPath(_ text: String) -> [JSONPath.Component] {
  guard !text.isEmpty, text != "<root>" else { return [] }
  var components: [JSONPath.Component] = []
  for part in text.split(separator: ".", omittingEmptySubsequences: false) {
    var rest = Substring(part)
    var indexes: [Int] = []
    // Trailing `[n]` groups are indexes; what precedes them is the key.
    while rest.hasSuffix("]"), let open = rest.lastIndex(of: "["),
      let position = Int(rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]),
      position >= 0
    {
      indexes.insert(position, at: 0)
      rest = rest[..<open]
    }
    if !rest.isEmpty || indexes.isEmpty { components.append(.key(String(rest))) }
    components += indexes.map { .index($0) }
  }
  return components
}
