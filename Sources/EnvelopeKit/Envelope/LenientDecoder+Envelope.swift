import Foundation

/// A decoded envelope that did not throw on a business failure: its status, and the payload
/// when the status is a success.
public struct EnvelopeResult<T> {
  /// The code, message and success flag.
  public var status: EnvelopeStatus
  /// The payload; nil on failure.
  public var value: T?
  /// Coercions and fallbacks made while decoding the payload.
  public var report: DecodingReport
}

extension EnvelopeResult: Sendable where T: Sendable {}

extension LenientDecoder {
  /// Decodes an envelope: reads the code and message first and throws on a non-success code
  /// without touching `data`; else decodes `data` as `T`.
  ///
  /// - Parameters:
  ///   - type: the payload type. `T?` gives nil for null or missing data; arrays and
  ///     dictionaries give empty (with a report entry); `Empty` expects no data.
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  /// - Returns: the payload.
  /// - Throws: `EnvelopeError.business` (or the format's mapped error) on a non-success code,
  ///   `EnvelopeError.missingCode`, `EnvelopeError.missingData`, or `DecodingError` with paths
  ///   from the document root (`data.items[3].price`).
  public func decodeEnvelope<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat? = nil
  ) throws -> T {
    try decodeEnvelope(type, from: data, format: format, at: .root)
  }

  /// Like `decodeEnvelope(_:from:format:)`, and also returns the decoding report.
  ///
  /// - Parameters:
  ///   - type: the payload type.
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  /// - Returns: the payload and its report.
  /// - Throws: the errors of `decodeEnvelope(_:from:format:)`.
  public func decodeEnvelopeWithReport<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat? = nil
  ) throws -> Decoded<T> {
    try decodeEnvelopeWithReport(type, from: data, format: format, at: .root)
  }

  /// Decodes a value at a path inside the envelope's data (MoyaMapper's `modelKey =
  /// "data>list"`): the code is checked first, so a business failure never touches data; then
  /// `T` is decoded at `path` relative to the format's data path, in the same pass.
  ///
  /// ```swift
  /// let items = try decoder.decodeEnvelope([Item].self, from: body, at: "list")  // data.list
  /// ```
  ///
  /// - Parameters:
  ///   - type: the value type; an Optional gives nil when the path is missing.
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data; `.root` for data itself.
  /// - Returns: the value.
  /// - Throws: the errors of `decodeEnvelope(_:from:format:)`; `DecodingError.keyNotFound`
  ///   when the path is missing, with paths from the document root (`data.list[3].price`).
  public func decodeEnvelope<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat? = nil, at path: JSONPath
  ) throws -> T {
    // The value itself is the result: a `Decoded<T>` made and taken apart costs a small
    // envelope a generic metadata lookup and two copies of the value.
    try readingEnvelope(
      type, from: data, format: format, at: path,
      failed: { status, format in throw format.error(for: status) },
      decoded: { _, value, _ in value })
  }

  /// Like `decodeEnvelope(_:from:format:at:)`, and also returns the decoding report.
  ///
  /// - Parameters:
  ///   - type: the value type.
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data.
  /// - Returns: the value and its report.
  /// - Throws: the errors of `decodeEnvelope(_:from:format:at:)`.
  public func decodeEnvelopeWithReport<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat? = nil, at path: JSONPath
  ) throws -> Decoded<T> {
    try readingEnvelope(
      type, from: data, format: format, at: path,
      failed: { status, format in throw format.error(for: status) },
      decoded: { _, value, recorder in Decoded(value: value, report: recorder.report) })
  }

  /// Decodes the status and, on success, the payload, without throwing on a business failure
  /// (MoyaMapper's status-with-model and status-with-array calls).
  ///
  /// - Parameters:
  ///   - type: the payload type, e.g. `User.self` or `[User].self`.
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  /// - Returns: the status, and the payload when the status is a success.
  /// - Throws: `EnvelopeError.missingCode`, `EnvelopeError.missingData`, `DecodingError`.
  public func decodeEnvelopeResult<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat? = nil
  ) throws -> EnvelopeResult<T> {
    try decodeEnvelopeResult(type, from: data, format: format, at: .root)
  }

  private func decodeEnvelopeResult<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat?, at path: JSONPath
  ) throws -> EnvelopeResult<T> {
    try readingEnvelope(
      type, from: data, format: format, at: path,
      failed: { status, _ in EnvelopeResult(status: status, value: nil, report: DecodingReport()) },
      decoded: { status, value, recorder in
        EnvelopeResult(status: status, value: value, report: recorder.report)
      })
  }

  /// The one reading of an envelope: the status first, and on a business failure `failed`
  /// gives the result without touching data; on success the payload is decoded and `decoded`
  /// makes the result from it and its report.
  private func readingEnvelope<T: Decodable, R>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat?, at path: JSONPath,
    failed: (EnvelopeStatus, EnvelopeFormat) throws -> R,
    decoded: (EnvelopeStatus, consuming T, ReportRecorder) -> R
  ) throws -> R {
    // The options are taken out here: a closure that used `self` would copy the decoder. The
    // format is read from them where it is used, borrowed, not copied into a local.
    let options = options(envelope: format)
    return try Self.withDocument(from: data, maxDepth: maxDepth) { document in
      let status = try Self.status(of: document, format: options.envelope)
      guard status.isSuccess else { return try failed(status, options.envelope) }
      return try DecoderImpl.rooted(at: document, options: options) { impl in
        let value = try Self.payload(
          type, with: impl, in: document, format: options.envelope, status: status, at: path)
        // A root decoder is its own recorder.
        return decoded(status, consume value, impl)
      }
    }
  }

  /// Reads only the code and message (MoyaMapper's status-only call).
  ///
  /// - Parameters:
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  /// - Returns: the status; a business failure is a status, not an error.
  /// - Throws: `EnvelopeError.missingCode`, or `DecodingError.dataCorrupted` for malformed JSON.
  public func envelopeStatus(from data: Data, format: EnvelopeFormat? = nil) throws
    -> EnvelopeStatus
  {
    let format = format ?? envelope
    return try Self.withDocument(from: data, maxDepth: maxDepth) { document in
      try Self.status(of: document, format: format)
    }
  }

  /// The value at any path as text (MoyaMapper's `fetchString` / `fetchJSONString`): scalars as
  /// their text, arrays and objects as compact JSON; nil when missing or null.
  ///
  /// - Parameters:
  ///   - path: where the value is.
  ///   - data: the response body.
  /// - Returns: the text, or nil.
  /// - Throws: `DecodingError.dataCorrupted` for malformed JSON.
  public func text(at path: JSONPath, from data: Data) throws -> String? {
    try Self.withDocument(from: data, maxDepth: maxDepth) { document in
      guard let index = document.index(at: path), document.kind(index) != .null else {
        return nil
      }
      let value = try Self.json(document, index)
      return value.stringValue ?? value.rawText
    }
  }

  /// `decodeEnvelopeWithReport(_:from:format:at:)` for a pipeline that keeps the status (the
  /// provider, when nothing stands between its envelope read and its decode): one pass, and
  /// `status` is set to the code and message whenever they can be read, so a business failure,
  /// missing data or a decode error can still say what the envelope said.
  ///
  /// - Parameters:
  ///   - type: the value type.
  ///   - data: the response body.
  ///   - format: the envelope format; nil for the decoder's `envelope`.
  ///   - path: where the value is inside data.
  ///   - status: set to the code and message once they are read.
  ///   - report: set to the decode's report.
  /// - Returns: the value. Not a `Decoded<T>`: its generic metadata is a lookup per call.
  /// - Throws: the errors of `decodeEnvelope(_:from:format:at:)`.
  package func decodeEnvelope<T: Decodable>(
    _ type: T.Type, from data: Data, format: EnvelopeFormat?, at path: JSONPath,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> T {
    // A plain body has no envelope to keep the status of.
    let plain = (format ?? envelope).isPlain
    do {
      return try readingEnvelope(
        type, from: data, format: format, at: path,
        failed: { read, format in
          status = read
          throw format.error(for: read)
        },
        decoded: { read, value, recorder in
          if !plain { status = read }
          report = recorder.report
          return value
        })
    } catch {
      // Missing data or a decoding error: the code was read, and is read again on this rare path
      // only, so that the usual decode hands nothing out in between.
      if status == nil, !plain {
        status = try? envelopeStatus(from: data, format: format)
      }
      throw error
    }
  }

  static func status(of document: JSONDocument, format: EnvelopeFormat) throws -> EnvelopeStatus {
    if format.isPlain { return EnvelopeFormat.plainStatus }
    func value(at path: JSONPath) throws -> JSON? {
      try document.index(at: path).map { try json(document, $0) }
    }
    let code = try value(at: format.code)
    // The first message found ends the search: no array of every message path's value.
    let message = try EnvelopeStatusReader.message(format.messages, value(at:))
    return try EnvelopeStatusReader.status(code: code, message: message, format: format)
  }

}

