import Foundation

/// An object to read keys from: a token, or nil for the empty object a lenient fallback uses.
struct ObjectRef {
  let document: JSONDocument
  let index: Int?
}

/// The elements an unkeyed container walks: `count` values starting at token `first`.
struct ArraySource {
  let document: JSONDocument
  let first: Int
  let count: Int
}

extension DecoderImpl {
  /// The object at `value`, or (lenient) an object parsed from a string, or an empty one.
  func objectRef(
    _ value: ValueRef, path: CodingPathNode, allowsFallback: Bool, expected: Any.Type
  ) throws -> ObjectRef {
    if let index = value.index {
      if value.document.kind(index) == .object {
        return ObjectRef(document: value.document, index: index)
      }
      if state.isLenient, let embedded = embeddedDocument(value, kind: .object) {
        state.report(.coerced, expected, value, path, nil)
        return ObjectRef(document: embedded, index: 0)
      }
    }
    guard state.isLenient, allowsFallback else {
      throw containerError([String: Any].self, "keyed", value, path)
    }
    state.report(.defaulted, expected, value, path, nil)
    return ObjectRef(document: value.document, index: nil)
  }

  /// The array at `value`; leniently also an array parsed from a string, a single value as a
  /// one-element array, or (with fallback) no elements for null or missing.
  func arraySource(
    _ value: ValueRef, path: CodingPathNode, allowsFallback: Bool, expected: Any.Type
  ) throws -> ArraySource {
    if let index = value.index {
      let document = value.document
      switch document.kind(index) {
      case .array:
        return ArraySource(
          document: document, first: index + 1, count: Int(document.tokens[index].count))
      case .null:
        break
      default:
        guard state.isLenient else { break }
        state.report(.coerced, expected, value, path, nil)
        if let embedded = embeddedDocument(value, kind: .array) {
          return ArraySource(
            document: embedded, first: 1, count: Int(embedded.tokens[0].count))
        }
        return ArraySource(document: document, first: index, count: 1)
      }
    }
    guard state.isLenient, allowsFallback else {
      throw containerError([Any].self, "unkeyed", value, path)
    }
    state.report(.defaulted, expected, value, path, nil)
    return ArraySource(document: value.document, first: 0, count: 0)
  }

  /// A document parsed from a string value that holds JSON of the given container kind.
  private func embeddedDocument(_ value: ValueRef, kind: JSONToken.Kind) -> JSONDocument? {
    guard let index = value.index, value.document.kind(index) == .string else { return nil }
    let text = value.document.string(index)
    let opener: Character = kind == .object ? "{" : "["
    guard text.first(where: { !$0.isWhitespace }) == opener else { return nil }
    do {
      let document = try JSONDocument(data: Data(text.utf8), maxDepth: state.options.maxDepth)
      return document.kind(0) == kind ? document : nil
    } catch {
      // Not JSON after all: the caller falls back and reports what it found.
      return nil
    }
  }

  private func containerError(
    _ type: Any.Type, _ name: String, _ value: ValueRef, _ path: CodingPathNode
  ) -> DecodingError {
    if let index = value.index, value.document.kind(index) != .null {
      return state.strictError(type, value, path, nil)
    }
    return DecodingError.valueNotFound(
      type,
      DecodingError.Context(
        codingPath: path.path,
        debugDescription: "Cannot get \(name) decoding container -- found null value instead"))
  }
}
