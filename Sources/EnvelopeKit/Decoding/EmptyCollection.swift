/// Arrays and dictionaries: their empty value is a fallback (`DecoderImpl.emptyValue(of:)`) and
/// the payload of an envelope with null data (`EmptyPayload`).
protocol EmptyCollection {
  static var emptyCollection: Self { get }
}

extension Array: EmptyCollection {
  static var emptyCollection: [Element] { [] }
}

extension Dictionary: EmptyCollection {
  static var emptyCollection: [Key: Value] { [:] }
}

/// The empty value of a container type: nil for an Optional, `[]`, `[:]`; nil when `T` is not
/// one. Shared by the decoder's fallbacks (`DecoderImpl.emptyValue(of:)`) and the envelope's
/// empty payload (`EmptyPayload`).
func emptyContainer<T>(_ type: T.Type) -> T? {
  if let optional = T.self as? any DecodableOptional.Type { return optional.nilValue as? T }
  if let collection = T.self as? any EmptyCollection.Type {
    return collection.emptyCollection as? T
  }
  return nil
}
