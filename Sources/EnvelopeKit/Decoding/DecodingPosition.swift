import Foundation

/// Where the decoder stands: one value of the document, how it got there, and what may stand
/// in for it. `DecoderImpl` holds exactly one; `with(_:_:)` swaps it in and restores it whole.
///
/// Copied several times per value, so it holds one object (its container's frame) and plain
/// values; the key is a literal string for synthesised `CodingKeys`, which costs no reference
/// count.
struct DecodingPosition {
  /// The container that holds the value: document, coding path, declared initial values.
  let parent: ContainerFrame
  /// The value's token; nil when the key is missing or the value is a lenient stand-in.
  var index: Int?
  /// The value's key in `parent`; nil at the root. Turned into a frame only when a container
  /// or an error needs one.
  let key: AnyCodingKey?
  /// Whether an unusable value here may take a fallback. False for array elements and
  /// dictionary values (dropped instead), the value inside an Optional (nil instead) and the raw
  /// value of a `RawRepresentable` (its own rule decides).
  var allowsFallback: Bool
  /// Whether a missing or null value here is an error whatever the policy (`missingKeys =
  /// .error`, `LenientDecoder.require`): it takes no fallback.
  var requiresValue = false
  /// Whether a missing value reads as null in errors (a `superDecoder` of a missing key, as in
  /// Foundation) rather than as a missing key.
  var readsMissingAsNull = false
  /// The Swift type being decoded here, named in report entries.
  var type: Any.Type
  /// Whether the keyed container made here takes the declared initial values of `type` (a
  /// `LenientDecodable`'s, set by `unbox`; they are its traits' `initialValues`). A flag, not
  /// the values: a dictionary here cost a retain and a release on every copy of every position.
  var hasOwnFallbacks = false

  init(
    parent: ContainerFrame, index: Int?, key: AnyCodingKey?, allowsFallback: Bool = true,
    type: Any.Type
  ) {
    self.parent = parent
    self.index = index
    self.key = key
    self.allowsFallback = allowsFallback
    self.type = type
  }

  /// The document the value is in.
  var document: JSONDocument { parent.document }

  /// The same value, read as another type (a single-value container, a strategy's inner read).
  func reading(_ type: Any.Type, allowsFallback: Bool? = nil) -> DecodingPosition {
    var copy = self
    copy.type = type
    if let allowsFallback { copy.allowsFallback = allowsFallback }
    return copy
  }

  /// The frame of a container made at this value (allocates), reading `document` (this one,
  /// or an embedded document for JSON held in a string).
  func frame(document: JSONDocument) -> ContainerFrame {
    ContainerFrame(parent: parent, key: key, document: document)
  }

  /// The coding path of this value.
  var codingPath: [any CodingKey] { parent.path(with: key) }

  /// How deep this value sits, counting every key and index from the root.
  var depth: Int { parent.depth + (key == nil ? 0 : 1) }

  /// The declared initial value for this value, if its parent is a `LenientDecodable`.
  var declaredFallback: Any? {
    guard let fallbacks = parent.fallbacks, let key else { return nil }
    return fallbacks[key.stringValue]
  }

  /// The JSON kind here, or nil when there is no value.
  var kind: JSONToken.Kind? { index.map { document.kind($0) } }

  var isMissingOrNull: Bool { index == nil || kind == .null }
}
