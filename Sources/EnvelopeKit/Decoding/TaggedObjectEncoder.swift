import Foundation

// MARK: - Why this encoder exists
//
// A tagged value's tag is written into an object that its variant's value writes too: the
// whole object for a variant without a path, the object at the variant's path when the tag lies
// inside it (`payload.type` with the value at `payload`). The value writes first, then the tag
// goes through keyed containers at the same place. When the value wrote something other than an
// object there (a string, a number, null, an array), Foundation's `JSONEncoder` stops the
// program on the tag's keyed container ("Attempt to push new keyed encoding container when
// already previously encoded at this path"), and another encoder may do anything. The value
// therefore writes through `TaggedObjectEncoder`, which hands it the base encoder's keyed
// containers and refuses, by throwing, everything else where an object is needed: so no
// container the tag needs is ever asked for over a value that is not an object.

/// The first refusal of a tagged value's encode: kept because the `Encoder` calls that make an
/// array (`unkeyedContainer()`) cannot throw, so an empty array is found only when the encode
/// ends.
final class TaggedObjectCheck {
  /// The tagged value, for `EncodingError.invalidValue`.
  let value: Any
  /// The tagged type and tag, for the message.
  let owner: String
  private(set) var refusal: EncodingError?

  init(value: Any, type: Any.Type, tag: String) {
    self.value = value
    owner = "\(type)'s variant \"\(tag)\""
  }

  /// Records (the first) and returns the error for `found` written where an object is needed.
  func refuse(_ found: String, at codingPath: [any CodingKey]) -> EncodingError {
    if let refusal { return refusal }
    let error = EncodingError.invalidValue(
      value,
      EncodingError.Context(
        codingPath: codingPath,
        debugDescription:
          "\(owner) encoded \(found) where its tag is written into an object; the variant's"
          + " value must encode an object there (keyed container)."))
    refusal = error
    return error
  }
}

/// An encoder over `base` in which the value must write an object, and objects along
/// `objectKeys` inside it (the tag path's keys before the tag's own key).
struct TaggedObjectEncoder: Encoder {
  let base: any Encoder
  let objectKeys: ArraySlice<String>
  let check: TaggedObjectCheck

  var codingPath: [any CodingKey] { base.codingPath }
  var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let container = base.container(keyedBy: type)
    guard let guarded = objectKeys.first else { return container }
    return KeyedEncodingContainer(
      TaggedObjectKeyedContainer(
        base: container, guarded: guarded, rest: objectKeys.dropFirst(), check: check))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    _ = check.refuse("an array", at: codingPath)
    return RefusingUnkeyedContainer(codingPath: codingPath, check: check)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    TaggedObjectSingleValueContainer(encoder: self)
  }
}

/// A value encoded where the tag needs an object: writes through `TaggedObjectEncoder`.
///
/// The wrapper must not change what the value writes. `ModelEncoder` writes it as its own type
/// (`model`: that type's key mappings apply, as when the value is encoded directly), and a
/// dictionary with `String` keys, which every encoder writes by its own rule (no key strategy
/// converts its keys) and which is an object, is handed to the encoder as it is.
struct TaggedObjectValue: Encodable {
  let value: any Encodable
  let objectKeys: ArraySlice<String>
  let check: TaggedObjectCheck

  /// The value's own type: the model whose key mappings `ModelEncoder` applies to it.
  var model: Any.Type { type(of: value) }

  func encode(to encoder: any Encoder) throws {
    if objectKeys.isEmpty, value is any StringKeyedDictionary {
      var container = encoder.singleValueContainer()
      return try container.encode(value)
    }
    try value.encode(to: TaggedObjectEncoder(base: encoder, objectKeys: objectKeys, check: check))
  }
}

// MARK: - Containers

/// A single value where an object is needed: a value of another type is encoded in its place
/// (a wrapper around a model writes the model's object), through the base encoder's own
/// single-value container so that it is written as that type (its key mappings); a scalar or
/// null is refused.
private struct TaggedObjectSingleValueContainer: SingleValueEncodingContainer {
  let encoder: TaggedObjectEncoder
  var codingPath: [any CodingKey] { encoder.codingPath }

  private func refuse(_ found: String) -> EncodingError {
    encoder.check.refuse(found, at: codingPath)
  }

  mutating func encodeNil() throws { throw refuse("null") }
  mutating func encode(_ value: Bool) throws { throw refuse("a Bool") }
  mutating func encode(_ value: String) throws { throw refuse("a String") }
  mutating func encode(_ value: Double) throws { throw refuse("a number") }
  mutating func encode(_ value: Float) throws { throw refuse("a number") }
  mutating func encode(_ value: Int) throws { throw refuse("a number") }
  mutating func encode(_ value: Int8) throws { throw refuse("a number") }
  mutating func encode(_ value: Int16) throws { throw refuse("a number") }
  mutating func encode(_ value: Int32) throws { throw refuse("a number") }
  mutating func encode(_ value: Int64) throws { throw refuse("a number") }
  mutating func encode(_ value: UInt) throws { throw refuse("a number") }
  mutating func encode(_ value: UInt8) throws { throw refuse("a number") }
  mutating func encode(_ value: UInt16) throws { throw refuse("a number") }
  mutating func encode(_ value: UInt32) throws { throw refuse("a number") }
  mutating func encode(_ value: UInt64) throws { throw refuse("a number") }
  mutating func encode<T: Encodable>(_ value: T) throws {
    var container = encoder.base.singleValueContainer()
    try container.encode(
      TaggedObjectValue(value: value, objectKeys: encoder.objectKeys, check: encoder.check))
  }
}

