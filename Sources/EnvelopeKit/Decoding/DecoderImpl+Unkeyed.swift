/// Sequential access to the elements of a JSON array (or a lenient stand-in for one).
///
/// Elements are decoded without fallback: an unusable element is an error here. Arrays
/// (`[T]`) do not come through this container; the decoder drops their unusable elements itself.
struct UnkeyedContainer: UnkeyedDecodingContainer {
  private let decoder: DecoderImpl
  private let frame: ContainerFrame
  private var next: Int
  let count: Int?
  private(set) var currentIndex = 0

  init(decoder: DecoderImpl, elements: ArrayElements, frame: ContainerFrame) {
    self.decoder = decoder
    self.frame = frame
    self.next = elements.first
    self.count = elements.count
  }

  private var document: JSONDocument { frame.document }
  var codingPath: [any CodingKey] { frame.path }
  var isAtEnd: Bool { currentIndex >= (count ?? 0) }

  /// The current element, read as `type`.
  private func current(_ type: Any.Type, allowsFallback: Bool) -> DecodingPosition {
    DecodingPosition(
      parent: frame, index: next, key: AnyCodingKey(intValue: currentIndex),
      allowsFallback: allowsFallback, type: type)
  }

  private func endError(_ type: Any.Type) -> DecodingError {
    DecodingError.valueNotFound(
      type,
      DecodingError.Context(
        codingPath: frame.path(with: AnyCodingKey(intValue: currentIndex)),
        debugDescription: "Unkeyed container is at end."))
  }

  private mutating func advance() {
    next = document.next(next)
    currentIndex += 1
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd else { throw endError(Any?.self) }
    guard document.kind(next) == .null else { return false }
    advance()
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try element(type) }

  private mutating func element<T: Decodable>(_ type: T.Type) throws -> T {
    guard !isAtEnd else { throw endError(type) }
    let value = try decoder.unbox(type, at: current(type, allowsFallback: false))
    advance()
    return value
  }

  // The standard library's defaults for these two throw "not implemented" instead of reaching
  // the generic `decode`.
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: Int128.Type) throws -> Int128 { try element(type) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try element(type) }

  // MARK: - Optionals

  /// Past the end or null is nil. A present value that is not a `T` is an error in strict policy
  /// and nil (reported `nulled`) in lenient, as in a keyed container.
  mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
    try optionalElement(type)
  }

  private mutating func optionalElement<T: Decodable>(_ type: T.Type) throws -> T? {
    guard !isAtEnd else { return nil }
    guard document.kind(next) != .null else {
      advance()
      return nil
    }
    let value = try decoder.presentOptional(type, at: current(type, allowsFallback: false))
    advance()
    return value
  }

  // The scalar overloads share the generic rule; they exist so that the standard library's
  // defaults (`decodeNil`, then `decode`, which cannot null a lenient value) are not used.
  mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try optionalElement(type) }
  mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try optionalElement(type) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decodeIfPresent(_ type: Int128.Type) throws -> Int128? { try optionalElement(type) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decodeIfPresent(_ type: UInt128.Type) throws -> UInt128? {
    try optionalElement(type)
  }

  /// A container the caller asked for explicitly: leniently an empty one (reported) when the
  /// element is null or of another kind, as for keyed nested containers.
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    guard !isAtEnd else { throw endError(KeyedDecodingContainer<NestedKey>.self) }
    let position = current([String: Any].self, allowsFallback: true)
    let object = try decoder.objectValue(at: position)
    advance()
    return KeyedDecodingContainer(
      KeyedContainer<NestedKey>(decoder: decoder, at: position, object: object, fallbacks: nil))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard !isAtEnd else { throw endError((any UnkeyedDecodingContainer).self) }
    let position = current([Any].self, allowsFallback: true)
    let elements = try decoder.arrayElements(at: position)
    advance()
    return UnkeyedContainer(
      decoder: decoder, elements: elements,
      frame: position.frame(document: elements.document(at: position)))
  }

  mutating func superDecoder() throws -> any Decoder {
    guard !isAtEnd else { throw endError((any Decoder).self) }
    let decoder = DecoderImpl(sharing: decoder, at: current(Any.self, allowsFallback: false))
    advance()
    return decoder
  }
}
