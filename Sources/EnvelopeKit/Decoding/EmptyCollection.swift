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
