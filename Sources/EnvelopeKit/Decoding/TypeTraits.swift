import Foundation

/// What the decoder needs to know about a type, worked out once per type and decode. A class:
/// it is read out of the cache on every `unbox`, and a struct of dictionaries and metatypes
/// cost a retain per field there.
final class TypeTraits {
  /// How the decoder itself decodes the type, bypassing `init(from:)`; nil for most types.
  enum Special {
    case optional(any DecodableOptional.Type)
    case array(any DecodableArray.Type)
    case dictionary(any DecodableDictionary.Type)
    case date, decimal, url, data
  }

  /// The type's identity, the cache key.
  let id: ObjectIdentifier
  let special: Special?
  let isOptional: Bool
  let isRawRepresentable: Bool
  /// The declared initial values of a `LenientDecodable` type's properties, by name.
  let initialValues: [String: Any]?
  let caseDefaultable: (any CaseDefaultable.Type)?
  /// The key mappings and transforms set on the decoder for this type; nil for most types.
  let keyMappings: [String: KeyMapping]?
  /// Whether the type wants `didFinishDecoding()` after each decode.
  let finishesDecoding: Bool

  init(_ type: Any.Type, keyMappings: [String: KeyMapping]? = nil) {
    id = ObjectIdentifier(type)
    self.keyMappings = keyMappings
    if let optional = type as? any DecodableOptional.Type {
      special = .optional(optional)
    } else if let array = type as? any DecodableArray.Type {
      special = .array(array)
    } else if let dictionary = type as? any DecodableDictionary.Type, dictionary.isReadFromObject {
      special = .dictionary(dictionary)
    } else if type == Date.self {
      special = .date
    } else if type == Decimal.self {
      special = .decimal
    } else if type == URL.self {
      special = .url
    } else if type == Data.self {
      special = .data
    } else {
      special = nil
    }
    if case .optional = special { isOptional = true } else { isOptional = false }
    isRawRepresentable = type is any RawRepresentable.Type
    if let lenient = type as? any LenientDecodable.Type {
      initialValues = Self.initialValues(of: lenient)
    } else {
      initialValues = nil
    }
    caseDefaultable = type as? any CaseDefaultable.Type
    finishesDecoding = type is any DecodingFinishing.Type
  }

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
