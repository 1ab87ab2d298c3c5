import Foundation

/// Keyed access to one JSON object (or the empty object of a lenient fallback).
///
/// A class, not a struct: `KeyedDecodingContainer`'s box calls it through unspecialised generic
/// code that copied the struct (six references retained and released) on every `decode(forKey:)`;
/// one reference instead paid 5-8% on twitter.json and the small envelope. It is its own
/// `ContainerFrame` (document, path, declared initial values), which the positions it makes
/// share.
final class KeyedContainer<Key: CodingKey>: ContainerFrame, KeyedDecodingContainerProtocol {
  let decoder: DecoderImpl
  let object: Int?
  /// Key → value token, for keys a `.custom` strategy converts and for large objects; nil:
  /// scan the object.
  private let table: [String: Int]?
  /// Whether JSON keys read through `.convertFromSnakeCase` (compared byte by byte as the
  /// conversion writes them, see `SnakeCaseKeys`).
  private let snakeCase: Bool
  /// The model's key mappings and transforms (`LenientDecoder.map`, `.transform`); nil for
  /// almost every model, which then pays one nil check per key.
  let mappings: ModelKeyMappings?
  /// The keys that may not be missing or null (`missingKeys = .error`, `require`); nil for
  /// almost every container.
  private let requirement: KeyRequirement?
  /// Where the next key probably is (see `JSONDocument.valueIndex(forKey:inObject:cursor:)`).
  /// Unchecked exclusivity: only `lookup` touches it, never re-entrantly, and a checked access
  /// per key cost more than the lookup it saves.
  @exclusivity(unchecked) private var cursor: KeyCursor

  /// Objects with more members than this get a hash table instead of a scan per lookup, so
  /// decoding stays linear in huge objects without slowing small ones.
  private static var tableThreshold: Int { 64 }

  /// The container for `object`, made at `position`.
  convenience init(
    decoder: DecoderImpl, at position: DecodingPosition, object: ObjectValue,
    fallbacks: [String: Any]?, mappings: ModelKeyMappings? = nil
  ) {
    self.init(
      decoder: decoder, parent: position.parent, key: position.key, type: position.type,
      object: object.index, embedded: object.document, fallbacks: fallbacks, mappings: mappings)
  }

  /// The container for the object at token `object` (nil: the empty object) of `embedded`, or
  /// of `parent`'s document when nil, made at the value `key` of `parent` (a position taken
  /// apart: `DecoderImpl.container(keyedBy:)` reads these from its own position without
  /// copying it, and passes no document for an object in place: a document taken out of the
  /// position was retained twice more and released twice for every container).
  init(
    decoder: DecoderImpl, parent: ContainerFrame, key: AnyCodingKey?, type: Any.Type,
    object: Int?, embedded: JSONDocument?, fallbacks: [String: Any]?,
    mappings: ModelKeyMappings?
  ) {
    let document = embedded ?? parent.document
    self.decoder = decoder
    self.mappings = mappings
    requirement = decoder.options.requirement(for: type)
    self.object = object
    cursor = KeyCursor(object: object ?? 0)
    let rule = decoder.options.keyRule
    snakeCase = rule == .snakeCase
    // Most objects need no table: small, and read as they are or as snake case.
    if let index = object, rule == .custom || document.count(index) > Self.tableThreshold {
      table = Self.makeTable(
        decoder.options.settings.keyDecodingStrategy, decoder.options.customKeys,
        document, index, parent.path(with: key))
    } else {
      table = nil
    }
    super.init(parent: parent, key: key, document: document, fallbacks: fallbacks)
  }

