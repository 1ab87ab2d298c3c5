import Foundation

/// A keyed container: appends members to an object container of the tree.
struct KeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: EncoderImpl
  let container: Int
  /// Keys of nested containers between the encoder and this container.
  let path: CodingPathNode?
  /// This container's nesting level.
  let depth: Int
  /// The model's key mappings, when it has any.
  let mappings: [String: KeyMapping]?
  /// The encode's tree, held here so that each value reaches it without a retain.
  let tree: EncodedTree

  /// A container; the model's mappings apply to its own container only (`path` nil), not to
  /// nested ones, as the decoder reads them.
  init(encoder: EncoderImpl, container: Int, path: CodingPathNode?, depth: Int) {
    self.encoder = encoder
    self.container = container
    self.path = path
    self.depth = depth
    tree = encoder.tree
    mappings =
      path == nil ? encoder.context.mappings(for: encoder.model) : nil
  }

  var codingPath: [any CodingKey] { encoder.path(through: path, adding: nil) }

  /// Renders a scalar into the arena as `member`'s value.
  @inline(__always)
  private func write(into member: Int, _ render: (EncodedTree) -> Void) {
    let start = tree.byteCount
    render(tree)
    tree.finishValue(of: member, from: start)
  }

  /// The member for `key`: at the key the strategy makes, or at a mapped path.
  @inline(__always)
  private func member(for key: Key) throws -> Int {
    if let mappings, let mapping = mappings[key.stringValue], let path = mapping.paths.first {
      return try member(atMapped: path, for: key)
    }
    let name = encoder.context.convert(key, path: encoder.path(through: path, adding: nil))
    if let mappings, let object = mappedObject(named: name, mappings, for: key) { return object }
    return tree.appendMember(named: name, to: container)
  }

  /// The member named `name` when it holds an object that a mapped path made on its way
  /// (`"profile.name"` encoded before the `profile` property): the key's value goes into that
  /// object, so the mapped members stay whatever order the model encodes its keys in, as they
  /// do when the property comes first (`member(atMapped:for:)`). A value that is no object
  /// would replace it: the encode then throws as a mapped path through a value does
  /// (`EncodingContext.expectObject`). Nil when no mapped path of the model starts at `name`.
  private func mappedObject(
    named name: String, _ mappings: [String: KeyMapping], for key: some CodingKey
  ) -> Int? {
    let first = JSONPath.Component.key(name)
    guard
      mappings.values.contains(where: {
        guard let mapped = $0.paths.first else { return false }
        return mapped.components.count > 1 && mapped.components.first == first
      }),
      let existing = tree.member(of: container, named: name),
      let object = tree.members[existing].container, tree.containers[object].isObject
    else { return nil }
    encoder.context.expectObject(
      object, at: existing,
      "A mapped path goes through \"\(name)\", which holds a value, not an object.",
      codingPath: codingPath + [key])
    return existing
  }

  /// The member at a mapped path (`"user.name"`), making the objects on the way; keys as
  /// written, as the decoder reads them.
  private func member(atMapped mapped: JSONPath, for key: Key) throws -> Int {
    var object = container
    var level = depth
    for (position, component) in mapped.components.enumerated() {
      guard case .key(let name) = component else {
        throw mappedPathError(
          mapped, key, "has an array index; a mapped key is written at object keys only")
      }
      if position == mapped.components.count - 1 {
        return tree.appendMember(named: name, to: object)
      }
      if let existing = tree.member(of: object, named: name) {
        guard let nested = tree.members[existing].container, tree.containers[nested].isObject
        else {
          throw mappedPathError(
            mapped, key, "goes through \"\(name)\", which holds a value, not an object")
        }
        object = nested
      } else {
        let item = tree.appendMember(named: name, to: object)
        object = tree.attachContainer(to: item, isObject: true, depth: level + 1)
      }
      level += 1
    }
    return tree.appendMember(named: key.stringValue, to: object)
  }

  /// `The mapped path <path> <problem>.` for `key`, at its coding path.
  private func mappedPathError(_ mapped: JSONPath, _ key: Key, _ problem: String) -> EncodingError {
    EncodingError.invalidValue(
      key.stringValue,
      EncodingError.Context(
        codingPath: codingPath + [key], debugDescription: "The mapped path \(mapped) \(problem)."))
  }

  // MARK: - Values

  mutating func encodeNil(forKey key: Key) throws {
    let item = try member(for: key)
    write(into: item) { $0.append("null") }
  }

  mutating func encode(_ value: Bool, forKey key: Key) throws {
    guard !transforms(key) else { return try encodeTransformed(value, forKey: key) }
    let item = try member(for: key)
    write(into: item) { $0.append(value ? "true" : "false") }
  }

  mutating func encode(_ value: String, forKey key: Key) throws {
    guard !transforms(key) else { return try encodeTransformed(value, forKey: key) }
    let item = try member(for: key)
    write(into: item) { $0.appendString(value) }
  }

  mutating func encode(_ value: Double, forKey key: Key) throws {
    guard !transforms(key) else { return try encodeTransformed(value, forKey: key) }
    let marks = tree.marks
    do {
      let item = try member(for: key)
      try encoder.writeFloatingPoint(value, into: item, key: key)
    } catch {
      tree.undo(to: marks)
      throw error
    }
  }

  mutating func encode(_ value: Float, forKey key: Key) throws {
    guard !transforms(key) else { return try encodeTransformed(value, forKey: key) }
    let marks = tree.marks
    do {
      let item = try member(for: key)
      try encoder.writeFloatingPoint(value, into: item, key: key)
    } catch {
      tree.undo(to: marks)
      throw error
    }
  }

  mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  mutating func encode(_ value: Int128, forKey key: Key) throws { try integer(value, key) }

  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  mutating func encode(_ value: UInt128, forKey key: Key) throws { try integer(value, key) }

  @inline(__always)
  private func integer<Integer: FixedWidthInteger & Encodable>(_ value: Integer, _ key: Key)
    throws
  {
    guard !transforms(key) else { return try encodeTransformed(value, forKey: key) }
    let item = try member(for: key)
    write(into: item) { $0.appendInteger(value) }
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    guard !transforms(key) else { return try encodeTransformed(value, forKey: key) }
    // A value that throws leaves nothing behind (JSONEncoder stores a key once its value is
    // made), so a model that catches the error goes on as if it had not been encoded.
    let marks = tree.marks
    do {
      let item = try member(for: key)
      try encoder.encodeValue(value, into: item, key: key, depth: depth + 1)
    } catch {
      tree.undo(to: marks)
      throw error
    }
  }

  // MARK: - Transforms

  /// Whether `key` has a transform that writes.
  @inline(__always)
  private func transforms(_ key: Key) -> Bool {
    guard let mappings else { return false }
    return mappings[key.stringValue]?.transform?.write != nil
  }

  /// Writes the transform's JSON for `value` at the key's member.
  private func encodeTransformed<T: Encodable>(_ value: T, forKey key: Key) throws {
    guard let transform = mappings?[key.stringValue]?.transform, let write = transform.write
    else { return }
    if let optional = value as? any OptionalEncodable, optional.isNone {
      let item = try member(for: key)
      self.write(into: item) { $0.append("null") }
      return
    }
    guard let json = try write(value) else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: codingPath + [key],
          debugDescription:
            "The transform for \(transform.owner) writes \(transform.valueType), but the value is \(T.self)."
        ))
    }
    try tree.undoingOnError {
      let item = try member(for: key)
      tree.appendJSON(json, into: item, depth: depth + 1)
    }
  }

  // MARK: - Nested containers

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = nestedContainer(forKey: key, isObject: true)
    return KeyedEncodingContainer(
      KeyedEncoding<NestedKey>(
        encoder: encoder, container: nested, path: CodingPathNode(key, parent: path),
        depth: depth + 1))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = nestedContainer(forKey: key, isObject: false)
    return UnkeyedEncoding(
      encoder: encoder, container: nested, path: CodingPathNode(key, parent: path),
      depth: depth + 1)
  }

  /// The container at `key`: the one made there before (JSONEncoder reuses it), or a new one.
  private func nestedContainer(forKey key: Key, isObject: Bool) -> Int {
    let name = encoder.context.convert(key, path: encoder.path(through: path, adding: nil))
    if let existing = tree.member(of: container, named: name) {
      let nested = tree.members[existing].container
      if let nested, tree.containers[nested].isObject == isObject { return nested }
      if nested != nil || !tree.members[existing].isPending {
        encoder.context.recordMisuse(
          "Attempt to re-encode into a nested \(isObject ? "keyed" : "unkeyed") container for "
            + "key \"\(name)\": a value or a container of the other kind was already encoded for "
            + "this key.", at: codingPath + [key])
      }
    }
    let item = tree.appendMember(named: name, to: container)
    return tree.attachContainer(to: item, isObject: isObject, depth: depth + 1)
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(key: AnyCodingKey(stringValue: "super"))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(key: key)
  }

  private func superEncoder(key: some CodingKey) -> any Encoder {
    let name = encoder.context.convert(key, path: encoder.path(through: path, adding: nil))
    let item =
      mappings.flatMap { mappedObject(named: name, $0, for: key) }
      ?? tree.appendMember(named: name, to: container)
    return makeSuperEncoder(encoder: encoder, member: item, key: key, depth: depth + 1)
  }
}

