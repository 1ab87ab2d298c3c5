import Foundation

/// Decodes `Decodable` models from JSON, leniently by default, strictly on request.
///
/// Lenient (the default) converts mismatched JSON types to the declared Swift types when no
/// information is lost (`"18"` for an `Int`, `1` for a `Bool`), and otherwise falls back
/// (an Optional to nil, a non-optional to its empty value, an array element is dropped). Every
/// coercion and fallback is recorded with its path; `decodeWithReport` returns the record.
/// Strict behaves like Foundation's `JSONDecoder`.
///
/// ```swift
/// var decoder = LenientDecoder()
/// let user = try decoder.decode(User.self, from: body, at: "data.user")
/// decoder.policy = .strict
/// let checked = try decoder.decodeWithReport([Item].self, from: body, at: "data.items")
/// ```
public struct LenientDecoder: Sendable {
  /// How dictionary keys map to `CodingKey`s, as in Foundation.
  public enum KeyDecodingStrategy: Sendable {
    /// Keys as they are in the JSON.
    case useDefaultKeys
    /// `first_name` matches `firstName`.
    case convertFromSnakeCase
    /// Maps the coding path ending in the JSON key to the key to use.
    ///
    /// The decoder asks once per JSON key and coding path shape (the path's object keys, array
    /// indices left out), and keeps the answer for its life (up to 4,096 answers and 1 MB of key
    /// text): the closure must give the same key for the same path (one that counts its calls or
    /// reads state of its own that changes is not supported). An answer that read an array index of the
    /// path (its `intValue`, `stringValue` or description) is not kept, so the closure is asked
    /// again for each element, as Foundation asks it for every key of every object.
    case custom(@Sendable (_ codingPath: [any CodingKey]) -> any CodingKey)
  }

  /// How dates are read, as in Foundation.
  public enum DateDecodingStrategy: Sendable {
    /// `Date`'s own `Decodable` implementation (seconds since 2001).
    case deferredToDate
    /// Seconds since 1970 from a number (leniently also from a numeric string).
    case secondsSince1970
    /// Milliseconds since 1970 from a number (leniently also from a numeric string).
    case millisecondsSince1970
    /// ISO 8601 text, e.g. `2024-05-01T12:00:00Z`.
    case iso8601
    /// Text parsed by the given formatter.
    case formatted(DateFormatter)
    /// A closure given the decoder positioned at the value.
    case custom(@Sendable (_ decoder: any Decoder) throws -> Date)
  }

  /// How `Data` is read, as in Foundation.
  public enum DataDecodingStrategy: Sendable {
    /// `Data`'s own `Decodable` implementation (an array of bytes).
    case deferredToData
    /// Base64 text.
    case base64
    /// A closure given the decoder positioned at the value.
    case custom(@Sendable (_ decoder: any Decoder) throws -> Data)
  }

  /// How non-conforming floats (infinity, NaN) are read, as in Foundation.
  public enum NonConformingFloatDecodingStrategy: Sendable {
    /// They are errors.
    case `throw`
    /// These strings stand for them.
    case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
  }

  /// Every setting, in the options a call uses: copies of a decoder share them until one
  /// changes (a change makes new options), so a decode call holds them with one reference
  /// instead of retaining every strategy and format of a copied decoder.
  private(set) var baseOptions = DecodingOptions(DecoderSettings())