/// The base encoder's keyed container, with `guarded`'s value held to an object.
private struct TaggedObjectKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  var base: KeyedEncodingContainer<Key>
  /// The guarded key, folded (see `isGuarded`).
  let guarded: String
  let rest: ArraySlice<String>
  let check: TaggedObjectCheck

  init(
    base: KeyedEncodingContainer<Key>, guarded: String, rest: ArraySlice<String>,
    check: TaggedObjectCheck
  ) {
    self.base = base
    self.guarded = Self.folded(guarded)
    self.rest = rest
    self.check = check
  }

  var codingPath: [any CodingKey] { base.codingPath }

  /// Whether `key` may be written where `guarded` is: compared without case, `_` and `-`,
  /// because the encoder's key strategy (which an `Encoder` does not show) may turn both into
  /// the same key (`metaInfo` and `meta_info` under `.convertToSnakeCase`), and a value that is
  /// not an object there would make `JSONEncoder` stop the program on the tag's container. A
  /// key that differs only so, holding no object, is refused even when no strategy joins them;
  /// a `.custom` strategy that joins other names is not seen.
  private func isGuarded(_ key: Key) -> Bool { Self.folded(key.stringValue) == guarded }

  private static func folded(_ name: String) -> String {
    String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
  }

  private func refuse(_ found: String, _ key: Key) throws {
    guard isGuarded(key) else { return }
    throw check.refuse(found, at: codingPath + [key])
  }

  mutating func encodeNil(forKey key: Key) throws {
    try refuse("null", key)
    try base.encodeNil(forKey: key)
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    try refuse("a Bool", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    try refuse("a String", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    try refuse("a number", key)
    try base.encode(value, forKey: key)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    guard isGuarded(key) else { return try base.encode(value, forKey: key) }
    try base.encode(TaggedObjectValue(value: value, objectKeys: rest, check: check), forKey: key)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = base.nestedContainer(keyedBy: keyType, forKey: key)
    guard isGuarded(key), let next = rest.first else { return nested }
    return KeyedEncodingContainer(
      TaggedObjectKeyedContainer<NestedKey>(
        base: nested, guarded: next, rest: rest.dropFirst(), check: check))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    guard isGuarded(key) else { return base.nestedUnkeyedContainer(forKey: key) }
    _ = check.refuse("an array", at: codingPath + [key])
    return RefusingUnkeyedContainer(codingPath: codingPath + [key], check: check)
  }

  mutating func superEncoder() -> any Encoder {
    base.superEncoder()
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let encoder = base.superEncoder(forKey: key)
    guard isGuarded(key) else { return encoder }
    return TaggedObjectEncoder(base: encoder, objectKeys: rest, check: check)
  }
}

/// An array where an object is needed: already refused (`TaggedObjectCheck`); every write
/// throws that refusal and writes nothing.
private struct RefusingUnkeyedContainer: UnkeyedEncodingContainer {
  let codingPath: [any CodingKey]
  let check: TaggedObjectCheck
  var count: Int { 0 }

  private func refuse() -> EncodingError { check.refuse("an array", at: codingPath) }

  mutating func encodeNil() throws { throw refuse() }
  mutating func encode(_ value: Bool) throws { throw refuse() }
  mutating func encode(_ value: String) throws { throw refuse() }
  mutating func encode(_ value: Double) throws { throw refuse() }
  mutating func encode(_ value: Float) throws { throw refuse() }
  mutating func encode(_ value: Int) throws { throw refuse() }
  mutating func encode(_ value: Int8) throws { throw refuse() }
  mutating func encode(_ value: Int16) throws { throw refuse() }
  mutating func encode(_ value: Int32) throws { throw refuse() }
  mutating func encode(_ value: Int64) throws { throw refuse() }
  mutating func encode(_ value: UInt) throws { throw refuse() }
  mutating func encode(_ value: UInt8) throws { throw refuse() }
  mutating func encode(_ value: UInt16) throws { throw refuse() }
  mutating func encode(_ value: UInt32) throws { throw refuse() }
  mutating func encode(_ value: UInt64) throws { throw refuse() }
  mutating func encode<T: Encodable>(_ value: T) throws { throw refuse() }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    KeyedEncodingContainer(RefusingKeyedContainer<NestedKey>(codingPath: codingPath, check: check))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }

  mutating func superEncoder() -> any Encoder {
    RefusingEncoder(codingPath: codingPath, check: check)
  }
}

/// A keyed container inside a refused array: writes nothing, throws the refusal.
private struct RefusingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let codingPath: [any CodingKey]
  let check: TaggedObjectCheck

  private func refuse() -> EncodingError { check.refuse("an array", at: codingPath) }

  mutating func encodeNil(forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Bool, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: String, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Double, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Float, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Int, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Int8, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Int16, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Int32, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: Int64, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: UInt, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { throw refuse() }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { throw refuse() }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw refuse() }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(RefusingKeyedContainer<NestedKey>(codingPath: codingPath, check: check))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    RefusingUnkeyedContainer(codingPath: codingPath, check: check)
  }

  mutating func superEncoder() -> any Encoder {
    RefusingEncoder(codingPath: codingPath, check: check)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    RefusingEncoder(codingPath: codingPath, check: check)
  }
}

/// An encoder inside a refused array: every container it makes writes nothing and throws.
private struct RefusingEncoder: Encoder {
  let codingPath: [any CodingKey]
  let check: TaggedObjectCheck
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(RefusingKeyedContainer<Key>(codingPath: codingPath, check: check))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    RefusingUnkeyedContainer(codingPath: codingPath, check: check)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    RefusingUnkeyedContainer(codingPath: codingPath, check: check)
  }
}

extension RefusingUnkeyedContainer: SingleValueEncodingContainer {}
