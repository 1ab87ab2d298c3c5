import Foundation

/// What the decoder needs to know about a type. A class: it is read out of the cache on every
/// `unbox`, and a struct of dictionaries and metatypes cost a retain per field there.
///
/// Worked out once per process for most types (`shared(_:)`: the casts it takes are most of a
/// small decode's fixed cost otherwise), once per decoder settings for a type with key mappings
/// or transforms (`TraitTable.mapped`), and once per decode for a type with declared initial
/// values, whose values each decode gets afresh.
///
/// `@unchecked Sendable`: immutable; the shared ones hold only metatypes and flags.
final class TypeTraits: @unchecked Sendable {
  /// How the decoder itself decodes the type, bypassing `init(from:)`; nil for most types.
  enum Special {
    case optional(any DecodableOptional.Type)
    case array(any DecodableArray.Type)
    case dictionary(any DecodableDictionary.Type)
    /// The Foundation types `JSONDecoder` reads by its strategies.
    case value(FoundationValue)
  }

  /// The Foundation types the decoder reads itself, as `JSONDecoder` does.
  enum FoundationValue {
    case date, decimal, url, data
  }

  /// What `unbox` asks of the type for every value (see `Shape`).
  let shape: Shape
  /// The declared initial values of a `LenientDecodable` type's properties, by name.
  let initialValues: [String: Any]?
  /// The key mappings and transforms set on the decoder for this type; nil for most types.
  let keyMappings: ModelKeyMappings?

  /// The type's identity, the cache key.
  var id: ObjectIdentifier { shape.id }

  /// What `unbox` asks of a type for every value, with no reference in it: the decoder keeps
  /// the last type's shape and reads it without a retain and a release (the traits object cost
  /// both on every value, a tenth of the reference counting of canada's decode).
  struct Shape {
    let id: ObjectIdentifier
    let special: Special?
    let isOptional: Bool
    let isRawRepresentable: Bool
    /// Whether `init(from:)` with the decoder at the value is all a decode takes: no special
    /// type, raw value, declared initial values, default case or `didFinishDecoding()`. The
    /// usual model; `DecoderImpl.unbox` decodes it without leaving its own frame.
    let isPlain: Bool
    /// Whether the type has declared initial values (`initialValues` is not nil).
    let hasInitialValues: Bool
    let caseDefaultable: (any CaseDefaultable.Type)?
    /// Whether the type wants `didFinishDecoding()` after each decode.
    let finishesDecoding: Bool
  }

  /// The maker of the keyed containers the type's `init(from:)` asked for first; nil until a
  /// decode asks (`DecoderImpl.keyedContainerMaker(_:)`), and in traits of one decode. Not in
  /// `Shape`: the shape is copied for every value (three words more there cost canada.json,
  /// an array per coordinate pair, 1.3%).
  let keyedContainer: KeyedContainerMaker?

  /// The same traits with `maker` kept (see `keyedContainer`).
  private init(_ other: TypeTraits, keeping maker: KeyedContainerMaker) {
    shape = other.shape
    keyedContainer = maker
    initialValues = other.initialValues
    keyMappings = other.keyMappings
  }

  /// Made for one decode: the decoder's key mappings, or initial values that may be objects
  /// each decode must get afresh. Every other type's traits are shared (`shared(_:)`).
  var belongsToOneDecode: Bool { keyMappings != nil || initialValues != nil }

  init(_ type: Any.Type, keyMappings: ModelKeyMappings? = nil) {
    self.keyMappings = keyMappings
    keyedContainer = nil
    let special: Special?
    if let optional = type as? any DecodableOptional.Type {
      special = .optional(optional)
    } else if let array = type as? any DecodableArray.Type {
      special = .array(array)
    } else if let dictionary = type as? any DecodableDictionary.Type, dictionary.isReadFromObject {
      special = .dictionary(dictionary)
    } else if type == Date.self {
      special = .value(.date)
    } else if type == Decimal.self {
      special = .value(.decimal)
    } else if type == URL.self {
      special = .value(.url)
    } else if type == Data.self {
      special = .value(.data)
    } else {
      special = nil
    }
    let isOptional: Bool
    if case .optional = special { isOptional = true } else { isOptional = false }
    let isRawRepresentable = type is any RawRepresentable.Type
    if let lenient = type as? any LenientDecodable.Type {
      initialValues = Self.initialValues(of: lenient)
    } else {
      initialValues = nil
    }
    let caseDefaultable = type as? any CaseDefaultable.Type
    let finishesDecoding = type is any DecodingFinishing.Type
    shape = Shape(
      id: ObjectIdentifier(type), special: special, isOptional: isOptional,
      isRawRepresentable: isRawRepresentable,
      isPlain: special == nil && !isRawRepresentable && initialValues == nil
        && caseDefaultable == nil && !finishesDecoding,
      hasInitialValues: initialValues != nil, caseDefaultable: caseDefaultable,
      finishesDecoding: finishesDecoding)
  }

