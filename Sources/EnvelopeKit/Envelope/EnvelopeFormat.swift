/// Where an API's envelope keeps its code, message and data, and which codes mean success.
///
/// ```swift
/// // {"retStatus": "000", "retMsg": "ok", "retBody": {...}}
/// let bank = EnvelopeFormat(code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])
/// // {"error": {"errorStatus": false, "errMsg": "..."}, "results": [...]}
/// let nested = EnvelopeFormat(
///   code: "error>errorStatus",
///   message: "error>errMsg", data: "results", success: [false])
/// // Map business codes to your own errors:
/// let app = EnvelopeFormat.default.mappingErrors { status in
///   status.code == 1001 ? AppError.tokenExpired : nil
/// }
/// // No envelope at all ({"id": 1, "login": "ada"}): failures come from the HTTP status.
/// let github = EnvelopeFormat.plain
/// ```
public struct EnvelopeFormat: Sendable {
  /// The path of the business code.
  public var code: JSONPath
  /// Paths tried in order for the message; the first present one wins.
  public var messages: [JSONPath]
  /// The path of the payload.
  public var data: JSONPath
  /// Whether an envelope without a code counts as success (otherwise `EnvelopeError.missingCode`).
  public var codeIsOptional: Bool = false
  /// Decides success from the code.
  public var isSuccess: @Sendable (EnvelopeCode) -> Bool
  /// Turns a failure status into the user's own error; nil keeps `EnvelopeError.business`.
  public var errorMapper: (@Sendable (EnvelopeStatus) -> (any Error)?)?
  /// Whether this is ``plain``: no envelope, the whole body is the value.
  public private(set) var isPlain: Bool = false

  /// No envelope: the whole body is the value (a GitHub-style API). No code is read, so no
  /// business failure exists (every body is a success status with no code and no message);
  /// failures come from the HTTP status. Every entry point that takes a format honours it:
  /// `decodeEnvelope` (a path is then from the root), `RootModel` (its `data` is the whole
  /// body), `envelopeStatus`, and the networking provider's calls, cache, stubs and pages.
  ///
  /// ```swift
  /// var decoder = LenientDecoder()
  /// decoder.envelope = .plain
  /// let user = try decoder.decodeEnvelope(User.self, from: #"{"id": 1}"#.data(using: .utf8)!)
  /// ```
  public static let plain: EnvelopeFormat = {
    var format = EnvelopeFormat(code: .root, messages: [], data: .root, success: [])
    format.isPlain = true
    format.codeIsOptional = true
    format.isSuccess = { _ in true }
    return format
  }()

  /// `code`, then `msg` or `message`, then `data`; success is code 0.
  public static let `default` = EnvelopeFormat(
    code: "code", messages: ["msg", "message"], data: "data", success: [0])

  /// Creates a format whose success codes are a set.
  ///
  /// - Parameters:
  ///   - code: the path of the code.
  ///   - message: the path of the message.
  ///   - data: the path of the payload.
  ///   - success: the codes that mean success.
  public init(
    code: JSONPath = "code", message: JSONPath = "msg", data: JSONPath = "data",
    success: Set<EnvelopeCode> = [0]
  ) {
    self.init(code: code, messages: [message], data: data, success: success)
  }

  /// Creates a format that tries several message paths.
  ///
  /// - Parameters:
  ///   - code: the path of the code.
  ///   - messages: message paths, tried in order.
  ///   - data: the path of the payload.
  ///   - success: the codes that mean success.
  public init(code: JSONPath, messages: [JSONPath], data: JSONPath, success: Set<EnvelopeCode>) {
    self.code = code
    self.messages = messages
    self.data = data
    // A few codes are compared in turn: hashing a code cost a small envelope more than
    // comparing it with each (equality is the same either way: the canonical text).
    let codes = Array(success)
    if codes.count <= 4 {
      self.isSuccess = { code in codes.contains(code) }
    } else {
      self.isSuccess = { code in success.contains(code) }
    }
  }

  /// Creates a format whose success is decided by a predicate.
  ///
  /// - Parameters:
  ///   - code: the path of the code.
  ///   - message: the path of the message.
  ///   - data: the path of the payload.
  ///   - isSuccess: returns true for success codes.
  public init(
    code: JSONPath, message: JSONPath, data: JSONPath,
    isSuccess: @escaping @Sendable (EnvelopeCode) -> Bool
  ) {
    self.code = code
    self.messages = [message]
    self.data = data
    self.isSuccess = isSuccess
  }

  /// The status of a body under ``plain``: a success with no code and no message.
  static let plainStatus = EnvelopeStatus(code: nil, message: nil, isSuccess: true)

