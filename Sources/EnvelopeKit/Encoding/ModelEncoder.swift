import Foundation

/// Encodes models as JSON with `JSONEncoder`'s options and output, and the decoder's key
/// mappings and transforms reversed: ObjectMapper's `toJSON()`, MoyaMapper's and SmartCodable's
/// `toJSONString`, with one mapping for both directions.
///
/// ```swift
/// var decoder = LenientDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// decoder.map(Profile.self, key: "name", to: "user_name", "name")
/// decoder.transform(Profile.self, key: "joined", .millisecondsSince1970)
///
/// let profile = try decoder.decode(Profile.self, from: body)
/// let encoder = ModelEncoder(matching: decoder)
/// let put = try encoder.encode(profile)   // {"user_name":"Han","joined":1700000000000,...}
/// ```
///
/// Where no mapping applies the output is `JSONEncoder`'s, byte for byte, for the same options:
/// escaping (`\/` unless `.withoutEscapingSlashes`), numbers (`1.0` as `1`, `1e+16`), the
/// pretty layout, sorted keys in UTF-8 byte order, the date, data, key and non-finite float
/// strategies, `URL` as its absolute string, `Decimal` as its description, and the errors
/// (`EncodingError`s with the coding path). The differences: without `.sortedKeys` keys come
/// in the order they were encoded (JSONEncoder's order is its dictionary's, which changes from
/// run to run); a misuse of the `Encoder` API that `JSONEncoder` traps on (a second value in a
/// single-value container, a keyed container where a value was encoded) throws an
/// `EncodingError` instead; and a `JSON` value's numbers are written as their source text
/// (`1.0`, a 45-digit id), which `JSONEncoder` gets through `Decimal` (`1`, 38 digits at most).
///
/// Values are rendered once into a byte arena and laid out by EnvelopeKit's one JSON writer;
/// no intermediate dictionary or `String` per number is built.
public struct ModelEncoder: Sendable {
  /// Compact or pretty, sorted keys, slashes escaped or not: `JSONEncoder`'s options.
  public var outputFormatting: JSONEncoder.OutputFormatting = []
  /// How property names become JSON keys (mapped keys are written as mapped). Setting it
  /// replaces the key rule of `init(matching:)`.
  public var keyEncodingStrategy: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys {
    didSet { keysReadBy = nil }
  }
  /// How `Date`s are written.
  public var dateEncodingStrategy: JSONEncoder.DateEncodingStrategy = .deferredToDate
  /// How `Data` is written.
  public var dataEncodingStrategy: JSONEncoder.DataEncodingStrategy = .base64
  /// How infinities and NaN are written; `.throw` (the default) throws an `EncodingError`.
  public var nonConformingFloatEncodingStrategy: JSONEncoder.NonConformingFloatEncodingStrategy =
    .throw
  /// Handed to every `encode(to:)` as `encoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

  /// Key mappings and transforms, by model type (shared with `LenientDecoder`'s).
  var keyMappings = KeyMappings()

  /// The key strategy of the decoder this encoder matches (`init(matching:)`): each key is
  /// written as a JSON key that strategy reads back as the same key (see
  /// `LenientDecoder.KeyDecodingStrategy.writtenKey(for:at:)`); nil: `keyEncodingStrategy`.
  var keysReadBy: LenientDecoder.KeyDecodingStrategy?

  /// Whether keys may be written otherwise than as they are (`[String: Value]` keys are not).
  var convertsKeys: Bool { keysReadBy != nil || !keyEncodingStrategy.isDefault }

  /// An encoder with `JSONEncoder`'s defaults.
  public init() {}