  /// The lookup table a `.custom` key strategy or the object's size calls for; the first
  /// occurrence of a key wins, as in Foundation.
  private static func makeTable(
    _ strategy: LenientDecoder.KeyDecodingStrategy, _ customKeys: CustomKeyCache,
    _ document: JSONDocument, _ object: Int, _ path: @autoclosure () -> [any CodingKey]
  ) -> [String: Int] {
    let convert = strategy.conversion(at: path(), cache: customKeys)
    var table: [String: Int] = [:]
    table.reserveCapacity(document.count(object))
    for member in document.members(of: object) {
      let raw = document.string(member.key)
      let key = convert?(raw) ?? raw
      if table[key] == nil { table[key] = member.value }
    }
    return table
  }

  var codingPath: [any CodingKey] { path }

  var allKeys: [Key] {
    guard let object else { return [] }
    if let table {
      // Converted keys, in the object's order (value tokens increase along the object).
      return table.sorted { $0.value < $1.value }.compactMap { Key(stringValue: $0.key) }
    }
    var seen = Set<String>()
    return document.members(of: object).compactMap { member in
      let raw = document.string(member.key)
      let name = snakeCase ? convertFromSnakeCase(raw) : raw
      guard seen.insert(name).inserted else { return nil }
      return Key(stringValue: name)
    }
  }

  func contains(_ key: Key) -> Bool {
    if let mapping = mapping(key) { return mappedPosition(key, mapping, Any.self).index != nil }
    return lookup(key) != nil
  }

  // MARK: - Lookup

  /// The value token for `key`; the first occurrence wins, as in Foundation.
  @inline(__always)
  private func lookup(_ key: Key) -> Int? { lookup(name: key.stringValue) }

  /// `name` is consumed and handed on to the document's lookup (see `valueIndex`).
  @inline(__always)
  private func lookup(name: consuming String) -> Int? {
    guard let object else { return nil }
    if let table { return table[name] }
    if snakeCase {
      return document.valueIndex(
        forKey: name, inObject: object, cursor: &cursor, rule: SnakeCaseKeys.self)
    }
    return document.valueIndex(forKey: name, inObject: object, cursor: &cursor)
  }

  @inline(__always)
  private func position(_ key: Key, _ type: Any.Type) -> DecodingPosition {
    position(key, type, index: lookup(key))
  }

  @inline(__always)
  private func position(
    _ key: Key, _ type: Any.Type, index: Int?, allowsFallback: Bool = true
  ) -> DecodingPosition {
    DecodingPosition(
      parent: self, index: index, key: AnyCodingKey(key: key), allowsFallback: allowsFallback,
      type: type)
  }

  /// The position of an Optional's present value, as `DecoderImpl.presentOptional` reads it.
  @inline(__always)
  private func present(_ key: Key, _ type: Any.Type, index: Int) -> DecodingPosition {
    position(key, type, index: index, allowsFallback: false)
  }

  /// The position of a key the model decodes with `decode`; strict policy, and a required
  /// key in any policy, throws `keyNotFound` when it is missing.
  @inline(__always)
  private func required(_ key: Key, _ type: Any.Type) throws -> DecodingPosition {
    try required(key, type, index: lookup(key))
  }

  @inline(__always)
  private func required(_ key: Key, _ type: Any.Type, index: Int?) throws -> DecodingPosition {
    var position = position(key, type, index: index)
    try require(&position, key)
    return position
  }

  /// Marks the position of a required key (`missingKeys = .error`, `require`).
  @inline(__always)
  private func markRequired(_ position: inout DecodingPosition, _ name: @autoclosure () -> String) {
    // The name only when a requirement is set: `stringValue` is not free for every key.
    if let requirement, requirement.contains(name()) { position.requiresValue = true }
  }

  /// Marks a required key's position, and throws `keyNotFound` for a key that is missing where
  /// it may not be.
  @inline(__always)
  private func require(_ position: inout DecodingPosition, _ key: Key) throws {
    markRequired(&position, key.stringValue)
    if position.index == nil, !decoder.leniency.fallsBack || position.requiresValue {
      throw decoder.absentError(position.type, at: position, "No value.")
    }
  }

  // MARK: - Decoding

