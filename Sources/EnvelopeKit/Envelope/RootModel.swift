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

  private var status: EnvelopeStatus
  private var format: EnvelopeFormat

  /// Decodes the code and message, then the payload for a success code.
  ///
  /// - Parameter decoder: any decoder over an envelope object.
  /// - Throws: `DecodingError` from the code, message or payload.
  public init(from decoder: any Decoder) throws {
    let format = decoder.userInfo[.envelopeFormat] as? EnvelopeFormat ?? .default
    self.format = format
    code = try decodeValue(EnvelopeCode?.self, at: format.code, in: decoder) ?? nil
    message = nil
    for path in format.messages {
      if let text = try decodeValue(String?.self, at: path, in: decoder), let text {
        message = text
        break
      }
    }
    let isSuccess = code.map(format.isSuccess) ?? format.codeIsOptional
    status = EnvelopeStatus(code: code, message: message, isSuccess: isSuccess)
    data = isSuccess ? try decodeValue(T?.self, at: format.data, in: decoder) ?? nil : nil
  }

  /// The payload of a success envelope.
  ///
  /// - Returns: the payload; nil for an Optional `T`, empty for arrays, dictionaries and `Empty`
  ///   when the payload is null or missing.
  /// - Throws: `EnvelopeError.missingCode`, `EnvelopeError.business` or the format's mapped error,
  ///   `EnvelopeError.missingData`.
  public func validate() throws -> T {
    if code == nil && !format.codeIsOptional { throw EnvelopeError.missingCode }
    guard status.isSuccess else { throw format.error(for: status) }
    if let data { return data }
    if let empty = EmptyPayload.value(T.self) { return empty }
    throw EnvelopeError.missingData(code: code)
  }
}

extension RootModel: Sendable where T: Sendable {}

/// Decodes `type` at `path` below the decoder's value with any `Decoder`; nil when a step is
/// missing. One pass: containers are walked, nothing is re-encoded.
func decodeValue<V: Decodable>(_ type: V.Type, at path: JSONPath, in decoder: any Decoder) throws
  -> V?
{
  var current = decoder
  for component in path.components {
    switch component {
    case .key(let name):
      let key = AnyCodingKey(stringValue: name)
      let container = try current.container(keyedBy: AnyCodingKey.self)
      guard container.contains(key) else { return nil }
      current = try container.superDecoder(forKey: key)
    case .index(let position):
      var container = try current.unkeyedContainer()
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

/// Steps over one value of any kind.
private struct Skip: Decodable {
  init(from decoder: any Decoder) throws {}
}