  /// An encoder that writes what `decoder` reads: its key mappings (written at the first path
  /// of each) and two-way transforms, and the reverse of its strategies where one exists —
  /// dates and data in the same form, non-finite floats as the same strings. A custom date or
  /// data strategy has no reverse: the encoder keeps its default for it (set your own).
  ///
  /// Keys are written so that the decoder's key strategy reads each back as the same key:
  /// under `.convertFromSnakeCase`, as `.convertToSnakeCase` writes it when that reads back
  /// (`firstName` → `first_name`), else as it is (`AdaptivePlugin`, `URLSCM`, `myURL`); under a
  /// custom strategy, as it is when the strategy reads it back. A key that no JSON key reads
  /// back as (`first_name` under `.convertFromSnakeCase`, which reads every `a_b` as `aB`)
  /// makes the encode throw an `EncodingError` naming it: map it (`map(_:key:to:)`) or give
  /// it another name. Setting `keyEncodingStrategy` replaces this rule.
  ///
  /// - Parameter decoder: the decoder the models are read with.
  public init(matching decoder: LenientDecoder) {
    keyMappings = decoder.keyMappings
    userInfo = decoder.userInfo
    // `keyEncodingStrategy` says what the keys mostly become; `keysReadBy` decides each one.
    switch decoder.keyDecodingStrategy {
    case .useDefaultKeys: keysReadBy = nil
    case .convertFromSnakeCase:
      keyEncodingStrategy = .convertToSnakeCase
      keysReadBy = .convertFromSnakeCase
    case .custom: keysReadBy = decoder.keyDecodingStrategy
    }
    switch decoder.dateDecodingStrategy {
    case .deferredToDate, .custom: dateEncodingStrategy = .deferredToDate
    case .secondsSince1970: dateEncodingStrategy = .secondsSince1970
    case .millisecondsSince1970: dateEncodingStrategy = .millisecondsSince1970
    case .iso8601: dateEncodingStrategy = .iso8601
    case .formatted(let formatter): dateEncodingStrategy = .formatted(formatter)
    }
    switch decoder.dataDecodingStrategy {
    case .deferredToData: dataEncodingStrategy = .deferredToData
    case .base64, .custom: dataEncodingStrategy = .base64
    }
    switch decoder.nonConformingFloatDecodingStrategy {
    case .throw: nonConformingFloatEncodingStrategy = .throw
    case .convertFromString(let positiveInfinity, let negativeInfinity, let nan):
      nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: nan)
    }
  }

  /// Writes the model's key `key` at `path`, relative to the model's own object, making the
  /// objects on the way (`"user.name"` → `{"user":{"name":...}}`). The path's keys are written
  /// as they are (the key strategy does not convert them).
  ///
  /// - Parameters:
  ///   - model: the model type.
  ///   - key: the model's coding key, as its `CodingKeys` spell it.
  ///   - path: where to write it; object keys only.
  public mutating func map<Model: Encodable>(_ model: Model.Type, key: String, to path: JSONPath) {
    keyMappings.update(Model.self, key) { $0.paths = [path] }
  }

  /// Writes the model's key `key` with `transform`'s write side. A read-only transform
  /// (`ValueTransform { json in ... }`) leaves the property's own `Encodable` value.
  ///
  /// - Parameters:
  ///   - model: the model type.
  ///   - key: the model's coding key.
  ///   - transform: a transform made with `ValueTransform(read:write:)`, or a built-in one.
  public mutating func transform<Model: Encodable, Value>(
    _ model: Model.Type, key: String, _ transform: ValueTransform<Value>
  ) {
    keyMappings.update(Model.self, key) {
      $0.transform = AnyValueTransform(model: Model.self, key: key, transform)
    }
  }

  // MARK: - Encoding

  /// Encodes `value` as JSON text.
  ///
  /// - Parameter value: the value.
  /// - Returns: the UTF-8 text, as `outputFormatting` lays it out.
  /// - Throws: `EncodingError` as `JSONEncoder` throws it (a non-finite float under `.throw`, a
  ///   top-level value that encodes nothing, nesting of 512 levels), or any error the value's
  ///   `encode(to:)` throws.
  public func encode<T: Encodable>(_ value: T) throws -> Data {
    try write(value) { (writer, tree) throws(JSONWriter.TooDeep) in try writer.data(tree) }
  }

  /// Encodes `value` as a `JSON` value (numbers keep the text the encoder wrote).
  ///
  /// - Parameter value: the value.
  /// - Returns: the JSON.
  /// - Throws: what `encode(_:)` throws.
  public func encodeJSON<T: Encodable>(_ value: T) throws -> JSON {
    var compact = self
    compact.outputFormatting.remove(.prettyPrinted)
    return try JSON(data: compact.encode(value))
  }

  /// Encodes `value` as JSON text in a `String`, as `outputFormatting` lays it out
  /// (ObjectMapper's `toJSONString(prettyPrint:)` is `.prettyPrinted`).
  ///
  /// - Parameter value: the value.
  /// - Returns: the text.
  /// - Throws: what `encode(_:)` throws.
  public func encodeString<T: Encodable>(_ value: T) throws -> String {
    try write(value) { (writer, tree) throws(JSONWriter.TooDeep) in try writer.string(tree) }
  }

  /// Encodes `value` into a tree and lays it out with `output`, as `outputFormatting` says.
  private func write<T: Encodable, Output>(
    _ value: T, _ output: (JSONWriter, EncodedTree) throws(JSONWriter.TooDeep) -> Output
  ) throws -> Output {
    let tree = try encodeTree(value)
    let writer = JSONWriter(
      pretty: outputFormatting.contains(.prettyPrinted),
      sortedKeys: outputFormatting.contains(.sortedKeys), deduplicatesKeys: true,
      depthLimit: JSONWriter.encoderDepthLimit)
    do {
      return try output(writer, tree)
    } catch {
      throw Self.tooDeep(value: value)
    }
  }

  /// Runs the value's `encode(to:)` into a tree.
  func encodeTree<T: Encodable>(_ value: T) throws -> EncodedTree {
    let tree = EncodedTree(escapesSlashes: !outputFormatting.contains(.withoutEscapingSlashes))
    let context = EncodingContext(options: self, tree: tree)
    let root = EncoderImpl(
      context: context, slot: 0, depth: 1, model: T.self, parent: nil, key: nil)
    if T.self is any SpeciallyEncoded.Type
      || (value is any StringKeyedDictionary && convertsKeys)
    {
      try root.encodeValue(value, into: 0, key: nil, depth: 1)
    } else {
      try value.encode(to: root)
    }
    if let failure = context.failure { throw failure }
    if let misuse = context.misuse { throw misuse }
    if let replaced = context.replacedMappedObject { throw replaced }
    if tree.members[0].isPending {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
    }
    return tree
  }

  /// JSONEncoder's error for a value nested 512 levels deep (at the top level, as it says).
  static func tooDeep(value: Any = ()) -> EncodingError {
    .invalidValue(
      value,
      EncodingError.Context(
        codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON."))
  }
}

extension JSONWriter {
  /// `JSONEncoder` refuses a container nested this deep.
  static let encoderDepthLimit = 512
}

/// The types an encoder writes itself rather than through their `encode(to:)`.
protocol SpeciallyEncoded {}
extension String: SpeciallyEncoded {}
extension Date: SpeciallyEncoded {}
extension Data: SpeciallyEncoded {}
extension URL: SpeciallyEncoded {}
extension Decimal: SpeciallyEncoded {}
