import Foundation

/// Paths into a tagged value's object, read and written through keyed containers.
enum TaggedPath {
  /// The keys of `path`; an index is an error (tagged paths go through objects). The coding
  /// path is asked only for that error: it is an array built from the decoder's frames, and
  /// asking it for every tagged value was a fifth of reading the tag.
  static func keys(of path: JSONPath, codingPath: @autoclosure () -> [any CodingKey]) throws
    -> [AnyCodingKey]
  {
    try path.components.map { component in
      guard case .key = component else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: codingPath(),
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
  ///
  /// Where the tag goes into the object the value writes (no path, or the tag inside the
  /// value's path), the value writes through `TaggedObjectEncoder`: anything but an object
  /// there throws `EncodingError.invalidValue` before the tag's containers are asked for, under
  /// any encoder (`JSONEncoder` would stop the program on them).
  static func encode<T: TaggedEncodable>(
    _ value: T, variantPath: JSONPath?, to encoder: any Encoder
  )
    throws
  {
    let variantValue = value.variantValue
    var tagKeys = try encodingKeys(T.tagPath, encoder)
    guard let tagKey = tagKeys.popLast() else {
      throw invalid(value, encoder, "\(T.self).tagPath is empty.")
    }
    let tagPath = T.tagPath.components
    let valuePath = variantPath?.components ?? []
    // A tag at a key the value's path goes through is a string where the value needs an
    // object: no value of that variant can be written (nor read).
    if tagPath.count < valuePath.count && valuePath.starts(with: tagPath) {
      throw invalid(
        value, encoder,
        "\(T.self)'s variant \"\(value.tag)\" is at \(variantPath?.description ?? ""), inside its"
          + " tag at \(T.tagPath): the tag's value is a string, not an object.")
    }
    // The value before the tag when the tag lies inside it (`payload.type` beside a value at
    // `payload`), or is beside it in the same object (no path): the tag then goes through
    // nested containers, which every encoder makes in the object already there. Encoded after
    // the tag, the value replaced the object that held it.
    let tagInsideValue = tagPath.count > valuePath.count && tagPath.starts(with: valuePath)
    if tagInsideValue {
      let check = TaggedObjectCheck(value: value, type: T.self, tag: value.tag)
      let objectKeys = tagKeys.dropFirst(valuePath.count).map(\.stringValue)
      if valuePath.isEmpty {
        // The value's own `encode(to:)` into this encoder, as always (the object is the tagged
        // value's: a dictionary's keys go through the key strategy here).
        try variantValue.encode(
          to: TaggedObjectEncoder(base: encoder, objectKeys: objectKeys[...], check: check))
      } else {
        let guarded = TaggedObjectValue(
          value: variantValue, objectKeys: objectKeys[...], check: check)
        try encodeValue(guarded, at: variantPath, encoder)
      }
      // An array asked for and left empty throws nothing while it is written.
      if let refusal = check.refusal { throw refusal }
    }
    var root = encoder.container(keyedBy: AnyCodingKey.self)
    var tagContainer = nested(&root, tagKeys)
    try tagContainer.encode(value.tag, forKey: tagKey)
    if !tagInsideValue {
      try encodeValue(variantValue, at: variantPath, encoder)
    }
  }

  private static func invalid(_ value: Any, _ encoder: any Encoder, _ message: String)
    -> EncodingError
  {
    EncodingError.invalidValue(
      value, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: message))
  }

  /// Writes `value` at `path` of the encoder's object, or as the encoder's value when nil.
  private static func encodeValue(
    _ value: any Encodable, at path: JSONPath?, _ encoder: any Encoder
  )
    throws
  {
    guard let path else { return try value.encode(to: encoder) }
    var keys = try encodingKeys(path, encoder)
    guard let key = keys.popLast() else { return }
    var root = encoder.container(keyedBy: AnyCodingKey.self)
    var container = nested(&root, keys)
    try container.encode(value, forKey: key)
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
