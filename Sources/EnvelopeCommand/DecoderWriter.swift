/// Writes the decoder a generated set is read with, as two factories on `LenientDecoder`:
/// `forRoot(_ base:)` adds what the models need (keys from snake_case, each date's transform)
/// to a decoder it is given, so that several sets share one decoder and one provider
/// (`.forRoot(.forOther())`); `forRoot(policy:)` is that over a new decoder with the samples'
/// envelope.
struct DecoderWriter {
  /// `decoder.transform(Model.self, key: "startsAt", .iso8601)`.
  struct Transform {
    /// The struct's name inside the host (the host itself for its own keys).
    var model: String
    /// The key as the decoder compares it (after `.convertFromSnakeCase`).
    var key: String
    /// `.iso8601`.
    var transform: String
  }

  var root: String
  /// `forRoot`.
  var factory: String
  var options: ModelWriter.Options
  /// The struct every other type is nested in.
  var host: String?
  var transforms: [Transform]

  /// `extension LenientDecoder { ... }`.
  var lines: [String] {
    let access = options.isPublic ? "public " : ""
    var lines = ["extension LenientDecoder {"]
    if options.isPublic {
      lines.append(
        contentsOf: ModelWriter.wrap(
          "The decoder `\(root)` is written for: keys converted from snake_case, "
            + (options.envelope
              ? (options.format == nil ? "" : "the samples' envelope format, ")
              : "no envelope (`EnvelopeFormat.plain`), ")
            + "and each date read by its transform.",
          prefix: "  /// "))
      lines.append("  ///")
      lines.append("  /// - Parameter policy: lenient (coercions reported) or strict.")
      lines.append("  /// - Returns: the decoder.")
    }
    lines.append(
      contentsOf: signature("\(access)static func \(factory)(", "policy: DecodingPolicy = .lenient")
    )
    if let envelope {
      lines.append("    var base = LenientDecoder(policy: policy)")
      lines.append(contentsOf: envelope("base"))
      lines.append("    return \(factory)(base)")
    } else {
      lines.append("    \(factory)(LenientDecoder(policy: policy))")
    }
    lines.append("  }")
    lines.append("")
    if options.isPublic {
      lines.append(
        contentsOf: ModelWriter.wrap(
          "`base` with what `\(root)` needs: keys converted from snake_case and each date read "
            + "by its transform. Its policy and envelope stay, so that several generated sets "
            + "of one API share a decoder: `.\(factory)(.forOther())`.",
          prefix: "  /// "))
      lines.append("  ///")
      lines.append("  /// - Parameter base: the decoder to add to.")
      lines.append("  /// - Returns: the decoder.")
    } else {
      lines.append(
        contentsOf: ModelWriter.wrap(
          "`base` with what these models need; its policy and envelope stay.", prefix: "  // "))
    }
    lines.append(
      contentsOf: signature("\(access)static func \(factory)(", "_ base: LenientDecoder"))
    lines.append("    var decoder = base")
    lines.append("    decoder.keyDecodingStrategy = .convertFromSnakeCase")
    for transform in transforms {
      let model = transform.model == host ? transform.model : "\(host ?? "").\(transform.model)"
      let key = Names.literal(transform.key)
      let call = "    decoder.transform(\(model).self, key: \(key), \(transform.transform))"
      if call.count <= 100 || 6 + key.count + 1 > 100 {
        lines.append(contentsOf: ModelWriter.fitted(call))
      } else {
        lines.append("    decoder.transform(")
        lines.append("      \(model).self,")
        lines.append("      key: \(key),")
        lines.append("      \(transform.transform))")
      }
    }
    lines.append("    return decoder")
    lines.append("  }")
    lines.append("}")
    return lines
  }

  /// The lines that set the samples' envelope (and `--require-keys`) on `variable`, or nil for
  /// none.
  private var envelope: ((String) -> [String])? {
    let missing = options.requireKeys ? ["    base.missingKeys = .error"] : []
    if !options.envelope { return { ["    \($0).envelope = .plain"] + missing } }
    guard let format = options.format else { return missing.isEmpty ? nil : { _ in missing } }
    return { variable in
      let line = "    \(variable).envelope = \(format)"
      guard line.count > 100, let open = format.firstIndex(of: "("), format.hasSuffix(")") else {
        return [line] + missing
      }
      let arguments = format[format.index(after: open)..<format.index(before: format.endIndex)]
      return ["    \(variable).envelope = \(format[...open])"]
        + ModelWriter.fitted("      " + arguments + ")") + missing
    }
  }

  /// `  static func forRoot(PARAMETER) -> LenientDecoder {`, broken as swift-format breaks it.
  private func signature(_ head: String, _ parameter: String) -> [String] {
    let line = "  \(head)\(parameter)) -> LenientDecoder {"
    if line.count <= 100 { return [line] }
    return ["  \(head)", "    \(parameter)", "  ) -> LenientDecoder {"]
  }
}
