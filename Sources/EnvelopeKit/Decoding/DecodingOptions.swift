import Foundation

/// The settings of one decode call, fixed for its duration: the public decoder's strategies, the
/// leniency its policy stands for, and `userInfo` as models see it. A class, so the scalar reads
/// that take it pass one reference instead of copying every strategy.
final class DecodingOptions {
  let decoder: LenientDecoder
  /// Whether any model has key mappings or transforms (`LenientDecoder.map`, `.transform`).
  let hasKeyMappings: Bool
  /// Whether any key can be required (`missingKeys = .error` or `LenientDecoder.require`).
  let requiresKeys: Bool
  let leniency: Leniency
  let userInfo: [CodingUserInfoKey: Any]

  init(_ decoder: LenientDecoder) {
    self.decoder = decoder
    hasKeyMappings = !decoder.keyMappings.isEmpty
    requiresKeys = decoder.missingKeys == .error || !decoder.requiredKeys.isEmpty
    leniency = Leniency(decoder.policy)
    var info: [CodingUserInfoKey: Any] = [:]
    for (key, value) in decoder.userInfo { info[key] = value }
    if info[.envelopeFormat] == nil { info[.envelopeFormat] = decoder.envelope }
    userInfo = info
  }

  var maxDepth: Int { decoder.maxDepth }

  /// The keys of `model` that may not be missing or null; nil when none.
  func requirement(for model: Any.Type) -> KeyRequirement? {
    guard requiresKeys else { return nil }
    if let named = decoder.requiredKeys.requirement(for: model) { return named }
    return decoder.missingKeys == .error && decoder.policy == .lenient ? .all : nil
  }

  /// The non-conforming float a string stands for under the options, or nil.
  func nonConformingFloat(_ document: JSONDocument, _ index: Int) -> Double? {
    guard
      case .convertFromString(let positive, let negative, let nan) =
        decoder.nonConformingFloatDecodingStrategy
    else { return nil }
    let text = document.string(index)
    if text == positive { return .infinity }
    if text == negative { return -.infinity }
    if text == nan { return .nan }
    return nil
  }
}

/// The report entries of one decode, capped at `limit` stored entries with an exact count of
/// the rest, and rolled back when a value that made entries is dropped as a whole.
final class ReportRecorder {
  private(set) var entries: [DecodingReport.Entry] = []
  /// Every entry made, stored or not.
  private(set) var count = 0
  let limit: Int

  init(limit: Int) {
    self.limit = max(0, limit)
  }

  var report: DecodingReport {
    DecodingReport(entries: entries, omittedCount: count - entries.count)
  }

  /// A point to roll back to.
  var mark: Int { count }

  /// Forgets the entries made since `mark`.
  func rollback(to mark: Int) {
    count = mark
    if entries.count > mark { entries.removeSubrange(mark...) }
  }

  /// Adds an entry; `make` runs only when the entry is stored.
  func add(_ make: () -> DecodingReport.Entry) {
    if entries.count < limit { entries.append(make()) }
    count += 1
  }
}

/// What the decoder needs to know about a type, found once per type and decode call.
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
