import Foundation

// Value transforms (`LenientDecoder.transform`): the model's contract, so they apply in both
// policies; a transform that throws is a lenient fallback or a strict error.
extension DecoderImpl {
  /// The transform's value for a non-optional property. A missing value, or one the transform
  /// throws for, is an unusable value at its key: the fallback and report of any other
  /// (`fallback(_:at:)`), or the strict error. A required value that is missing or null is
  /// never handed to the transform.
  func transformed<T>(_ type: T.Type, _ transform: AnyValueTransform, at position: DecodingPosition)
    throws -> T
  {
    try checkType(T.self, transform, at: position)
    if position.requiresValue, position.isMissingOrNull {
      throw absentError(
        T.self, at: position, "Cannot get value of type \(T.self) -- found null value instead")
    }
    let failure: any Error
    if position.index == nil {
      failure = absentError(T.self, at: position, "Expected \(T.self) value but found nothing.")
    } else {
      do {
        return try read(T.self, transform, at: position)
      } catch {
        if DecodeStop.stops(error) { throw error }
        failure = self.failure(error, transform, at: position)
      }
    }
    // `fallback` prefers the declared value; a type with neither throws.
    guard leniency.fallsBack(at: position),
      let empty = emptyValue(of: T.self) ?? position.declaredFallback as? T
    else { throw failure }
    return fallback(empty, at: position.reading(T.self))
  }

  /// The transform's value for an Optional property whose value is present and not null.
  func transformedOptional<T>(
    _ type: T.Type, _ transform: AnyValueTransform, at position: DecodingPosition
  ) throws -> T? {
    try checkType(T.self, transform, at: position)
    guard position.index != nil else { return nil }
    do {
      return try read(T.self, transform, at: position)
    } catch {
      if DecodeStop.stops(error) { throw error }
      guard leniency.nullsOptionals else { throw failure(error, transform, at: position) }
      record(.nulled, at: position.reading(T.self, allowsFallback: false))
      return nil
    }
  }

  private func read<T>(
    _ type: T.Type, _ transform: AnyValueTransform, at position: DecodingPosition
  )
    throws -> T
  {
    let value = try transform.read(try json(at: position))
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
