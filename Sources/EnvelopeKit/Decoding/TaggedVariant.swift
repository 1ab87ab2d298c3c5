import Foundation

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
  public init<V: Decodable & SendableMetatype>(
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