/// An unkeyed container: appends members to an array container of the tree.
struct UnkeyedEncoding: UnkeyedEncodingContainer {
  let encoder: EncoderImpl
  let container: Int
  let path: CodingPathNode?
  let depth: Int
  /// The encode's tree, held here so that each value reaches it without a retain.
  let tree: EncodedTree

  init(encoder: EncoderImpl, container: Int, path: CodingPathNode?, depth: Int) {
    self.encoder = encoder
    self.container = container
    self.path = path
    self.depth = depth
    tree = encoder.tree
  }

  var codingPath: [any CodingKey] { encoder.path(through: path, adding: nil) }

  var count: Int { Int(tree.containers[container].count) }

  /// Renders a scalar into the arena as `member`'s value.
  @inline(__always)
  private func write(into member: Int, _ render: (EncodedTree) -> Void) {
    let start = tree.byteCount
    render(tree)
    tree.finishValue(of: member, from: start)
  }

  @inline(__always)
  private func nextMember() -> Int {
    tree.appendMember(to: container, keyStart: -1, keyLength: 0)
  }

  private var indexKey: AnyCodingKey { AnyCodingKey(intValue: count) }

  mutating func encodeNil() throws {
    write(into: nextMember()) { $0.append("null") }
  }

  mutating func encode(_ value: Bool) throws {
    write(into: nextMember()) { $0.append(value ? "true" : "false") }
  }

