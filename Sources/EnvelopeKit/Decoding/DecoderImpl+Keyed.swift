import Foundation

/// Keyed access to one JSON object (or the empty object of a lenient fallback).
struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  private let decoder: DecoderImpl
  private let document: JSONDocument
  private let object: Int?
  private let path: CodingPathNode
  private let defaults: [String: Any]?
  /// Keys after the key decoding strategy, parallel to the object's members; nil with default keys.
  private let convertedKeys: [String]?

  init(decoder: DecoderImpl, object: ObjectRef, path: CodingPathNode, defaults: [String: Any]?) {
    self.decoder = decoder
    self.document = object.document
    self.object = object.index
    self.path = path
    self.defaults = defaults
    switch decoder.state.options.keyDecodingStrategy {
    case .useDefaultKeys:
      convertedKeys = nil
    case .convertFromSnakeCase:
      convertedKeys = Self.rawKeys(document, object.index).map(convertFromSnakeCase)
    case .custom(let convert):
      let base = path.path
      convertedKeys = Self.rawKeys(document, object.index).map {
        convert(base + [AnyCodingKey(stringValue: $0)]).stringValue
      }
    }
  }

  var codingPath: [any CodingKey] { path.path }

  var allKeys: [Key] {
    var seen = Set<String>()
    return (convertedKeys ?? Self.rawKeys(document, object)).compactMap { name in
      guard seen.insert(name).inserted else { return nil }
      return Key(stringValue: name)
    }
  }

  func contains(_ key: Key) -> Bool { lookup(key) != nil }

  // MARK: - Lookup

  private static func rawKeys(_ document: JSONDocument, _ object: Int?) -> [String] {
    guard let object else { return [] }
    var keys: [String] = []
    var child = object + 1
    let end = document.next(object)
    while child < end {
      keys.append(document.string(child))
      child = document.next(child + 1)
    }
    return keys
  }

  /// The value token for `key`; the first occurrence wins, as in Foundation.
  @inline(__always)
  private func lookup(_ key: Key) -> Int? {
    guard let object else { return nil }
    guard let convertedKeys else {
      return document.valueIndex(forKey: key.stringValue, inObject: object)
    }
    guard let position = convertedKeys.firstIndex(of: key.stringValue) else { return nil }
    var child = object + 1
    for _ in 0..<position { child = document.next(child + 1) }
    return child + 1
  }

  @inline(__always)
  private func ref(_ key: Key) -> ValueRef { ValueRef(document: document, index: lookup(key)) }

  // MARK: - Decoding

  func decodeNil(forKey key: Key) throws -> Bool {
    guard let index = lookup(key) else {
      if decoder.state.isLenient { return true }
      throw decoder.state.strictError(Any?.self, ref(key), path, key)
    }
    return document.kind(index) == .null
  }

  @inline(__always)
  private func scalar<T: JSONScalar>(_ type: T.Type, _ key: Key) throws -> T {
    try decoder.scalar(T.self, ref(key), parent: path, key: key, defaults: defaults)
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let value = ref(key)
    if value.index == nil, !decoder.state.isLenient {
      throw decoder.state.strictError(T.self, value, path, key)
    }
    return try decoder.unbox(T.self, value, parent: path, key: key, defaults: defaults)
  }

  // MARK: - Optionals

  /// Missing or null is nil. Present but unusable is an error in strict policy; in lenient policy
  /// it is nil with a `nulled` report entry.
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try optional(T.self, key)
  }

  private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
    guard let index = lookup(key), document.kind(index) != .null else { return nil }
    let value = ValueRef(document: document, index: index)
    let state = decoder.state
    guard state.isLenient else { return try decoder.unbox(T.self, value, parent: path, key: key) }
    let mark = state.entries.count
    do {
      return try decoder.unbox(T.self, value, parent: path, key: key, allowsFallback: false)
    } catch {
      state.truncateEntries(to: mark)
      state.report(.nulled, T.self, value, path, key)
      return nil
    }
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try optional(Bool.self, key)
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try optional(String.self, key)
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try optional(Double.self, key)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try optional(Float.self, key)
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try optional(Int.self, key)
  }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try optional(Int8.self, key)
  }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try optional(Int16.self, key)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try optional(Int32.self, key)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try optional(Int64.self, key)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try optional(UInt.self, key)
  }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try optional(UInt8.self, key)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try optional(UInt16.self, key)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try optional(UInt32.self, key)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try optional(UInt64.self, key)
  }

  // MARK: - Nesting

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let value = ref(key)
    if value.index == nil, !decoder.state.isLenient {
      throw decoder.state.strictError([String: Any].self, value, path, key)
    }
    let nestedPath = path.appending(key)
    let object = try decoder.objectRef(
      value, path: nestedPath, allowsFallback: true, expected: [String: Any].self)
    return KeyedDecodingContainer(
      KeyedContainer<NestedKey>(decoder: decoder, object: object, path: nestedPath, defaults: nil))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let value = ref(key)
    if value.index == nil, !decoder.state.isLenient {
      throw decoder.state.strictError([Any].self, value, path, key)
    }
    let nestedPath = path.appending(key)
    let source = try decoder.arraySource(
      value, path: nestedPath, allowsFallback: true, expected: [Any].self)
    return UnkeyedContainer(decoder: decoder, source: source, path: nestedPath)
  }

  func superDecoder() throws -> any Decoder {
    try superDecoder(key: AnyCodingKey.super)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    try superDecoder(key: AnyCodingKey(key))
  }

  private func superDecoder(key: AnyCodingKey) throws -> any Decoder {
    let index = object.flatMap { document.valueIndex(forKey: key.stringValue, inObject: $0) }
    return DecoderImpl(
      state: decoder.state, value: ValueRef(document: document, index: index),
      path: path.appending(key))
  }
}

/// Foundation's snake-case conversion: `first_name` → `firstName`, leading and trailing
/// underscores kept, a key with no inner underscore unchanged.
func convertFromSnakeCase(_ key: String) -> String {
  guard !key.isEmpty, let first = key.firstIndex(where: { $0 != "_" }) else { return key }
  var last = key.index(before: key.endIndex)
  while last > first, key[last] == "_" { last = key.index(before: last) }
  let core = key[first...last]
  let components = core.split(separator: "_")
  guard components.count > 1 else { return key }
  let joined = ([components[0].lowercased()] + components.dropFirst().map { $0.capitalized })
    .joined()
  return String(key[..<first]) + joined + String(key[key.index(after: last)...])
}
