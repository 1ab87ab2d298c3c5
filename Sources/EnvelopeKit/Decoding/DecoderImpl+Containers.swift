import Foundation

/// An object to read keys from: its token, or nil for the empty object a fallback stands for.
typealias ObjectValue = (document: JSONDocument, index: Int?)

/// The elements an unkeyed container walks: `count` values starting at token `first`, in the
/// document of the position they were read at, or in `embedded` (an array held in a string).
///
/// No reference unless embedded: this is made for every array, and a document here cost a
/// retain and a release per array (5% of canada's decode, an array per coordinate pair).
struct ArrayElements {
  let embedded: JSONDocument?
  let first: Int
  let count: Int

  /// The document the elements are in, read at `position`.
  @inline(__always)
  func document(at position: DecodingPosition) -> JSONDocument {
    embedded ?? position.document
  }
}

extension DecoderImpl {
  /// The object at `position`; leniently also an object held in a string (coerced), or an
  /// empty one in place of null, a missing value or another kind (defaulted).
  func objectValue(at position: DecodingPosition) throws -> ObjectValue {
    if let index = position.index {
      if position.document.kind(index) == .object { return (position.document, index) }
      if leniency.coercesKinds, let embedded = try embeddedDocument(at: position, kind: .object) {
        record(.coerced, at: position)
        return (embedded, 0)
      }
    }
    guard leniency.fallsBack(at: position) else {
      throw containerError([String: Any].self, "keyed", at: position)
    }
    record(.defaulted, at: position)
    return (position.document, nil)
  }

  /// The array at `position`; leniently also an array held in a string or a single value as a
  /// one-element array (coerced), or no elements in place of null or a missing value (defaulted).
  func arrayElements(at position: DecodingPosition) throws -> ArrayElements {
    let document = position.document
    if let index = position.index {
      switch document.kind(index) {
      case .array:
        return ArrayElements(embedded: nil, first: index + 1, count: document.count(index))
      case .null:
        break
      default:
        guard leniency.coercesKinds else { break }
        record(.coerced, at: position)
        if let embedded = try embeddedDocument(at: position, kind: .array) {
          return ArrayElements(embedded: embedded, first: 1, count: embedded.count(0))
        }
        return ArrayElements(embedded: nil, first: index, count: 1)
      }
    }
    guard leniency.fallsBack(at: position) else {
      throw containerError([Any].self, "unkeyed", at: position)
    }
    record(.defaulted, at: position)
    return ArrayElements(embedded: nil, first: 0, count: 0)
  }

  /// A document parsed from a string value that holds JSON of the given container kind; nil
  /// when the string holds something else.
  ///
  /// Its nesting counts against the same `maxDepth` as the outer document, so strings holding
  /// arrays holding strings cannot nest without bound; past the limit the decode stops (a depth
  /// error is never a fallback).
  func embeddedDocument(at position: DecodingPosition, kind: JSONToken.Kind) throws
    -> JSONDocument?
  {
    guard let index = position.index, position.document.kind(index) == .string else { return nil }
    let text = position.document.string(index)
    let opener: Character = kind == .object ? "{" : "["
    guard text.first(where: { !$0.isWhitespace }) == opener else { return nil }
    let remainingDepth = options.maxDepth - position.depth
    do {
      // With no depth left, any container is too deep; read it with one level to tell JSON
      // (too deep) from text that only starts with a bracket (not JSON, a fallback).
      let document = try JSONDocument(
        data: Data(text.utf8), maxDepth: max(1, remainingDepth), allowsTrailingCommas: true)
      guard document.kind(0) == kind else { return nil }
      guard remainingDepth > 0 else { throw abort(deeperThan: options.maxDepth, at: position) }
      return document
    } catch let error as JSONReaderError {
      if case .tooDeep = error.reason { throw abort(deeperThan: options.maxDepth, at: position) }
      // Not JSON after all: the caller falls back and reports what it found.
      return nil
    }
  }

  private func containerError(_ type: Any.Type, _ name: String, at position: DecodingPosition)
    -> DecodingError
  {
    guard position.isMissingOrNull else { return strictError(type, at: position) }
    return absentError(
      type, at: position, "Cannot get \(name) decoding container -- found null value instead")
  }
}