  mutating func encode(_ value: String) throws {
    write(into: nextMember()) { $0.appendString(value) }
  }

  mutating func encode(_ value: Double) throws {
    let key = indexKey
    let marks = tree.marks
    do {
      try encoder.writeFloatingPoint(value, into: nextMember(), key: key)
    } catch {
      tree.undo(to: marks)
      throw error
    }
  }

  mutating func encode(_ value: Float) throws {
    let key = indexKey
    let marks = tree.marks
    do {
      try encoder.writeFloatingPoint(value, into: nextMember(), key: key)
    } catch {
      tree.undo(to: marks)
      throw error
    }
  }

  mutating func encode(_ value: Int) throws { integer(value) }
  mutating func encode(_ value: Int8) throws { integer(value) }
  mutating func encode(_ value: Int16) throws { integer(value) }
  mutating func encode(_ value: Int32) throws { integer(value) }
  mutating func encode(_ value: Int64) throws { integer(value) }
  mutating func encode(_ value: UInt) throws { integer(value) }
  mutating func encode(_ value: UInt8) throws { integer(value) }
  mutating func encode(_ value: UInt16) throws { integer(value) }
  mutating func encode(_ value: UInt32) throws { integer(value) }
  mutating func encode(_ value: UInt64) throws { integer(value) }

  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  mutating func encode(_ value: Int128) throws { integer(value) }

  @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
  mutating func encode(_ value: UInt128) throws { integer(value) }

  @inline(__always)
  private func integer(_ value: some FixedWidthInteger) {
    write(into: nextMember()) { $0.appendInteger(value) }
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let key = indexKey
    let marks = tree.marks
    do {
      try encoder.encodeValue(value, into: nextMember(), key: key, depth: depth + 1)
    } catch {
      tree.undo(to: marks)
      throw error
    }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let key = indexKey
    let nested = tree.attachContainer(to: nextMember(), isObject: true, depth: depth + 1)
    return KeyedEncodingContainer(
      KeyedEncoding<NestedKey>(
        encoder: encoder, container: nested, path: CodingPathNode(key, parent: path),
        depth: depth + 1))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let key = indexKey
    let nested = tree.attachContainer(to: nextMember(), isObject: false, depth: depth + 1)
    return UnkeyedEncoding(
      encoder: encoder, container: nested, path: CodingPathNode(key, parent: path),
      depth: depth + 1)
  }

  mutating func superEncoder() -> any Encoder {
    let key = indexKey
    return makeSuperEncoder(encoder: encoder, member: nextMember(), key: key, depth: depth + 1)
  }
}

/// The encoder `superEncoder()` returns: a child producing one member's value, which the
/// writer lays out as `{}` if nothing is encoded through it (JSONEncoder's too).
private func makeSuperEncoder(
  encoder: EncoderImpl, member: Int, key: any CodingKey, depth: Int
) -> any Encoder {
  EncoderImpl(
    context: encoder.context, slot: member, depth: depth, model: Any.self, parent: encoder,
    key: key)
}

/// `Optional`, seen through `any`: a transform writes `null` for `nil`.
protocol OptionalEncodable {
  var isNone: Bool { get }
}

extension Optional: OptionalEncodable {
  var isNone: Bool { self == nil }
}

extension KeyedEncoding: UnknownKeysSink {
  /// Writes a model's `@UnknownKeys` members as they are (no key strategy), skipping a name
  /// the model wrote itself.
  func writeUnknownMembers(_ members: [String: JSON]) {
    for (name, value) in members where tree.member(of: container, named: name) == nil {
      let item = tree.appendMember(named: name, to: container)
      tree.appendJSON(value, into: item, depth: depth + 1)
    }
  }
}
