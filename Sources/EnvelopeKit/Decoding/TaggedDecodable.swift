import Foundation

/// A value whose JSON says which of several shapes it has: a tag (`"type": "PushEvent"`) picks
/// the variant, and the variant's value is the whole object or the value at a path beside the
/// tag (`"payload"`).
///
/// Name the tag's path and the variants; the default `init(from:)` does the rest, with any
/// `Decoder` (it uses only the `Decoder` API, so Foundation's `JSONDecoder` decodes the type
/// too):
///
/// ```swift
/// enum Event: TaggedDecodable {
///   case push(PushPayload)
///   case watch(WatchPayload)
///   case other(tag: String?, json: JSON)
///
///   static let tagPath: JSONPath = "type"
///   static let variants: [String: TaggedVariant<Event>] = [
///     "PushEvent": TaggedVariant(PushPayload.self, at: "payload") { .push($0) },
///     "WatchEvent": TaggedVariant(WatchPayload.self, at: "payload") { .watch($0) },
///   ]
///   static func unknown(tag: String?, json: JSON) -> Event? { .other(tag: tag, json: json) }
/// }
/// ```
///
/// The tag's path is read through keyed containers, as a coding key is: under a key decoding
/// strategy such as `.convertFromSnakeCase`, write its keys as the strategy makes them
/// (`"eventType"` for `"event_type"`). Paths are made of keys only.
///
/// - A missing (or null) tag throws `DecodingError.keyNotFound` naming the tag path, in both
///   policies.
/// - A tag no variant names is `unknown(tag:json:)` when that gives a value (the whole object
///   kept as `JSON`; `LenientDecoder`'s report gets an `unknownVariant` entry in both policies,
///   which is not drift). When it gives nil, decoding throws `DecodingError.dataCorrupted`:
///   strict policy fails, and lenient policy drops the value where it drops any value that
///   throws (an array element, reported `dropped`; a present Optional, reported `nulled`) and
///   fails elsewhere.
public protocol TaggedDecodable: Decodable {
  /// Where the tag is, from the value's object: `"type"`, `"meta.kind"`.
  static var tagPath: JSONPath { get }
  /// The variants by tag value.
  static var variants: [String: TaggedVariant<Self>] { get }
  /// The value for a tag no variant names; nil (the default) makes such a tag an error.
  ///
  /// - Parameters:
  ///   - tag: the tag read.
  ///   - json: the whole object, as it was in the document.
  /// - Returns: the value to use, or nil to reject the tag.
  static func unknown(tag: String?, json: JSON) -> Self?
}

/// One variant of a `TaggedDecodable` type: the type its value decodes as, where that value is,
/// and how it becomes the tagged type.
public struct TaggedVariant<Base>: Sendable {
  /// Where the variant's value is, from the tagged object; nil: the whole object.
  let path: JSONPath?
  /// Decodes the whole object (`decoder` at the tagged value).
  private let decodeWhole: @Sendable (any Decoder) throws -> Base
  /// Decodes the value at `key` of `container`, the object holding the path's last key.
  private let decodeMember:
    @Sendable (KeyedDecodingContainer<AnyCodingKey>, AnyCodingKey) throws -> Base

  /// A variant whose value is a `V`.
  ///
  /// - Parameters:
  ///   - type: the type the variant's value decodes as.
  ///   - path: where that value is, from the tagged object (keys only, e.g. `"payload"`); nil
  ///     for the whole object (the tag is then one of its keys, which `V` may ignore).
  ///   - make: makes the tagged value from the variant's value.
  public init<V: Decodable>(
    _ type: V.Type, at path: JSONPath? = nil, _ make: @escaping @Sendable (V) -> Base
  ) {
    self.path = path.flatMap { $0.isEmpty ? nil : $0 }
    decodeWhole = { decoder in make(try decoder.singleValueContainer().decode(V.self)) }
    decodeMember = { container, key in make(try container.decode(V.self, forKey: key)) }
  }

  /// The variant's value, decoded from the tagged value at `decoder`.
  func decode(from decoder: any Decoder) throws -> Base {
    guard let path else { return try decodeWhole(decoder) }
    let (container, key) = try TaggedPath.container(holding: path, in: decoder)
    return try decodeMember(container, key)
  }
}

extension TaggedDecodable {
  /// No value for unknown tags: they are an error.
  ///
  /// - Parameters:
  ///   - tag: the tag read.
  ///   - json: the whole object.
  /// - Returns: nil.
  public static func unknown(tag: String?, json: JSON) -> Self? { nil }

