extension JSON {
  /// Indented JSON text for files people read and diff, laid out as `JSONEncoder`'s
  /// `.prettyPrinted` (two spaces per level, `" : "` after keys) by EnvelopeKit's one writer.
  ///
  /// Numbers keep their source text, so nothing is rounded. With `sortedKeys` object keys are
  /// in UTF-8 byte order (`JSONEncoder`'s `.sortedKeys`), so the same value always prints the
  /// same way. Slashes are not escaped.
  ///
  /// - Parameter sortedKeys: sort object keys (default) or keep source order.
  /// - Returns: the text, without a trailing newline.
  public func prettyText(sortedKeys: Bool = true) -> String {
    text(pretty: true, sortedKeys: sortedKeys)
  }
}

extension JSON {
  /// The kind's name: `null`, `bool`, `number`, `string`, `array`, `object`.
  package var kindName: String { kind.name }

  /// The kind of this value, as the reader's tokens name kinds.
  var kind: JSONToken.Kind {
    switch self {
    case .null: .null
    case .bool(let bool): bool ? .true : .false
    case .number: .number
    case .string: .string
    case .array: .array
    case .object: .object
    }
  }

  /// The compact text, cut as every message cuts what it shows (`messageSnippet`).
  ///
  /// - Parameter limit: the most characters kept.
  /// - Returns: e.g. `{"a":1}` or `"a long str…`.
  package func snippet(limit: Int = 40) -> String {
    messageSnippet(rawText, limit: limit)
  }
}

/// What a message shows of a value's text: at most `limit` characters, then `…`. The one rule
/// for snippets in reports, errors, locations and the `envelope` command.
func messageSnippet(_ text: String, limit: Int = 40) -> String {
  text.count > limit ? String(text.prefix(limit)) + "…" : text
}

extension JSONToken.Kind {
  /// The kind's name in messages and reports: `null`, `bool`, `number`, `string`, `array`,
  /// `object`. The one table of kind names.
  var name: String {
    switch self {
    case .null: "null"
    case .true, .false: "bool"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The phrase Foundation's `JSONDecoder` uses for the kind in type errors ("found a string
  /// instead").
  var foundationPhrase: String {
    switch self {
    case .null: "null"
    case .true, .false: "bool"
    case .number: "number"
    case .string: "a string"
    case .array: "an array"
    case .object: "a dictionary"
    }
  }
}
