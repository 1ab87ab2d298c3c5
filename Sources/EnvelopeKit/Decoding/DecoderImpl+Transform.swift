import Foundation

// Value transforms (`LenientDecoder.transform`): the model's contract, so they apply in both
// policies; a transform that throws is a lenient fallback or a strict error.
extension DecoderImpl {
  /// The transform's value for a non-optional property.
  func transformed<T>(_ type: T.Type, _ transform: AnyValueTransform, at position: DecodingPosition)
    throws -> T
  {
    try checkType(T.self, transform, at: position)
    guard let index = position.index else {
      if leniency.fallsBack(at: position), let declared = position.declaredFallback as? T {
        record(.defaulted, at: position)
        return declared
      }
      if let key = position.key { throw keyNotFound(key, in: position.parent) }
      throw absentError(T.self, at: position, "Expected \(T.self) value but found nothing.")
    }
    do {
      return try read(T.self, transform, position.document, index)
    } catch {
      if leniency.fallsBack(at: position), let declared = position.declaredFallback as? T {
        record(.defaulted, at: position)
        return declared
      }
      throw failure(error, transform, at: position)
    }
  }

  /// The transform's value for an Optional property whose value is present and not null.
  func transformedOptional<T>(
    _ type: T.Type, _ transform: AnyValueTransform, at position: DecodingPosition
  ) throws -> T? {
    try checkType(T.self, transform, at: position)
    guard let index = position.index else { return nil }
    do {
      return try read(T.self, transform, position.document, index)
    } catch {
      guard leniency.nullsOptionals else { throw failure(error, transform, at: position) }
      record(.nulled, at: position.reading(T.self, allowsFallback: false))
      return nil
    }
  }

  private func read<T>(
    _ type: T.Type, _ transform: AnyValueTransform, _ document: JSONDocument, _ index: Int
  ) throws -> T {
    let value = try transform.read(JSON(document: document, index: index))
    guard let typed = value as? T else { throw CocoaError(.coderValueNotFound) }
    return typed
  }

  /// A transform whose value type is not the property's is a programming error: thrown in
  /// both policies, naming the model and key.
  private func checkType<T>(
    _ type: T.Type, _ transform: AnyValueTransform, at position: DecodingPosition
  )
    throws
  {
    guard transform.valueType != T.self else { return }
    throw DecodingError.typeMismatch(
      T.self,
      DecodingError.Context(
        codingPath: position.codingPath,
        debugDescription:
          "The ValueTransform for \(transform.owner) produces \(transform.valueType), but the property is \(T.self)."
      ))
  }

  private func failure(
    _ error: any Error, _ transform: AnyValueTransform, at position: DecodingPosition
  )
    -> DecodingError
  {
    DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: position.codingPath,
        debugDescription: "The ValueTransform for \(transform.owner) failed: \(error)",
        underlyingError: error))
  }
}