  /// This format, where a missing code counts as success (`{"success": true, "data": ...}`
  /// style APIs that only send a code on failure).
  ///
  /// - Returns: the changed format.
  public func codeOptional() -> EnvelopeFormat {
    var copy = self
    copy.codeIsOptional = true
    return copy
  }

  /// This format, mapping failure statuses to the user's own errors.
  ///
  /// - Parameter mapper: returns the error to throw for a status, or nil for
  ///   `EnvelopeError.business`.
  /// - Returns: the changed format.
  public func mappingErrors(_ mapper: @escaping @Sendable (EnvelopeStatus) -> (any Error)?)
    -> EnvelopeFormat
  {
    var copy = self
    copy.errorMapper = mapper
    return copy
  }

  /// The error for a failure status: the mapped one, else `EnvelopeError.business`.
  ///
  /// - Parameter status: a status whose `isSuccess` is false.
  /// - Returns: the error to throw.
  public func error(for status: EnvelopeStatus) -> any Error {
    if let mapped = errorMapper?(status) { return mapped }
    return EnvelopeError.business(code: status.code ?? "", message: status.message)
  }
}

/// The code and message of an envelope, and whether the code means success.
public struct EnvelopeStatus: Sendable, Hashable, CustomStringConvertible {
  /// The code, nil when the format allows it to be missing and it was.
  public var code: EnvelopeCode?
  /// The message, if any.
  public var message: String?
  /// Whether the code means success under the format.
  public var isSuccess: Bool

  /// Creates a status.
  ///
  /// - Parameters:
  ///   - code: the code.
  ///   - message: the message.
  ///   - isSuccess: whether it means success.
  public init(code: EnvelopeCode?, message: String?, isSuccess: Bool) {
    self.code = code
    self.message = message
    self.isSuccess = isSuccess
  }

  /// `success(code: 0, message: "ok")` or `failure(code: 1001, message: "token expired")`.
  public var description: String {
    let code = self.code.map { "\($0)" } ?? "nil"
    let message = self.message.map { "\"\($0)\"" } ?? "nil"
    return "\(isSuccess ? "success" : "failure")(code: \(code), message: \(message))"
  }
}

/// Errors of the envelope layer. Malformed JSON and type errors are `DecodingError`s.
public enum EnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The code is not a success code. `data` was not decoded.
  case business(code: EnvelopeCode, message: String?)
  /// No code at the format's code path. Its description names the ways out: ``EnvelopeFormat/plain``
  /// for an API without an envelope, `at: .root` for one call's body read with no envelope,
  /// `codeOptional()` for one that sends a code only on failure.
  case missingCode
  /// A code that is null, an array, an object, a number with a fraction or an integer of more
  /// than 309 digits; a snippet of what was there (`array [1]`).
  case invalidCode(found: String)
  /// Success, but no data for a non-optional type.
  case missingData(code: EnvelopeCode?)

  /// `business(code: 1001, message: "token expired")`.
  public var description: String {
    switch self {
    case .business(let code, let message):
      return "business(code: \(code), message: \(message.map { "\"\($0)\"" } ?? "nil"))"
    case .missingCode:
      return "missingCode"
        + " (no code at the format's code path: an API without an envelope is"
        + " EnvelopeFormat.plain, one call's body read with no envelope is at: .root,"
        + " one that sends a code only on failure is codeOptional())"
    case .invalidCode(let found):
      return "invalidCode(found: \(found))"
    case .missingData(let code):
      return "missingData(code: \(code.map { "\($0)" } ?? "nil"))"
    }
  }
}

/// An envelope payload type for calls that return no data.
public struct Empty: Codable, Sendable, Hashable {
  /// Creates the empty value.
  public init() {}

  /// Accepts any JSON value and ignores it.
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: nothing; the signature is `Decodable`'s.
  public init(from decoder: any Decoder) throws {}

  /// Writes an empty object.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: the encoder's errors.
  public func encode(to encoder: any Encoder) throws {
    _ = encoder.container(keyedBy: AnyCodingKey.self)
  }
}

extension CodingUserInfoKey {
  /// The `EnvelopeFormat` that `RootModel` reads its keys from.
  public static let envelopeFormat = makeKey("EnvelopeKit.envelopeFormat")

  /// The `JSONPath` at which `DecodableWrapper` finds its value.
  public static let decodingPath = makeKey("EnvelopeKit.decodingPath")

  private static func makeKey(_ rawValue: String) -> CodingUserInfoKey {
    // `init(rawValue:)` is failable in signature only; it accepts every string.
    guard let key = CodingUserInfoKey(rawValue: rawValue) else {
      preconditionFailure("CodingUserInfoKey(rawValue:) rejected \(rawValue)")
    }
    return key
  }
}
