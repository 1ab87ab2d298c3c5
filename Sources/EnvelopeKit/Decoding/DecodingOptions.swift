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
  /// Built when a model first asks (`Decoder.userInfo`): most never do, and building it is a
  /// dictionary per call.
  lazy var userInfo: [CodingUserInfoKey: Any] = decoder.userInfoForModels

  init(_ decoder: LenientDecoder) {
    self.decoder = decoder
    hasKeyMappings = !decoder.keyMappings.isEmpty
    requiresKeys = decoder.missingKeys == .error || !decoder.requiredKeys.isEmpty
    leniency = Leniency(decoder.policy)
  }

  var maxDepth: Int { decoder.maxDepth }

  /// The keys of `model` that may not be missing or null; nil when none. Asked by every keyed
  /// container: inlined, it costs one bool check when nothing is required.
  @inline(__always)
  func requirement(for model: Any.Type) -> KeyRequirement? {
    guard requiresKeys else { return nil }
    if decoder.missingKeys == .error { return .all }
    return decoder.requiredKeys.requirement(for: model)
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