/// The one rule for what an empty payload (null or missing data, a 204 body) stands for, used by
/// the envelope readers, `RootModel` and the provider. Only null or missing data is empty: data
/// of any other kind (`[]` for a model) is the payload, decoded as `T` under the decoder's
/// policy (a type error in strict, a reported fallback in lenient), never `missingData`.
package enum EmptyPayload {
  /// nil for an Optional, `Empty()`, `[]` and `[:]`; nil when `T` has no empty value.
  ///
  /// - Parameter type: the payload type.
  /// - Returns: the empty value, or nil.
  package static func value<T>(_ type: T.Type) -> T? {
    if T.self == Empty.self { return Empty() as? T }
    return emptyContainer(T.self)
  }
}

extension LenientDecoder {
  /// Decodes the payload of a success envelope with `decoder`, with the envelope's rule for
  /// missing or null data.
  fileprivate static func payload<T: Decodable>(
    _ type: T.Type, with decoder: DecoderImpl, in document: JSONDocument, format: EnvelopeFormat,
    status: EnvelopeStatus, at path: JSONPath
  ) throws -> T {
    // No envelope: the value at the path from the root, null and missing as any key path.
    if format.isPlain { return try decoder.decodeRoot(type, at: path) }
    if dataIsEmpty(document, format) {
      return try emptyPayload(type, with: decoder, format: format, status: status, at: path)
    }
    return try decoder.decodeRoot(type, at: format.data.appending(path))
  }

