extension JSON {
  /// Indented JSON text, two spaces per level, for files people read and diff.
  ///
  /// Numbers keep their source text, so nothing is rounded. With `sortedKeys` object keys are
  /// in byte order, so the same value always prints the same way.
  ///
  /// - Parameter sortedKeys: sort object keys (default) or keep source order.
  /// - Returns: the text, without a trailing newline.
  public func prettyText(sortedKeys: Bool = true) -> String {
    var output = ""
    writePretty(to: &output, indent: 0, sortedKeys: sortedKeys)
    return output
  }

  private func writePretty(to output: inout String, indent: Int, sortedKeys: Bool) {
    let inner = String(repeating: " ", count: indent + 2)
    switch self {
    case .array(let elements) where !elements.isEmpty:
      output += "[\n"
      for (position, element) in elements.enumerated() {
        output += inner
        element.writePretty(to: &output, indent: indent + 2, sortedKeys: sortedKeys)
        output += position < elements.count - 1 ? ",\n" : "\n"
      }
      output += String(repeating: " ", count: indent) + "]"
    case .object(let object) where object.count > 0:
      output += "{\n"
      var pairs = Array(zip(object.keys, object.values))
      if sortedKeys { pairs.sort { Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8) } }
      for (position, (key, value)) in pairs.enumerated() {
        output += inner
        writeEscaped(key, to: &output)
        output += ": "
        value.writePretty(to: &output, indent: indent + 2, sortedKeys: sortedKeys)
        output += position < pairs.count - 1 ? ",\n" : "\n"
      }
      output += String(repeating: " ", count: indent) + "}"
    default:
      output += rawText
    }
  }
}

extension JSON {
  /// The kind's name: `null`, `bool`, `number`, `string`, `array`, `object`.
  package var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "bool"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The compact text, cut to `limit` characters and `…`: what messages show of a value.
  ///
  /// - Parameter limit: the most characters kept.
  /// - Returns: e.g. `{"a":1}` or `"a long str…`.
  package func snippet(limit: Int = 40) -> String {
    let text = rawText
    return text.count > limit ? String(text.prefix(limit)) + "…" : text
  }
}
