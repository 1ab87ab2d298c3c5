import Foundation

/// The keys of a model's object that none of its other properties reads, kept so that writing
/// the model back does not erase what the server sent.
///
/// ```swift
/// struct Profile: Codable {
///   var name: String
///   @UnknownKeys var others: [String: JSON]
/// }
/// var profile = try LenientDecoder().decode(Profile.self, from: body)
/// profile.name = "Ada"
/// let put = try ModelEncoder().encode(profile)   // every key the server sent, name changed
/// ```
///
/// - Decoding (`LenientDecoder`, both policies): every member of the object whose key, after
///   the key decoding strategy, is not one of the model's coding keys and is not read through
///   a key mapping (`LenientDecoder.map`); the first occurrence of a duplicate key. Keys are
///   kept as written in the JSON (`"first_name"`, not `"firstName"`). A JSON key spelled like
///   the wrapped property itself (`"others"`) is kept too, since nothing else reads it. A model
///   with a custom `init(from:)` gets the keys its `CodingKeys` does not name.
/// - Encoding (`ModelEncoder`): the kept members are written into the model's object as they
///   are (no key encoding strategy applies); a member of the same name the model wrote before
///   them wins (declare the property last); `.sortedKeys` sorts them with the rest.
/// - Foundation's `JSONDecoder` decodes the model with `others` empty, and `JSONEncoder`
///   writes nothing for it: a `KeyedDecodingContainer` of another decoder does not show the
///   keys its `CodingKeys` lacks.
///
/// A model without `@UnknownKeys` pays nothing for it.
@propertyWrapper
public struct UnknownKeys: Codable, Sendable, Hashable {
  /// The kept members, by their JSON key.
  public var wrappedValue: [String: JSON]

  /// Keeps `wrappedValue`.
  ///
  /// - Parameter wrappedValue: the members, by their JSON key (none by default).
  public init(wrappedValue: [String: JSON] = [:]) {
    self.wrappedValue = wrappedValue
  }

  /// Reads the members as an object, when the value is decoded on its own (not as a model's
  /// property, where the container's `decode(_:forKey:)` below answers).
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError` when the value is not an object.
  public init(from decoder: any Decoder) throws {
    wrappedValue = try decoder.singleValueContainer().decode([String: JSON].self)
  }

  /// Writes the members as an object, when the value is encoded on its own.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: whatever the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    try single.encode(wrappedValue)
  }
}

extension KeyedDecodingContainer {
  /// The members of this container's object that none of `Key`'s other keys reads: what a
  /// model's `@UnknownKeys` property decodes as. Empty with decoders other than
  /// `LenientDecoder`.
  ///
  /// - Parameters:
  ///   - type: `UnknownKeys`.
  ///   - key: the wrapped property's key.
  /// - Returns: the members, by their JSON key.
  /// - Throws: `JSONReaderError` when a kept value nests deeper than `JSON.deepestValue`.
  public func decode(_ type: UnknownKeys.Type, forKey key: Key) throws -> UnknownKeys {
    // A super decoder for the key is the one way through the public API back to the
    // container this box holds; it reads nothing.
    guard let decoder = try superDecoder(forKey: key) as? DecoderImpl,
      let container = decoder.position.parent as? KeyedContainer<Key>
    else { return UnknownKeys() }
    return UnknownKeys(wrappedValue: try container.unknownMembers(besides: key))
  }
}

extension KeyedEncodingContainer {
  /// Writes a model's `@UnknownKeys` members into this container's object (`ModelEncoder`);
  /// nothing with other encoders.
  ///
  /// - Parameters:
  ///   - value: the members.
  ///   - key: the wrapped property's key (not written).
  /// - Throws: nothing today; declared for symmetry with `encode(_:forKey:)`.
  public mutating func encode(_ value: UnknownKeys, forKey key: Key) throws {
    guard !value.wrappedValue.isEmpty,
      let sink = Mirror(reflecting: self).descendant("_box", "concrete") as? any UnknownKeysSink
    else { return }
    sink.writeUnknownMembers(value.wrappedValue)
  }
}

/// An encoding container that takes a model's unknown members (`ModelEncoder`'s keyed one).
protocol UnknownKeysSink {
  /// Writes `members` into the container's object, each after any member of the same name.
  func writeUnknownMembers(_ members: [String: JSON])
}

extension KeyedContainer {
  /// The members of this object that no key of `Key` but `own` reads, by their JSON key.
  func unknownMembers(besides own: Key) throws -> [String: JSON] {
    guard let object else { return [:] }
    let convert = decoder.options.settings.keyDecodingStrategy.conversion(
      at: path, cache: decoder.options.customKeys)
    // JSON keys a mapping reads (the first step of each of its paths), and model keys whose
    // mapping reads elsewhere.
    var mappedReads = Set<String>()
    var movedKeys = Set<String>()
    for (name, mapping) in mappings?.byName ?? [:] where !mapping.paths.isEmpty {
      movedKeys.insert(name)
      for path in mapping.paths {
        if case .key(let first)? = path.components.first { mappedReads.insert(first) }
      }
    }
    var kept: [String: JSON] = [:]
    var seen = Set<String>()
    for member in document.members(of: object) {
      let raw = document.string(member.key)
      guard seen.insert(raw).inserted, !mappedReads.contains(raw) else { continue }
      let name = convert?(raw) ?? raw
      if name != own.stringValue, !movedKeys.contains(name), Key(stringValue: name) != nil {
        continue
      }
      kept[raw] = try JSON(document: document, index: member.value)
    }
    return kept
  }
}
