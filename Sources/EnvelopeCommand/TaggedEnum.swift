import EnvelopeKit

/// A `TaggedDecodable` enum the models declare for a ``TaggedChoice``: a case per tag value
/// seen, holding that value's struct (the whole object), and `unknown` for any other value.
struct TaggedEnum {
  struct Case {
    /// `pushEvent`.
    var name: String
    /// `"PushEvent"`.
    var value: String
    /// The struct of the samples with that value.
    var type: String
  }

  var name: String
  /// The tag's JSON key.
  var jsonKey: String
  /// The tag's key as the decoder compares it (after `.convertFromSnakeCase`).
  var codingKey: String
  /// The key whose objects differ by tag, for the comment.
  var sibling: String?
  var cases: [Case] = []

  /// The enum's lines at most `width` long where they can be broken.
  func lines(options: ModelWriter.Options, origin: String, width: Int) -> [String] {
    let access = options.isPublic ? "public " : ""
    let shape = sibling.map { "the shape of \(Names.literal($0))" } ?? "the shape of the object"
    var lines = ModelWriter.wrap(
      "\(Names.literal(jsonKey)) picks \(shape): the samples hold \(cases.count) values whose "
        + (sibling.map { "\(Names.literal($0)) objects" } ?? "objects")
        + " differ, so this is a TaggedDecodable enum with a case per value (the whole object "
        + "without the tag) and `unknown` for a value the samples do not show (the object kept "
        + "as JSON, reported `unknownVariant`).",
      prefix: "// ", width: width)
    if options.isPublic { lines.append("/// Read from \(origin).") }
    lines.append(
      contentsOf: ModelWriter.fitted(
        width: width, "\(access)enum \(name): TaggedDecodable, TaggedEncodable, Sendable {"))
    for item in cases {
      if options.isPublic {
        lines.append("  /// \(Names.literal(jsonKey)) is \(Names.literal(item.value)).")
      }
      lines.append(
        contentsOf: ModelWriter.fitted(
          width: width, "  case \(Names.escaped(item.name))(\(item.type))"))
    }
    if options.isPublic {
      lines.append("  /// A value the samples do not show: its tag and object.")
    }
    lines.append("  case unknown(String?, JSON)")
    lines.append("")
    if options.isPublic { lines.append("  /// Where the tag is.") }
    // The text form splits at `.` and `>` and reads digits as an index: such a key is written
    // as the one component it is.
    let path =
      JSONPath(codingKey).components == [.key(codingKey)]
      ? Names.literal(codingKey) : "[\(Names.literal(codingKey))]"
    lines.append("  \(access)static let tagPath: JSONPath = \(path)")
    if options.isPublic { lines.append("  /// The case for each tag value.") }
    lines.append("  \(access)static let variants: [String: TaggedVariant<\(name)>] = [")
    for item in cases {
      lines.append(
        contentsOf: ModelWriter.fitted(
          width: width,
          "    \(Names.literal(item.value)): TaggedVariant(\(item.type).self) { "
            + ".\(Names.escaped(item.name))($0) },"))
    }
    lines.append("  ]")
    lines.append("")
    if options.isPublic {
      lines.append("  /// A tag no case names: kept with its object.")
      lines.append("  ///")
      lines.append("  /// - Parameters:")
      lines.append("  ///   - tag: the tag read.")
      lines.append("  ///   - json: the whole object.")
      lines.append("  /// - Returns: `unknown`.")
    }
    lines.append(
      contentsOf: ModelWriter.fitted(
        width: width,
        "  \(access)static func unknown(tag: String?, json: JSON) -> \(name)? { .unknown(tag, json) }"
      ))
    lines.append("")
    if options.isPublic { lines.append("  /// The tag this value is written with.") }
    lines.append("  \(access)var tag: String {")
    lines.append("    switch self {")
    for item in cases {
      lines.append(
        contentsOf: ModelWriter.fitted(
          width: width, "    case .\(Names.escaped(item.name)): \(Names.literal(item.value))"))
    }
    lines.append("    case .unknown(let tag, _): tag ?? \"\"")
    lines.append("    }")
    lines.append("  }")
    lines.append("")
    if options.isPublic { lines.append("  /// The value written beside the tag.") }
    lines.append("  \(access)var variantValue: any Encodable {")
    lines.append("    switch self {")
    for item in cases {
      lines.append("    case .\(Names.escaped(item.name))(let value): value")
    }
    lines.append("    case .unknown(_, let json): json")
    lines.append("    }")
    lines.append("  }")
    lines.append("}")
    return lines
  }
}
