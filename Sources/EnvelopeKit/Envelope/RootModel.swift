/// An envelope whose code, message and payload can be checked in one step.
public protocol ModelVerifiable {
  /// The payload type.
  associatedtype Model
  /// The business code, if present.
  var code: EnvelopeCode? { get }
  /// The message, if present.
  var message: String? { get }
  /// The payload; nil on failure or when absent.
  var data: Model? { get }
  /// The payload of a success envelope.
  ///
  /// - Returns: the payload.
  /// - Throws: `EnvelopeError.business` (or the format's mapped error) for a non-success code,
  ///   `EnvelopeError.missingCode`, `EnvelopeError.missingData`.
  func validate() throws -> Model
}

/// A generic envelope, decodable with any decoder.
///
/// Keys come from the `EnvelopeFormat` in `decoder.userInfo[.envelopeFormat]` (`LenientDecoder`
/// sets it from its `envelope`), else `EnvelopeFormat.default`. The code is read first; `data`
/// is decoded only for a success code.
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.userInfo[.envelopeFormat] = EnvelopeFormat(code: "status", data: "result")
/// let user = try decoder.decode(RootModel<User>.self, from: body).validate()
/// ```
public struct RootModel<T: Decodable>: Decodable, ModelVerifiable {
  /// The business code, if present.
  public var code: EnvelopeCode?
  /// The message, if present.
  public var message: String?
  /// The payload, decoded only for a success code.
  public var data: T?

  /// The status, or why the envelope has none (`missingCode`, `invalidCode`).
  private var status: Result<EnvelopeStatus, EnvelopeError>
  private var format: EnvelopeFormat

  /// Decodes the code and message with the status reader every envelope entry point shares,
  /// then the payload for a success code. A missing or invalid code is not a decoding error
  /// here: `validate()` throws it, as `decodeEnvelope` does.
  ///
  /// - Parameter decoder: any decoder over an envelope object.
  /// - Throws: `DecodingError` from the payload, or when the envelope is not an object.
  public init(from decoder: any Decoder) throws {
    let format = decoder.userInfo[.envelopeFormat] as? EnvelopeFormat ?? .default
    self.format = format
    if format.isPlain {
      // No envelope: the whole body is the payload, decoded as itself (null is not "no data").
      status = .success(EnvelopeFormat.plainStatus)
      code = nil
      message = nil
      data = try decoder.singleValueContainer().decode(T.self)
      return
    }
    let codeValue = try decodeValue(JSON.self, at: format.code, in: decoder)
    // The status reader's one rule: the first message found, and no message path read after it.
    let message = try EnvelopeStatusReader.message(format.messages) {
      try decodeValue(JSON.self, at: $0, in: decoder)
    }
    do {
      status = .success(
        try EnvelopeStatusReader.status(code: codeValue, message: message, format: format))
    } catch let error as EnvelopeError {
      status = .failure(error)
    }
    self.message = message
    guard case .success(let status) = status else {
      code = nil
      data = nil
      return
    }
    code = status.code
    // `EmptyPayload`'s rule, as `decodeEnvelope` reads it: only null or missing data is no data.
    // Data of any other kind is decoded as `T` (not `T?`, which a lenient decoder reads as nil
    // for a value of the wrong kind, so a `[]` for a model became `missingData` here and a
    // reported fallback in `decodeEnvelope`).
    data =
      status.isSuccess
      ? try decodeValue(PresentPayload<T>.self, at: format.data, in: decoder)?.value : nil
  }

  /// The payload of a success envelope.
  ///
  /// - Returns: the payload; nil for an Optional `T`, empty for arrays, dictionaries and `Empty`
  ///   when the payload is null or missing.
  /// - Throws: `EnvelopeError.missingCode`, `EnvelopeError.business` or the format's mapped error,
  ///   `EnvelopeError.missingData`.
  public func validate() throws -> T {
    let status = try self.status.get()
    guard status.isSuccess else { throw format.error(for: status) }
    if let data { return data }
    if let empty = EmptyPayload.value(T.self) { return empty }
    throw EnvelopeError.missingData(code: code)
  }
}

extension RootModel: Sendable where T: Sendable {}

/// An envelope's payload under any `Decoder`: nil for null, else `T` decoded from the value as
/// it is (`EmptyPayload`'s rule; a missing path is nil from `decodeValue`).
struct PresentPayload<T: Decodable>: Decodable {
  var value: T?

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    value = container.decodeNil() ? nil : try container.decode(T.self)
  }
}

/// What a step of a path that meets a value of another kind (a string where a key is looked up)
/// means.
enum PathStep {
  /// The path is missing, as in the document (an envelope's code, message and data paths).
  case otherKindIsMissing
  /// A type error, as when a model with an Optional property at that key is decoded from it
  /// (`DecodableWrapper`): only a missing key or null gives nil.
  case otherKindIsAnError
}

/// Decodes `type` at `path` below the decoder's value with any `Decoder`; nil when a step is
/// missing. One pass: containers are walked, nothing is re-encoded.
func decodeValue<V: Decodable>(
  _ type: V.Type, at path: JSONPath, in decoder: any Decoder,
  steps: PathStep = .otherKindIsMissing
) throws -> V? {
  var current = decoder
  /// Steps into the member `name` of `object`; false when it has none.
  func enter(_ name: String, of object: KeyedDecodingContainer<AnyCodingKey>) throws -> Bool {
    let key = AnyCodingKey(stringValue: name)
    guard object.contains(key) else { return false }
    current = try object.superDecoder(forKey: key)
    return true
  }
  for component in path.components {
    switch component {
    case .key(let name):
      let container: KeyedDecodingContainer<AnyCodingKey>
      do {
        container = try current.container(keyedBy: AnyCodingKey.self)
      } catch DecodingError.typeMismatch where steps == .otherKindIsMissing {
        return nil  // a step that is not an object: the path is missing, as in the document
      }
      guard try enter(name, of: container) else { return nil }
    case .index(let position):
      // Where the value is an object, an index names its member of those digits (RFC 6901),
      // as the document's own walk (`JSONDocument.child`) reads it. Our decoder says what the
      // value is (its lenient unkeyed container would wrap an object as one element); another
      // decoder's unkeyed container refuses an object with a type mismatch.
      let source = current as? any JSONValueSource
      if let source, source.currentKindIsObject {
        let object = try current.container(keyedBy: AnyCodingKey.self)
        guard try enter(component.memberName, of: object) else { return nil }
        continue
      }
      var container: any UnkeyedDecodingContainer
      do {
        container = try current.unkeyedContainer()
      } catch DecodingError.typeMismatch(let type, let context) {
        if source == nil, let object = try keyedContainer(of: current) {
          guard try enter(component.memberName, of: object) else { return nil }
          continue
        }
        if steps == .otherKindIsMissing { return nil }
        throw DecodingError.typeMismatch(type, context)
      }
      guard position >= 0 else { return nil }
      for _ in 0..<position {
        guard !container.isAtEnd else { return nil }
        _ = try container.decode(Skip.self)
      }
      guard !container.isAtEnd else { return nil }
      current = try container.superDecoder()
    }
  }
  return try current.singleValueContainer().decode(V.self)
}

/// The keyed container of the value `decoder` is at; nil when that value is no object.
private func keyedContainer(of decoder: any Decoder) throws -> KeyedDecodingContainer<AnyCodingKey>?
{
  do {
    return try decoder.container(keyedBy: AnyCodingKey.self)
  } catch DecodingError.typeMismatch {
    return nil
  }
}

/// Steps over one value of any kind.
private struct Skip: Decodable {
  init(from decoder: any Decoder) throws {}
}
