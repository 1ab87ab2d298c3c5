import Foundation

// Report entries and errors. Errors are worded as Foundation's JSONDecoder words them.

extension DecoderImpl {
  // MARK: - Report

  /// Adds a report entry for the value at `position`, named by its declared type.
  func record(_ kind: DecodingReport.Entry.Kind, at position: DecodingPosition) {
    recorder.add {
      DecodingReport.Entry(
        path: formatCodingPath(position.codingPath), kind: kind,
        expected: String(describing: position.type), found: describe(position))
    }
  }

  /// The JSON kind and a short snippet: `string "18"`, `number 3.5`, `missing`.
  func describe(_ position: DecodingPosition) -> String {
    guard let index = position.index else { return "missing" }
    let document = position.document
    let kind = document.kind(index)
    switch kind {
    case .null: return kind.name
    case .true: return kind.name + " true"
    case .false: return kind.name + " false"
    case .number: return kind.name + " " + messageSnippet(document.rawText(index))
    case .string:
      var escaped = ""
      writeEscaped(messageSnippet(document.string(index)), to: &escaped)
      return kind.name + " " + escaped
    case .array: return "\(kind.name) of \(document.count(index))"
    case .object: return "\(kind.name) of \(document.count(index)) keys"
    }
  }

  // MARK: - Errors

  func kindDescription(_ position: DecodingPosition) -> String {
    position.kind?.foundationPhrase ?? "nothing"
  }

  /// What strict policy throws for a value that is missing, null, of the wrong kind or (with
  /// `unrepresentable`) a number that does not fit `type`.
  func strictError(_ type: Any.Type, at position: DecodingPosition, unrepresentable: Bool = false)
    -> DecodingError
  {
    guard let index = position.index, position.document.kind(index) != .null else {
      return absentError(
        type, at: position, "Cannot get value of type \(type) -- found null value instead")
    }
    let path = position.codingPath
    let document = position.document
    if unrepresentable {
      return DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: path,
          debugDescription: "Number \(document.rawText(index)) is not representable in Swift."))
    }
    return DecodingError.typeMismatch(
      type,
      DecodingError.Context(
        codingPath: path,
        debugDescription:
          "Expected to decode \(type) but found \(kindDescription(position)) instead."
      ))
  }

  /// A missing key (`keyNotFound`), or a null or absent value (`valueNotFound` saying
  /// `description`). A `superDecoder` of a missing key reads as null, as in Foundation.
  ///
  /// A required value (`missingKeys = .error`, `require`) that is absent stops the decode:
  /// no lenient array, dictionary or Optional recovers from it.
  func absentError(_ type: Any.Type, at position: DecodingPosition, _ description: String)
    -> DecodingError
  {
    if position.requiresValue { isAborting = true }
    if position.index == nil, let key = position.key, !position.readsMissingAsNull {
      return keyNotFound(key, in: position.parent)
    }
    return DecodingError.valueNotFound(
      type, DecodingError.Context(codingPath: position.codingPath, debugDescription: description))
  }

  func keyNotFound(_ key: AnyCodingKey, in parent: ContainerFrame) -> DecodingError {
    DecodingError.keyNotFound(
      key,
      DecodingError.Context(
        codingPath: parent.path,
        debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
  }

  /// A string that did not parse as the type a strategy expects.
  func invalidString(_ message: String, at position: DecodingPosition) -> DecodingError {
    DecodingError.dataCorrupted(
      DecodingError.Context(codingPath: position.codingPath, debugDescription: message))
  }

  /// The `JSON` value at `position` (which has one); a value too deep to build stops the
  /// decode, whatever the policy.
  func json(at position: DecodingPosition) throws -> JSON {
    do {
      return try JSON(document: position.document, index: position.index ?? 0)
    } catch {
      isAborting = true
      throw LenientDecoder.dataCorrupted(error, at: position.codingPath)
    }
  }

  /// Stops the decode: the input nests deeper than `maxDepth` allows (held in a string that
  /// the lenient policy reads as JSON).
  func abort(deeperThan limit: Int, at position: DecodingPosition) -> DecodingError {
    isAborting = true
    return DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: position.codingPath,
        debugDescription:
          "The JSON is nested too deeply: the string here holds JSON that nests past maxDepth (\(limit))."
      ))
  }

  /// Stops the decode: the input nests deeper than this thread's stack can decode.
  func abort(tooDeepAt position: DecodingPosition) -> DecodingError {
    isAborting = true
    return DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: position.codingPath,
        debugDescription:
          "The JSON is nested too deeply to decode on this thread's stack (depth \(position.depth))."
      ))
  }
}
