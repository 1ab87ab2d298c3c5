/// Makes the keyed containers of one `Key` type; `KeyedContainer<Key>` is the only conformer.
///
/// `DecoderImpl.container(keyedBy:)` is generic over a model's `Key` and runs unspecialised:
/// naming `KeyedContainer<Key>` there looks up the class's generic metadata and its
/// `KeyedDecodingContainerProtocol` witness table in the runtime's caches for every container
/// (two hash lookups, 5% of a 253 B envelope's decode in `perf`). Called through a kept
/// metatype (`KeyedContainerMaker`), both come with the call: the metatype is the metadata, and
/// the protocol's witness table holds the base protocol's. (`Key` is primary so that the
/// metatype can be named with it: the container made is then a `KeyedDecodingContainer<Key>`
/// without a cast, which would look up metadata again.)
protocol KeyedContainerMaking<Key>: KeyedDecodingContainerProtocol {
  init(
    decoder: DecoderImpl, parent: ContainerFrame, key: AnyCodingKey?, type: Any.Type,
    object: Int?, embedded: JSONDocument?, fallbacks: [String: Any]?,
    mappings: ModelKeyMappings?)
}

extension KeyedContainerMaking {
  /// A container for the object at token `object` (nil: the empty object) of `embedded`, or of
  /// `parent`'s document when nil, at the value `key` of `parent`. The arguments are consumed:
  /// the container keeps them (borrowed, each reference was retained twice, once for the call
  /// and once for the container, and released once after).
  @inline(__always)
  static func make(
    decoder: consuming DecoderImpl, parent: consuming ContainerFrame,
    key: consuming AnyCodingKey?, type: Any.Type, object: Int?,
    embedded: consuming JSONDocument?, fallbacks: consuming [String: Any]?,
    mappings: consuming ModelKeyMappings?
  ) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(
      Self(
        decoder: decoder, parent: parent, key: key, type: type, object: object,
        embedded: embedded, fallbacks: fallbacks, mappings: mappings))
  }
}

extension KeyedContainer: KeyedContainerMaking {}

/// `KeyedContainer<Key>`'s metatype and the identity of its `Key`, kept in the traits of the
/// model whose `init(from:)` asks for it (`TypeTraits.keyedContainer`). No reference: the
/// decoder reads its copy of the last traits' one without a retain.
struct KeyedContainerMaker {
  /// `Key`'s identity: the maker answers for this key type only.
  let key: ObjectIdentifier
  let type: any KeyedContainerMaking.Type

  /// The maker for `Key` (looks up the metadata and witness table, once).
  init<Key: CodingKey>(_ keys: Key.Type) {
    key = ObjectIdentifier(keys)
    type = KeyedContainer<Key>.self
  }

  /// The metatype named with its key type, `Key`, which the caller has compared with `key`.
  /// The one place the metatype is reinterpreted; debug builds check it.
  @inline(__always)
  func making<Key: CodingKey>(_ keys: Key.Type) -> any KeyedContainerMaking<Key>.Type {
    assert(key == ObjectIdentifier(keys) && type is any KeyedContainerMaking<Key>.Type)
    return unsafeBitCast(type, to: (any KeyedContainerMaking<Key>.Type).self)
  }
}