  /// The payload when data is null or missing. Apart from `payload` so that the `T?` of the
  /// empty value costs a decode nothing when data is there (a generic function looks up
  /// `Optional<T>`'s metadata on entry).
  @inline(never)
  fileprivate static func emptyPayload<T: Decodable>(
    _ type: T.Type, with decoder: DecoderImpl, format: EnvelopeFormat, status: EnvelopeStatus,
    at path: JSONPath
  ) throws -> T {
    if payloadIsMissing(T.self, at: path) {
      throw EnvelopeError.missingData(code: status.code)
    }
    // The envelope's rule, not drift: both policies give the empty payload, unreported.
    if path.components.isEmpty, let empty = EmptyPayload.value(T.self) { return empty }
    // Inside data: the path is decoded as any key path is (an Optional gives nil).
    return try decoder.decodeRoot(type, at: format.data.appending(path))
  }

  /// The one rule for `EnvelopeError.missingData`, asked when data is null or missing: `T` has
  /// no empty value (at data itself) or is not Optional (at a path inside data).
  fileprivate static func payloadIsMissing<T>(_ type: T.Type, at path: JSONPath) -> Bool {
    if !path.components.isEmpty { return !(T.self is any DecodableOptional.Type) }
    return EmptyPayload.value(T.self) == nil
  }

  fileprivate static func dataIsEmpty(_ document: JSONDocument, _ format: EnvelopeFormat) -> Bool {
    document.index(at: format.data).map { document.kind($0) == .null } ?? true
  }
}

extension LenientDecoder {
  /// A call's options with `format` as the envelope (models read it from `userInfo`); the
  /// decoder as it is, uncopied, when `format` is nil.
  func options(envelope format: EnvelopeFormat?) -> DecodingOptions {
    guard let format else { return baseOptions }
    return DecodingOptions(
      settings, envelope: format, mappedTraits: baseOptions.mappedTraits,
      customKeys: baseOptions.customKeys)
  }

}