  /// Reads the tag at `tagPath`, then decodes the variant it names.
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError.keyNotFound` when the tag is missing or null;
  ///   `DecodingError.dataCorrupted` for a tag no variant names when `unknown(tag:json:)`
  ///   gives nil; whatever decoding the variant's value throws.
  public init(from decoder: any Decoder) throws {
    let tag = try TaggedPath.readTag(at: Self.tagPath, of: Self.self, in: decoder)
    if let variant = Self.variants[tag] {
      self = try variant.decode(from: decoder)
      return
    }
    let json = try decoder.singleValueContainer().decode(JSON.self)
    guard let kept = Self.unknown(tag: tag, json: json) else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "Unknown tag \"\(tag)\" at \(Self.tagPath) for \(Self.self); expected one of "
            + Self.variants.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ") + "."))
    }
    (decoder as? DecoderImpl)?.recordUnknownVariant(tag)
    self = kept
  }
}

/// A value that writes a tag and its variant's value: the encoding side of `TaggedDecodable`.
///
/// The default `encode(to:)` writes `tag` at `tagPath` and `variantValue` where the variant
/// named by the tag reads it (for a type that is also `TaggedDecodable`): at its path, or
/// merged into the object with the tag for a variant of the whole object. A tag no variant
/// names with a `JSON` value (the object kept by `unknown(tag:json:)`) is written as it is,
/// so decode → encode → decode gives the same value. Works with `ModelEncoder` and
/// Foundation's `JSONEncoder`.
public protocol TaggedEncodable: Encodable {
  /// Where the tag is written, from the value's object.
  static var tagPath: JSONPath { get }
  /// The tag of this value's variant.
  var tag: String { get }
  /// This value's variant's value.
  var variantValue: any Encodable { get }
}

extension TaggedEncodable {
  /// Writes `variantValue`'s members and `tag` at `tagPath` into one object.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: whatever encoding the variant's value throws.
  public func encode(to encoder: any Encoder) throws {
    try TaggedPath.encode(self, variantPath: nil, to: encoder)
  }
}

extension TaggedEncodable where Self: TaggedDecodable {
  /// Writes `tag` at `tagPath` and `variantValue` where its variant reads it; an unknown
  /// variant's `JSON` as it is.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: whatever encoding the variant's value throws.
  public func encode(to encoder: any Encoder) throws {
    guard let variant = Self.variants[tag] else {
      if let json = variantValue as? JSON { return try json.encode(to: encoder) }
      return try TaggedPath.encode(self, variantPath: nil, to: encoder)
    }
    try TaggedPath.encode(self, variantPath: variant.path, to: encoder)
  }
}

extension DecoderImpl {
  /// Reports a tag that no variant names, kept by the type's `unknown(tag:json:)`.
  func recordUnknownVariant(_ tag: String) {
    let position = self.position
    recorder.add {
      DecodingReport.Entry(
        path: formatCodingPath(position.codingPath), kind: .unknownVariant,
        expected: String(describing: position.type), found: "tag \"\(tag)\"")
    }
  }
}

/// Paths into a tagged value's object, read and written through keyed containers.
enum TaggedPath {
  /// The keys of `path`; an index is an error (tagged paths go through objects).
  static func keys(of path: JSONPath, codingPath: [any CodingKey]) throws -> [AnyCodingKey] {
    try path.components.map { component in
      guard case .key = component else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "The tagged path \(path) has an array index; it may hold keys only."
          ))
      }
      return AnyCodingKey(component)
    }
  }

  /// The container holding `path`'s last key, and that key.
  static func container(holding path: JSONPath, in decoder: any Decoder) throws -> (
    KeyedDecodingContainer<AnyCodingKey>, AnyCodingKey
  ) {
    var keys = try keys(of: path, codingPath: decoder.codingPath)
    var container = try decoder.container(keyedBy: AnyCodingKey.self)
    let last = keys.removeLast()
    for key in keys {
      container = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: key)
    }
    return (container, last)
  }

  /// The tag at `path`; `keyNotFound` naming the path when it (or a step to it) is missing or
  /// null.
  static func readTag(at path: JSONPath, of type: Any.Type, in decoder: any Decoder) throws
    -> String
  {
    guard !path.isEmpty else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "\(type).tagPath is empty."))
    }
    var keys = try keys(of: path, codingPath: decoder.codingPath)
    var container = try decoder.container(keyedBy: AnyCodingKey.self)
    let last = keys.removeLast()
    func missing(_ key: AnyCodingKey) -> DecodingError {
      DecodingError.keyNotFound(
        key,
        DecodingError.Context(
          codingPath: container.codingPath,
          debugDescription: "No tag at \(path) for \(type): no value for \"\(key.stringValue)\"."))
    }
    for key in keys {
      guard container.contains(key), try !container.decodeNil(forKey: key) else {
        throw missing(key)
      }
      container = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: key)
    }
    guard container.contains(last), try !container.decodeNil(forKey: last) else {
      throw missing(last)
    }
    return try container.decode(String.self, forKey: last)
  }

  /// Writes `value`'s tag at its tag path and its variant's value at `variantPath`, or into
  /// the same object when `variantPath` is nil.
  static func encode<T: TaggedEncodable>(
    _ value: T, variantPath: JSONPath?, to encoder: any Encoder
  )
    throws
  {
    let variantValue = value.variantValue
    if variantPath == nil { try variantValue.encode(to: encoder) }
    var root = encoder.container(keyedBy: AnyCodingKey.self)
    var tagKeys = try encodingKeys(T.tagPath, encoder)
    guard let tagKey = tagKeys.popLast() else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: encoder.codingPath, debugDescription: "\(T.self).tagPath is empty."))
    }
    var tagContainer = nested(&root, tagKeys)
    try tagContainer.encode(value.tag, forKey: tagKey)
    guard let variantPath else { return }
    var valueKeys = try encodingKeys(variantPath, encoder)
    guard let valueKey = valueKeys.popLast() else { return }
    var valueContainer = nested(&root, valueKeys)
    try valueContainer.encode(variantValue, forKey: valueKey)
  }

  private static func encodingKeys(_ path: JSONPath, _ encoder: any Encoder) throws
    -> [AnyCodingKey]
  {
    do {
      return try keys(of: path, codingPath: encoder.codingPath)
    } catch {
      throw EncodingError.invalidValue(
        path.description,
        EncodingError.Context(
          codingPath: encoder.codingPath,
          debugDescription: "The tagged path \(path) has an array index; it may hold keys only."))
    }
  }

  private static func nested(
    _ root: inout KeyedEncodingContainer<AnyCodingKey>, _ keys: [AnyCodingKey]
  ) -> KeyedEncodingContainer<AnyCodingKey> {
    var container = root
    for key in keys {
      container = container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: key)
    }
    return container
  }
}