  /// Lenient (the default) or strict.
  public var policy: DecodingPolicy {
    get { settings.policy }
    set { change { $0.policy = newValue } }
  }
  /// How keys are matched; default `.useDefaultKeys`.
  public var keyDecodingStrategy: KeyDecodingStrategy {
    get { settings.keyDecodingStrategy }
    set { change { $0.keyDecodingStrategy = newValue } }
  }
  /// How dates are read; default `.deferredToDate`.
  public var dateDecodingStrategy: DateDecodingStrategy {
    get { settings.dateDecodingStrategy }
    set { change { $0.dateDecodingStrategy = newValue } }
  }
  /// How `Data` is read; default `.base64`.
  public var dataDecodingStrategy: DataDecodingStrategy {
    get { settings.dataDecodingStrategy }
    set { change { $0.dataDecodingStrategy = newValue } }
  }
  /// How infinity and NaN are read; default `.throw`.
  public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy {
    get { settings.nonConformingFloatDecodingStrategy }
    set { change { $0.nonConformingFloatDecodingStrategy = newValue } }
  }
  /// The envelope format used by `decodeEnvelope`, `envelopeStatus` and `RootModel`.
  public var envelope: EnvelopeFormat {
    get { settings.envelope }
    set { change { $0.envelope = newValue } }
  }
  /// Values handed to models through `Decoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] {
    get { settings.userInfo }
    set { change { $0.userInfo = newValue } }
  }
  /// The deepest nesting accepted; default 512, as Foundation. Strings holding JSON that the
  /// lenient policy reads count against the same limit. Input nested deeper than the current
  /// thread's stack can decode throws `DecodingError.dataCorrupted` whatever this says.
  public var maxDepth: Int {
    get { settings.maxDepth }
    set { change { $0.maxDepth = newValue } }
  }
  /// The most report entries stored; default 1,000. Past it entries are counted, not stored
  /// (`DecodingReport.omittedCount`), so a huge sloppy payload cannot grow the report unbounded.
  public var maxReportEntries: Int {
    get { settings.maxReportEntries }
    set { change { $0.maxReportEntries = newValue } }
  }
  /// What the lenient policy does with a required key that is absent or null: fall back
  /// (`.fallBack`, the default) or throw as strict does (`.error`). See `MissingKeys`, and
  /// `require(_:keys:)` for one model's keys.
  public var missingKeys: MissingKeys {
    get { settings.missingKeys }
    set { change { $0.missingKeys = newValue } }
  }
  /// Key mappings and value transforms set with `map(_:key:to:)` and `transform(_:key:_:)`.
  var keyMappings: KeyMappings {
    get { settings.keyMappings }
    set { change { $0.keyMappings = newValue } }
  }
  /// Keys made required with `require(_:keys:)`.
  var requiredKeys: RequiredKeys {
    get { settings.requiredKeys }
    set { change { $0.requiredKeys = newValue } }
  }

  /// The settings as they are.
  var settings: DecoderSettings { baseOptions.settings }

  /// Applies a change to the settings: new options, shared by the copies made after it.
  private mutating func change(_ body: (inout DecoderSettings) -> Void) {
    var settings = baseOptions.settings
    body(&settings)
    baseOptions = DecodingOptions(settings)
  }

  /// Creates a decoder with Foundation-like defaults.
  ///
  /// - Parameter policy: `.lenient` (the default) or `.strict`.
  public init(policy: DecodingPolicy = .lenient) {
    var settings = DecoderSettings()
    settings.policy = policy
    baseOptions = DecodingOptions(settings)
  }

  // MARK: - Decoding

  /// Decodes a value from the whole document.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - data: UTF-8 JSON.
  /// - Returns: the value.
  /// - Throws: `DecodingError`: `dataCorrupted` for malformed JSON (with line and column),
  ///   and, in strict policy, the errors Foundation's `JSONDecoder` throws.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    try decoding(type, from: data, at: nil) { value, _ in value }
  }

  /// Decodes a value found at a key path, in one pass with no re-encoding.
  ///
  /// - Parameters:
  ///   - type: an object, array, scalar or Optional type.
  ///   - data: UTF-8 JSON.
  ///   - path: where the value is, e.g. `"data.items"`.
  /// - Returns: the value; nil for an Optional `type` when the path is missing.
  /// - Throws: `DecodingError.keyNotFound` naming the path when it is missing, and the errors of
  ///   `decode(_:from:)` with coding paths that start at the document root.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data, at path: JSONPath) throws -> T {
    try decoding(type, from: data, at: path) { value, _ in value }
  }

  /// Decodes a value, at a key path or the root, and reports every coercion and fallback.
  ///
  /// - Parameters:
  ///   - type: the type to decode.
  ///   - data: UTF-8 JSON.
  ///   - path: where the value is; nil or empty for the root.
  /// - Returns: the value and its `DecodingReport` (always empty in strict policy).
  /// - Throws: the errors of `decode(_:from:at:)`.
  public func decodeWithReport<T: Decodable>(
    _ type: T.Type, from data: Data, at path: JSONPath? = nil
  ) throws -> Decoded<T> {
    try decoding(type, from: data, at: path) { value, recorder in
      Decoded(value: value, report: recorder.report)
    }
  }

  /// The one decode from `Data`: `T` at `path`, then `result` made from the value and its
  /// report. (`decode` returns the value itself: a `Decoded<T>` made and taken apart costs a
  /// small decode a generic metadata lookup and two copies of the value.)
  private func decoding<T: Decodable, R>(
    _ type: T.Type, from data: Data, at path: JSONPath?,
    _ result: (consuming T, ReportRecorder) -> R
  ) throws -> R {
    // Taken out here: a closure that used `self` would copy the decoder.
    let options = baseOptions
    return try Self.withDocument(from: data, maxDepth: maxDepth) { document in
      try DecoderImpl.rooted(at: document, options: options) { decoder in
        // A root decoder is its own recorder.
        result(try decoder.decodeRoot(type, at: path), decoder)
      }
    }
  }

  /// Scans `data` as Foundation's `JSONDecoder` reads it (UTF-8, UTF-16 or UTF-32; trailing
  /// commas allowed), turning reader errors into `DecodingError.dataCorrupted`, and calls
  /// `body` with the document (its bytes borrowed from `data`: see `JSONDocument.scanning`).
  @inline(__always)
  static func withDocument<R>(
    from data: Data, maxDepth: Int, _ body: (JSONDocument) throws -> R
  ) throws -> R {
    try JSONDocument.scanning(
      data, maxDepth: maxDepth, allowsTrailingCommas: true, readsUTF16And32: true,
      readerError: { dataCorrupted($0) }, body)
  }

  /// The `JSON` value at `index`; a value too deep to build is `DecodingError.dataCorrupted`
  /// at `path` (its underlying `tooDeep` reader error stops a decode: `DecodeStop.stops`).
  static func json(
    _ document: JSONDocument, _ index: Int, at path: @autoclosure () -> [any CodingKey] = []
  ) throws -> JSON {
    do {
      return try JSON(document: document, index: index)
    } catch {
      throw dataCorrupted(error, at: path())
    }
  }

  /// A reader error as the decoders throw it: `DecodingError.dataCorrupted` naming it.
  static func dataCorrupted(_ error: JSONReaderError, at path: [any CodingKey] = [])
    -> DecodingError
  {
    DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: path, debugDescription: "The given data was not valid JSON: \(error)",
        underlyingError: error))
  }
}

/// Whether the decoder converts and falls back (`lenient`) or fails like Foundation (`strict`).
public enum DecodingPolicy: Sendable, Hashable {
  /// Coerce mismatched types without loss, fall back otherwise, and report both.
  case lenient
  /// Behave like Foundation's `JSONDecoder`: any mismatch throws.
  case strict
}
