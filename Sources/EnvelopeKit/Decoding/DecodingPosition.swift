import Foundation

/// Where the decoder stands: one value of the document, how it got there, and what may stand
/// in for it. `DecoderImpl` holds exactly one; `with(_:_:)` swaps it in and restores it whole.
struct DecodingPosition {
  let document: JSONDocument
  /// The value's token; nil when the key is missing or the value is a lenient stand-in.
  var index: Int?
  /// The path of the container that holds the value.
  let parent: CodingPathNode
  /// The value's key in `parent`; nil at the root. Turned into a path node only when a
  /// container or an error needs one.
  let key: AnyCodingKey?
  /// Whether an unusable value here may take a fallback. False for array elements and
  /// dictionary values (dropped instead), the value inside an Optional (nil instead) and the raw
  /// value of a `RawRepresentable` (its own rule decides).
  var allowsFallback: Bool
  /// The declared initial values of the `LenientDecodable` whose property this value is, by key.
  let fallbacks: [String: Any]?
  /// The Swift type being decoded here, named in report entries.
  var type: Any.Type
  /// Whether a missing value reads as null in errors (a `superDecoder` of a missing key, as in
  /// Foundation) rather than as a missing key.
  var readsMissingAsNull = false

  init(
    document: JSONDocument, index: Int?, parent: CodingPathNode, key: AnyCodingKey?,
    allowsFallback: Bool = true, fallbacks: [String: Any]? = nil, type: Any.Type
  ) {
    self.document = document
    self.index = index
    self.parent = parent
    self.key = key
    self.allowsFallback = allowsFallback
    self.fallbacks = fallbacks
    self.type = type
  }

  /// The same value, read as another type (a single-value container, a strategy's inner read).
  func reading(_ type: Any.Type, allowsFallback: Bool? = nil) -> DecodingPosition {
    var copy = self
    copy.type = type
    if let allowsFallback { copy.allowsFallback = allowsFallback }
    return copy
  }

  /// The node of this value's own path, for containers made here (allocates).
  var node: CodingPathNode { parent.appending(key) }

  /// The coding path of this value.
  var codingPath: [any CodingKey] { parent.path(with: key) }

  /// How deep this value sits, counting every key and index from the root.
  var depth: Int { parent.depth + (key == nil ? 0 : 1) }

  /// The declared initial values of the `LenientDecodable` type decoded here (set by `unbox`),
  /// for the keyed container made at this position.
  var ownFallbacks: [String: Any]?

  /// The declared initial value for this value, if its parent is a `LenientDecodable`.
  var declaredFallback: Any? {
    guard let fallbacks, let key else { return nil }
    return fallbacks[key.stringValue]
  }

  /// The JSON kind here, or nil when there is no value.
  var kind: JSONToken.Kind? { index.map { document.kind($0) } }

  var isMissingOrNull: Bool { index == nil || kind == .null }
}
