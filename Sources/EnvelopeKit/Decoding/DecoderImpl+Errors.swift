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
      return kind.name + " " + JSON.string(messageSnippet(document.string(index))).rawText
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
    let stop = position.requiresValue ? DecodeStop.requiredValue : nil
    if position.index == nil, let key = position.key, !position.readsMissingAsNull {
      return keyNotFound(key, in: position.parent, stop: stop)
    }
    return DecodingError.valueNotFound(
      type,
      DecodingError.Context(
        codingPath: position.codingPath, debugDescription: description, underlyingError: stop))
  }

  func keyNotFound(_ key: AnyCodingKey, in parent: ContainerFrame, stop: DecodeStop? = nil)
    -> DecodingError
  {
    DecodingError.keyNotFound(
      key,
      DecodingError.Context(
        codingPath: parent.path,
        debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").",
        underlyingError: stop))
  }

  /// A string that did not parse as the type a strategy expects.
  func invalidString(_ message: String, at position: DecodingPosition) -> DecodingError {
    DecodingError.dataCorrupted(
      DecodingError.Context(codingPath: position.codingPath, debugDescription: message))
  }

  /// The `JSON` value at `position` (which has one); a value too deep to build stops the
  /// decode, whatever the policy.
  func json(at position: DecodingPosition) throws -> JSON {
    try LenientDecoder.json(position.document, position.index ?? 0, at: position.codingPath)
  }

  /// Stops the decode: the input nests deeper than `maxDepth` allows (held in a string that
  /// the lenient policy reads as JSON).
  func abort(deeperThan limit: Int, at position: DecodingPosition) -> DecodingError {
    DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: position.codingPath,
        debugDescription:
          "The JSON is nested too deeply: the string here holds JSON that nests past maxDepth (\(limit)).",
        underlyingError: DecodeStop.depthLimit))
  }

  /// Stops the decode: the input nests deeper than this thread's stack can decode.
  /// Out of line: `unbox` calls it at every level, and its frame would be part of each level's.
  @inline(never)
  func abort(tooDeepAt position: DecodingPosition) -> DecodingError {
    DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: position.codingPath,
        debugDescription:
          "The JSON is nested too deeply to decode on this thread's stack (depth \(position.depth)).",
        underlyingError: DecodeStop.stackLimit))
  }
}

/// Why a decode stops whatever the policy: the `underlyingError` of the `DecodingError` thrown,
/// so that the error itself (not decoder state) says it, across `superDecoder()` decoders and
/// after a model's own `try?` has caught one.
enum DecodeStop: Error, Sendable, CustomStringConvertible {
  /// A string held JSON nesting past `maxDepth`.
  case depthLimit
  /// The thread's stack has no room for another level.
  case stackLimit
  /// A required value (`missingKeys = .error`, `require`) is absent or null.
  case requiredValue

  var description: String {
    switch self {
    case .depthLimit: "nested past maxDepth"
    case .stackLimit: "nested past the thread's stack"
    case .requiredValue: "a required value is missing"
    }
  }

  /// Whether `error` stops the decode: no lenient drop, null, default case or transform
  /// fallback recovers from it. The one place this is decided.
  static func stops(_ error: any Error) -> Bool {
    let context: DecodingError.Context
    switch error as? DecodingError {
    case .dataCorrupted(let found), .keyNotFound(_, let found), .valueNotFound(_, let found),
      .typeMismatch(_, let found):
      context = found
    default:
      return false
    }
    if context.underlyingError is DecodeStop { return true }
    if let reader = context.underlyingError as? JSONReaderError, case .tooDeep = reader.reason {
      return true
    }
    return false
  }
}