  func decodeNil(forKey key: Key) throws -> Bool {
    if let mapping = mapping(key) {
      var position = mappedPosition(key, mapping, Any?.self)
      try require(&position, key)
      return position.isMissingOrNull
    }
    let position = try required(key, Any?.self)
    guard let index = position.index else {
      // Lenient: a missing key reads as null; strict would have thrown keyNotFound.
      decoder.record(.nulled, at: position)
      return true
    }
    return document.kind(index) == .null
  }

  /// Fast path: a value that reads strictly needs no position (pays on every payload row).
  @inline(__always)
  private func scalar<T: JSONScalar>(_ type: T.Type, _ key: Key) throws -> T {
    if let mapping = mapping(key) { return try mapped(type, key, mapping) }
    let index = lookup(key)
    if let index, case .value(let value) = T.strictValue(document, index, decoder.options) {
      return value
    }
    return try decoder.scalar(T.self, at: try required(key, T.self, index: index))
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

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try scalar(type, key) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try scalar(type, key) }

  /// A nesting level passes through here: a key's mapping is looked up out of line, so that
  /// its temporaries are not part of this frame.
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    if mappings != nil { return try decodeMapped(type, key) }
    return try decoder.unbox(type, at: try required(key, type))
  }

  /// `decode` in a container with mappings.
  @inline(never)
  private func decodeMapped<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
    if let mapping = mapping(key) { return try mapped(type, key, mapping) }
    return try decoder.unbox(type, at: try required(key, type))
  }

  // MARK: - Optionals

  /// Missing or null is nil. Present but unusable is an error in strict policy; in lenient policy
  /// it is nil with a `nulled` report entry.
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try optional(type, key)
  }

  /// The scalar overloads share the generic rule; they exist so the standard library's
  /// defaults (which go through `contains` and `decodeNil`) are not used.
  /// A nesting level passes through here: as in `decode`, a mapping is looked up out of line.
  @inline(__always)
  private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
    if mappings != nil { return try optionalMapped(type, key) }
    guard let index = lookup(key), document.kind(index) != .null else { return nil }
    return try decoder.presentOptional(type, at: present(key, type, index: index))
  }

  /// `optional` in a container with mappings.
  @inline(never)
  private func optionalMapped<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
    if let mapping = mapping(key) { return try mappedOptional(type, key, mapping) }
    guard let index = lookup(key), document.kind(index) != .null else { return nil }
    return try decoder.presentOptional(type, at: present(key, type, index: index))
  }

  /// Scalars: as `optional`, with the strict read first and no position when it succeeds.
  @inline(__always)
  private func optional<T: JSONScalar>(_ type: T.Type, _ key: Key) throws -> T? {
    if let mapping = mapping(key) { return try mappedOptional(type, key, mapping) }
    guard let index = lookup(key), document.kind(index) != .null else { return nil }
    if case .value(let value) = T.strictValue(document, index, decoder.options) { return value }
    return try decoder.presentOptional(type, at: present(key, type, index: index))
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try optional(type, key)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try optional(type, key)
  }

  // Without these two the standard library's defaults answer (`contains`, `decodeNil`, then
  // `decode`): a lenient `"x"` would be a `defaulted` 0, not a `nulled` nil.
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
    try optional(type, key)
  }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
    try optional(type, key)
  }

  // MARK: - Mapped keys

  @inline(__always)
  private func mapping(_ key: Key) -> KeyMapping? {
    guard let mappings else { return nil }
    return mappings.mapping(for: key.stringValue)
  }

  /// Where a mapped key is read: the first of its paths that is present and not null, else the
  /// first null one, else (missing) the first; its own key when it has no paths.
  private func mappedPosition(_ key: Key, _ mapping: KeyMapping, _ type: Any.Type)
    -> DecodingPosition
  {
    guard let first = mapping.paths.first, let object else { return position(key, type) }
    var null: (JSONPath, Int)?
    for path in mapping.paths {
      guard let index = document.index(at: path, from: object) else { continue }
      if document.kind(index) != .null { return position(key, path, index, type) }
      if null == nil { null = (path, index) }
    }
    if let (path, index) = null { return position(key, path, index, type) }
    return position(key, first, nil, type)
  }

  /// The position of the value at `path` below this object, standing in for the model's `key`
  /// (its declared fallback moves with it); errors and reports name the path read.
  private func position(_ key: Key, _ path: JSONPath, _ index: Int?, _ type: Any.Type)
    -> DecodingPosition
  {
    guard let last = path.components.last else { return position(key, type, index: index) }
    let name = AnyCodingKey(last)
    let fallback = fallbacks?[key.stringValue].map { [name.stringValue: $0] }
    let steps = appending(path: JSONPath(Array(path.components.dropLast())))
    return DecodingPosition(
      parent: ContainerFrame(
        parent: steps, key: nil, document: document, fallbacks: fallback),
      index: index, key: name, type: type)
  }

  private func mapped<T: Decodable>(_ type: T.Type, _ key: Key, _ mapping: KeyMapping) throws -> T {
    var position = mappedPosition(key, mapping, type)
    if let transform = mapping.transform {
      // The transform's own rule decides a missing value (its fallback or error).
      markRequired(&position, key.stringValue)
      return try decoder.transformed(type, transform, at: position)
    }
    try require(&position, key)
    return try decoder.unbox(type, at: position)
  }

  private func mappedOptional<T: Decodable>(_ type: T.Type, _ key: Key, _ mapping: KeyMapping)
    throws -> T?
  {
    let position = mappedPosition(key, mapping, type)
    guard !position.isMissingOrNull else { return nil }
    if let transform = mapping.transform {
      return try decoder.transformedOptional(type, transform, at: position)
    }
    return try decoder.presentOptional(type, at: position)
  }

  // MARK: - Nesting

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let position = try required(key, [String: Any].self)
    let object = try decoder.objectValue(at: position)
    return KeyedDecodingContainer(
      KeyedContainer<NestedKey>(decoder: decoder, at: position, object: object, fallbacks: nil))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let position = try required(key, [Any].self)
    let elements = try decoder.arrayElements(at: position)
    return UnkeyedContainer(
      decoder: decoder, elements: elements,
      frame: position.frame(document: elements.document(at: position)))
  }

  func superDecoder() throws -> any Decoder {
    superDecoder(key: AnyCodingKey.super)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    superDecoder(key: AnyCodingKey(key))
  }

  private func superDecoder(key: AnyCodingKey) -> any Decoder {
    var position = DecodingPosition(
      parent: self, index: lookup(name: key.stringValue), key: key, type: Any.self)
    position.readsMissingAsNull = true
    markRequired(&position, key.stringValue)
    return DecoderImpl(sharing: decoder, at: position)
  }
}

extension LenientDecoder.KeyDecodingStrategy {
  /// How a JSON key in the object at `path` becomes the key a model asks for; nil when keys are
  /// used as they are. A `.custom` closure's results go through `cache` when there is one (the
  /// decoder's: see `CustomKeyCache`).
  func conversion(
    at path: @autoclosure () -> [any CodingKey], cache: CustomKeyCache? = nil
  ) -> ((String) -> String)? {
    switch self {
    case .useDefaultKeys:
      return nil
    case .convertFromSnakeCase:
      return EnvelopeKit.convertFromSnakeCase
    case .custom(let custom):
      let base = path()
      if let cache { return cache.conversion(custom, at: base) }
      return { custom(base + [AnyCodingKey(stringValue: $0)]).stringValue }
    }
  }
}

/// Foundation's snake-case conversion: `first_name` → `firstName`, leading and trailing
/// underscores kept, a key with no inner underscore unchanged.
package func convertFromSnakeCase(_ key: String) -> String {
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