  /// The traits of a type with no key mappings, from the process-wide cache; a
  /// `LenientDecodable` type's are worked out afresh (its initial values may be objects).
  static func shared(_ type: Any.Type) -> TypeTraits {
    let id = ObjectIdentifier(type)
    if let cached = sharedCache.cached(id) { return cached }
    let traits = TypeTraits(type)
    if !traits.belongsToOneDecode { sharedCache.keep(traits, for: id) }
    return traits
  }

  /// `traits` (shared ones, see `shared(_:)`) with `maker` kept, in place of `traits` in the
  /// process-wide cache. The traits are immutable: a decode holding the old ones goes on with
  /// them; two threads that both replace them store equal traits.
  static func sharedKeeping(_ maker: KeyedContainerMaker, in traits: TypeTraits) -> TypeTraits {
    let kept = TypeTraits(traits, keeping: maker)
    sharedCache.keep(kept, for: kept.id)
    return kept
  }

  private static let sharedCache = TraitTable()

  private static func initialValues(of type: any LenientDecodable.Type) -> [String: Any] {
    var values: [String: Any] = [:]
    for child in Mirror(reflecting: type.init()).children {
      guard var label = child.label else { continue }
      // Property wrappers store `_name`.
      if label.hasPrefix("_") { label.removeFirst() }
      values[label] = child.value
    }
    return values
  }
}

/// Traits by type, behind a lock (held for one lookup): the process-wide ones, and those of the
/// types a decoder's settings map (`DecodingOptions.mappedTraits`).
///
/// A lookup reads a direct-mapped array of 256 slots, indexed by the metadata pointer's bits,
/// before the dictionary: every decode asks for its model types here (the first eight are not
/// kept by the decode), and the dictionary's SipHash was half of it, 2% of a 253 B envelope's
/// decode.
///
/// `@unchecked Sendable`: `traits` and `slots` are only touched with `lock` held.
final class TraitTable: @unchecked Sendable {
  private let lock = NSLock()
  @exclusivity(unchecked) private var traits: [ObjectIdentifier: TypeTraits] = [:]
  /// Empty until the first `keep`: every `DecodingOptions` has a table, most never used.
  @exclusivity(unchecked) private var slots: [TypeTraits?] = []

  /// The slot of `id` (`ObjectIdentifier.slot(mask:)`).
  private static func slot(_ id: ObjectIdentifier) -> Int { id.slot(mask: 255) }

  /// The traits kept for `id`, if any.
  func cached(_ id: ObjectIdentifier) -> TypeTraits? {
    let slot = Self.slot(id)
    lock.lock()
    defer { lock.unlock() }
    guard !slots.isEmpty else { return nil }
    if let hit = slots[slot], hit.id == id { return hit }
    guard let found = traits[id] else { return nil }
    slots[slot] = found
    return found
  }

  /// Keeps `traits` for `id` (a later `cached(id)` answers it).
  func keep(_ traits: TypeTraits, for id: ObjectIdentifier) {
    lock.lock()
    defer { lock.unlock() }
    self.traits[id] = traits
    if slots.isEmpty { slots = [TypeTraits?](repeating: nil, count: 256) }
    slots[Self.slot(id)] = traits
  }

  /// The traits of `type` with `mappings` (the key mappings and transforms of the settings that
  /// own this table), worked out once for the settings' life: a transform's model is decoded
  /// in every call, and its casts cost 17% of a decode when made per call. A type with
  /// declared initial values gets them afresh each time.
  func mapped(_ type: Any.Type, _ mappings: [String: KeyMapping]) -> TypeTraits {
    let id = ObjectIdentifier(type)
    if let cached = cached(id) { return cached }
    let traits = TypeTraits(type, keyMappings: ModelKeyMappings(mappings))
    if traits.initialValues == nil { keep(traits, for: id) }
    return traits
  }
}
