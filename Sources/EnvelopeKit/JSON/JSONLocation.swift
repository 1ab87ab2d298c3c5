import Foundation

/// Where a value sits in a JSON text, for messages that point at it: its kind, a short snippet
/// of its source, and its line and column.
package struct JSONLocation: Equatable, Sendable {
  /// `string`, `number`, `object`, `array`, `bool` or `null`.
  package var kind: String
  /// The value's source text, cut at 40 characters.
  package var snippet: String
  /// The byte offset of the value's first byte.
  package var offset: Int
  /// 1-based line.
  package var line: Int
  /// 1-based column, in bytes.
  package var column: Int
  /// How many steps of the requested path were found (all of them, unless a key is missing).
  package var depth: Int

  /// `string "18" at line 4, column 11`; `null at line 2, column 9`.
  package var description: String {
    (kind == "null" ? kind : "\(kind) \(snippet)") + " at line \(line), column \(column)"
  }

  /// Follows a coding path through `data` as far as it goes.
  ///
  /// - Parameters:
  ///   - path: keys by `stringValue` in objects, `intValue` in arrays.
  ///   - data: the JSON text.
  ///   - prefix: object keys leading to where `path` starts, e.g. `["response", "body"]`.
  /// - Returns: the deepest value reached, or nil when `data` is not JSON or `prefix` is missing.
  package static func locate(
    _ path: [any CodingKey], in data: Data, under prefix: [String] = []
  ) -> JSONLocation? {
    guard let document = try? JSONDocument(data: data, maxDepth: 10_000),
      var index = document.index(at: JSONPath(prefix.map { .key($0) }))
    else { return nil }
    var depth = 0
    for key in path {
      // An array element's key is its `intValue`; anything else is looked up by name.
      let component: JSONPath.Component? =
        document.kind(index) == .array ? key.intValue.map { .index($0) } : .key(key.stringValue)
      guard let found = component.flatMap({ document.child($0, of: index) }) else { break }
      index = found
      depth += 1
    }
    return document.location(of: index, depth: depth)
  }
}

extension JSONDocument {
  fileprivate func location(of index: Int, depth: Int) -> JSONLocation {
    let token = tokens[index]
    var start = Int(token.start)
    var end = Int(token.end)
    if token.kind == .string {
      // The quotes too.
      start -= 1
      end += 1
    }
    let text = String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
    let snippet = messageSnippet(text)
    let kind = token.kind.name
    let (line, column) = JSONReaderError.lineAndColumn(of: start, in: bytes)
    return JSONLocation(
      kind: kind, snippet: snippet, offset: start, line: line, column: column, depth: depth)
  }
}
