/// Swift names from JSON keys.
enum Names {
  /// Type names a generated struct must not take.
  static let reservedTypes: Set<String> = [
    "Any", "Array", "Bool", "Character", "CodingKeys", "Codable", "Data", "Date", "Decimal",
    "Decodable", "Dictionary", "Double", "Encodable", "Error", "Float", "Int", "JSON", "Never",
    "Optional", "Protocol", "Result", "Self", "Set", "String", "Type", "URL", "UUID", "Void",
    // Names the generated file itself uses.
    "CaseDefaultable", "CodingKey", "DecodingPolicy", "EnvelopeFormat", "EnvelopeKit",
    "Foundation", "JSONPath", "LenientDecoder", "Sendable", "TaggedDecodable", "TaggedEncodable",
    "TaggedVariant", "UInt64", "ValueTransform",
  ]

  /// Words that need backticks as property names.
  static let keywords: Set<String> = [
    "associatedtype", "break", "case", "catch", "class", "continue", "default", "defer", "deinit",
    "do", "else", "enum", "extension", "fallthrough", "false", "fileprivate", "for", "func",
    "guard", "if", "import", "in", "init", "inout", "internal", "is", "let", "nil", "operator",
    "private", "protocol", "public", "repeat", "rethrows", "return", "self", "static", "struct",
    "subscript", "super", "switch", "throw", "throws", "true", "try", "typealias", "var", "where",
    "while", "Any", "Self", "Type", "some", "any", "await", "package", "as", "precedencegroup",
  ]

  /// The longest name written: longer keys are cut, so that every line fits in 100 columns.
  static let maxLength = 60

  /// `user_profile` → `UserProfile`; a name that would start with a digit gets `T`.
  static func typeName(_ key: String) -> String {
    let parts = words(key)
    var name = String(
      parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined().prefix(maxLength))
    if name.isEmpty { name = "Value" }
    if let first = name.first, first.isNumber { name = "T" + name }
    return name
  }

  /// `user_id` → `userId`, `URL` → `url`, `display-name` → `displayName`, `1st` → `_1st`.
  static func propertyName(_ key: String) -> String {
    let parts = words(key)
    guard let first = parts.first else { return "_empty" }
    let head =
      first == first.uppercased()
      ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
    var name = head + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    if let initial = name.first, initial.isNumber { name = "_" + name }
    name = String(name.prefix(maxLength))
    return name == "self" ? "selfValue" : name  // `self` would hide self in an init
  }

  /// `user_id`, `userId`, `_links`: ASCII letters, digits and underscores, not starting with a
  /// digit: a key that names a property rather than holding data (`"workflow-aggregator"`).
  static func isIdentifierLike(_ key: String) -> Bool {
    guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
    return key.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }

  /// `userId`: an ASCII letter in lower case, then letters and digits.
  static func isLowerCamelCase(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
    }
  }

  /// The name, in backticks when it is a keyword.
  static func escaped(_ name: String) -> String {
    keywords.contains(name) ? "`\(name)`" : name
  }

  /// `statuses` → `status`, `entries` → `entry`, `items` → `item`; else the key with `Item`,
  /// unless it already ends in `item` (`item` stays `item`, never `ItemItem`).
  static func singular(_ key: String) -> String {
    let lower = key.lowercased()
    if lower.hasSuffix("item") { return key }
    if lower.hasSuffix("ies"), key.count > 3 { return key.dropLast(3) + "y" }
    if lower.hasSuffix("sses") || lower.hasSuffix("uses") || lower.hasSuffix("xes") {
      return String(key.dropLast(2))
    }
    if lower.hasSuffix("s"), !lower.hasSuffix("ss"), key.count > 1 { return String(key.dropLast()) }
    return key + "Item"
  }

  /// A Swift string literal for the key.
  static func literal(_ key: String) -> String {
    var text = "\""
    for scalar in key.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "\n": text += "\\n"
      case "\r": text += "\\r"
      case "\t": text += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        text += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: text.unicodeScalars.append(scalar)
      }
    }
    return text + "\""
  }

  /// The last word of a key, camel case split too: `created_at` → `at`, `updateTime` → `Time`.
  static func lastWord(_ key: String) -> String {
    guard let last = words(key).last else { return "" }
    if last == last.uppercased() { return last }
    let start = last.lastIndex(where: \.isUppercase) ?? last.startIndex
    return String(last[start...])
  }

  /// Runs of letters and digits (ASCII; anything else separates).
  private static func words(_ key: String) -> [String] {
    key.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }.map(String.init)
  }
}
