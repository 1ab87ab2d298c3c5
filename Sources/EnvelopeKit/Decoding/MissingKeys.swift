import Foundation

/// What the lenient policy does with a key the model requires (decodes with `decode`, not
/// `decodeIfPresent`) when it is absent or null.
///
/// Lenient decoding coerces kinds (`"18"` for an `Int`); whether a **missing** value may become
/// a default is the model's contract, not the server's whim.
public enum MissingKeys: Sendable, Hashable {
  /// The value falls back (the declared initial value, else the type's empty value) and is
  /// reported `defaulted`: the default, and the behaviour before this option existed.
  case fallBack
  /// The decode throws `keyNotFound` (absent) or `valueNotFound` (null), as strict does, even
  /// where a `LenientDecodable` declares an initial value: no missing key gets a value the
  /// response did not have. Kind mismatches still coerce and fall back as before.
  case error
}

extension LenientDecoder {
  /// Makes keys of one model required whatever `missingKeys` says: when absent or null, the
  /// decode throws `keyNotFound` or `valueNotFound`, in both policies, even where the model
  /// declares an initial value (`LenientDecodable`).
  ///
  /// ```swift
  /// var decoder = LenientDecoder()
  /// decoder.require(Token.self, keys: "access_token", "refresh_token")
  /// decoder.require(Session.self)   // every key Session decodes with `decode`
  /// ```
  ///
  /// Applies wherever the decoder decodes the model: at the root, at key paths, in envelopes,
  /// through a `Provider` and in contract tests. Keys decoded with `decodeIfPresent` (Optional
  /// properties) stay optional.
  ///
  /// - Parameters:
  ///   - model: the model type.
  ///   - keys: the model's coding keys, as its `CodingKeys` spell them; none for all of the
  ///     keys it decodes with `decode`.
  public mutating func require<Model: Decodable>(_ model: Model.Type, keys: String...) {
    requiredKeys.require(Model.self, keys)
  }
}

/// The keys `LenientDecoder.require(_:keys:)` made required, by model type.
struct RequiredKeys: Sendable {
  /// The named keys of each model; an empty set stands for all of them.
  private var byModel: [ObjectIdentifier: Set<String>] = [:]

  var isEmpty: Bool { byModel.isEmpty }

  mutating func require(_ model: Any.Type, _ keys: [String]) {
    let id = ObjectIdentifier(model)
    if keys.isEmpty || byModel[id]?.isEmpty == true {
      byModel[id] = []
    } else {
      byModel[id, default: []].formUnion(keys)
    }
  }

  /// Which keys of `model` are required, or nil when none is.
  func requirement(for model: Any.Type) -> KeyRequirement? {
    guard let keys = byModel[ObjectIdentifier(model)] else { return nil }
    return keys.isEmpty ? .all : .some(keys)
  }
}

/// The keys of one keyed container that may not be missing or null.
enum KeyRequirement: Sendable {
  case all
  case some(Set<String>)

  func contains(_ key: String) -> Bool {
    switch self {
    case .all: return true
    case .some(let keys): return keys.contains(key)
    }
  }
}
