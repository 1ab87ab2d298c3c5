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
  ///   - keys: the decoder's key strategy: a model's key (`userId`) is found under the JSON key
  ///     the decoder reads for it (`user_id` with `.convertFromSnakeCase`), the first
  ///     occurrence winning as in decoding.
  ///   - rawSteps: how many leading steps are JSON keys as written (an envelope's data path,
  ///     an `at:` path), never converted.
  /// - Returns: the deepest value reached, or nil when `data` is not JSON or `prefix` is missing.
  package static func locate(
    _ path: [any CodingKey], in data: Data, under prefix: [String] = [],
    keys: LenientDecoder.KeyDecodingStrategy = .useDefaultKeys, rawSteps: Int = 0
  ) -> JSONLocation? {
    guard let document = try? JSONDocument(data: data, maxDepth: 10_000),
      var index = document.index(at: JSONPath(prefix.map { .key($0) }))
    else { return nil }
    var depth = 0
    for (step, key) in path.enumerated() {
      let found: Int?
      switch document.kind(index) {
      case .array:
        found = key.intValue.flatMap { document.child(.index($0), of: index) }
      case .object:
        if step >= rawSteps, let convert = keys.conversion(at: Array(path[..<step])) {
          found =
            document.members(of: index).first {
              convert(document.string($0.key)) == key.stringValue
            }?.value
        } else {
          found = document.child(.key(key.stringValue), of: index)
        }
      default:
        found = nil
      }
      guard let found else { break }
      index = found
      depth += 1
    }
    return document.location(of: index, depth: depth)
  }

  /// Follows a report path (`data.list[2].id`, as `DecodingReport` writes it) as `locate` does.
  package static func locate(
    reportPath: String, in data: Data, under prefix: [String] = [],
    keys: LenientDecoder.KeyDecodingStrategy = .useDefaultKeys, rawSteps: Int = 0
  ) -> JSONLocation? {
    locate(
      parseReportPath(reportPath).map(AnyCodingKey.init), in: data, under: prefix, keys: keys,
      rawSteps: rawSteps)
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
