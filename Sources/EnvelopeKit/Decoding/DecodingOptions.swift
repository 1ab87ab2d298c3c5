import Foundation

/// Every setting of a `LenientDecoder`, as one value.
struct DecoderSettings: Sendable {
  var policy: DecodingPolicy = .lenient
  var keyDecodingStrategy: LenientDecoder.KeyDecodingStrategy = .useDefaultKeys
  var dateDecodingStrategy: LenientDecoder.DateDecodingStrategy = .deferredToDate
  var dataDecodingStrategy: LenientDecoder.DataDecodingStrategy = .base64
  var nonConformingFloatDecodingStrategy: LenientDecoder.NonConformingFloatDecodingStrategy =
    .throw
  var envelope: EnvelopeFormat = .default
  var userInfo: [CodingUserInfoKey: any Sendable] = [:]
  var maxDepth: Int = 512
  var maxReportEntries: Int = 1_000
  var missingKeys: MissingKeys = .fallBack
  var keyMappings = KeyMappings()
  var requiredKeys = RequiredKeys()
}

/// The settings of decode calls: the decoder's settings, the envelope format of the call, the
/// leniency the policy stands for, and `userInfo` as models see it. Made when a decoder's
/// settings change and shared by every call that names no other format (and by copies of the
/// decoder), so a call takes one reference; a class, so the scalar reads that take it pass one
/// reference instead of copying every strategy. Immutable, so sharing it across threads is safe.
final class DecodingOptions: Sendable {
  let settings: DecoderSettings
  /// The call's envelope format: the decoder's, or the one the call names.
  let envelope: EnvelopeFormat
  /// Whether any model has key mappings or transforms (`LenientDecoder.map`, `.transform`).
  let hasKeyMappings: Bool
  /// Whether any key can be required (`missingKeys = .error` or `LenientDecoder.require`).
  let requiresKeys: Bool
  /// The key decoding strategy's kind, read by every keyed container without copying the
  /// strategy (a `.custom` one holds a closure: a copy is a retain and a release).
  let keyRule: KeyStrategyKind
  let leniency: Leniency
  /// `userInfo` as models see it: the decoder's, plus the envelope format `RootModel` reads
  /// (unless the caller set one). Made with the options, not per call: a call that names no
  /// format shares it.
  let userInfo: [CodingUserInfoKey: any Sendable]
  /// The traits of the types `settings.keyMappings` maps, made once for these settings and
  /// shared with the options of calls that only name another envelope format.
  let mappedTraits: TraitTable
  /// The keys a `.custom` key strategy gave, kept for the settings' life (and shared with the
  /// options of calls that only name another envelope format).
  let customKeys: CustomKeyCache

  init(
    _ settings: DecoderSettings, envelope: EnvelopeFormat? = nil, mappedTraits: TraitTable? = nil,
    customKeys: CustomKeyCache? = nil
  ) {
    self.settings = settings
    self.mappedTraits = mappedTraits ?? TraitTable()
    self.customKeys = customKeys ?? CustomKeyCache()
    self.envelope = envelope ?? settings.envelope
    hasKeyMappings = !settings.keyMappings.isEmpty
    switch settings.keyDecodingStrategy {
    case .useDefaultKeys: keyRule = .asIs
    case .convertFromSnakeCase: keyRule = .snakeCase
    case .custom: keyRule = .custom
    }
    requiresKeys = settings.missingKeys == .error || !settings.requiredKeys.isEmpty
    leniency = Leniency(settings.policy)
    var info = settings.userInfo
    if info[.envelopeFormat] == nil { info[.envelopeFormat] = self.envelope }
    userInfo = info
  }

  /// The decoder's nesting limit: a limit below 1 reads as 1, as the reader reads it
  /// (`JSONDocument`), so that no depth arithmetic can overflow.
  var maxDepth: Int { max(1, settings.maxDepth) }

  /// The keys of `model` that may not be missing or null; nil when none. Asked by every keyed
  /// container: inlined, it costs one bool check when nothing is required.
  @inline(__always)
  func requirement(for model: Any.Type) -> KeyRequirement? {
    guard requiresKeys else { return nil }
    if settings.missingKeys == .error { return .all }
    return settings.requiredKeys.requirement(for: model)
  }

  /// The non-conforming float a string stands for under the options, or nil.
  func nonConformingFloat(_ document: JSONDocument, _ index: Int) -> Double? {
    guard
      case .convertFromString(let positive, let negative, let nan) =
        settings.nonConformingFloatDecodingStrategy
    else { return nil }
    let text = document.string(index)
    if text == positive { return .infinity }
    if text == negative { return -.infinity }
    if text == nan { return .nan }
    return nil
  }
}

/// What a key decoding strategy asks of a keyed container.
enum KeyStrategyKind {
  /// Keys as they are (`.useDefaultKeys`).
  case asIs
  /// Keys compared as `.convertFromSnakeCase` writes them, in place.
  case snakeCase
  /// A `.custom` closure: a table of converted keys per object.
  case custom
}
