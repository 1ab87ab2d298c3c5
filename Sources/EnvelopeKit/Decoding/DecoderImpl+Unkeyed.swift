/// Sequential access to the elements of a JSON array (or a lenient stand-in for one).
///
/// Elements are decoded without fallback: an unusable element is an error here. Arrays
/// (`[T]`) do not come through this container; the decoder drops their unusable elements itself.
struct UnkeyedContainer: UnkeyedDecodingContainer {
  private let decoder: DecoderImpl
  private let document: JSONDocument
  private var next: Int
  private let path: CodingPathNode
  let count: Int?
  private(set) var currentIndex = 0

  init(decoder: DecoderImpl, source: ArraySource, path: CodingPathNode) {
    self.decoder = decoder
    self.document = source.document
    self.next = source.first
    self.count = source.count
    self.path = path
  }

  var codingPath: [any CodingKey] { path.path }
  var isAtEnd: Bool { currentIndex >= (count ?? 0) }

  private var currentKey: AnyCodingKey { AnyCodingKey(intValue: currentIndex) }

  private func endError(_ type: Any.Type) -> DecodingError {
    DecodingError.valueNotFound(
      type,
      DecodingError.Context(
        codingPath: path.path(with: currentKey), debugDescription: "Unkeyed container is at end."))
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

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    guard !isAtEnd else { throw endError(T.self) }
    let value = try decoder.unbox(
      T.self, ValueRef(document: document, index: next), parent: path, key: currentKey,
      allowsFallback: false)
    advance()
    return value
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    guard !isAtEnd else { throw endError(KeyedDecodingContainer<NestedKey>.self) }
    let nestedPath = path.appending(currentKey)
    let object = try decoder.objectRef(
      ValueRef(document: document, index: next), path: nestedPath, allowsFallback: false,
      expected: [String: Any].self)
    advance()
    return KeyedDecodingContainer(
      KeyedContainer<NestedKey>(decoder: decoder, object: object, path: nestedPath, defaults: nil))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard !isAtEnd else { throw endError((any UnkeyedDecodingContainer).self) }
    let nestedPath = path.appending(currentKey)
    let source = try decoder.arraySource(
      ValueRef(document: document, index: next), path: nestedPath, allowsFallback: false,
      expected: [Any].self)
    advance()
    return UnkeyedContainer(decoder: decoder, source: source, path: nestedPath)
  }

  mutating func superDecoder() throws -> any Decoder {
    guard !isAtEnd else { throw endError((any Decoder).self) }
    let decoder = DecoderImpl(
      state: decoder.state, value: ValueRef(document: document, index: next),
      path: path.appending(currentKey))
    advance()
    return decoder
  }
}
