import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An HTTP response: status, headers, body, and the request that produced it.
public struct Response: Sendable, CustomStringConvertible {
  /// The HTTP status.
  public var statusCode: Int
  /// The headers.
  public var headers: [String: String]
  /// The body.
  public var data: Data
  /// The request sent, after plugins prepared it.
  public var request: URLRequest?
  /// Whether this came from the provider's `ResponseCache` instead of the network.
  public var isFromCache: Bool
  /// When the provider's cache answered, when the entry was stored and why the cache answered
  /// (fresh, not modified, the network failed); nil for a network response.
  public var cacheAnswer: CacheAnswer?
  /// The envelope's code and message as the provider read them from the body it received
  /// (under the target's or the provider's format), so plugins never parse the body for them;
  /// kept on the response a later failure carries (missing data, a decoding error); nil when the
  /// call reads no envelope or the body is not one. A body a plugin puts in its place is decoded
  /// with its own code checked, and keeps the status the plugin hands on.
  public var envelopeStatus: EnvelopeStatus?
  /// What the network exchange that produced this response cost (duration, bytes, redirects),
  /// as `URLSessionTransport` measured it; nil for a stub's answer, the cache's answer, a
  /// response you made, and a transport of your own that does not send through a
  /// `URLSessionTransport`. See `TransferMetrics` for what is counted.
  public internal(set) var metrics: TransferMetrics?
  /// The decoder of the provider that failed with this response, for `errorBody(as:)`; set
  /// only on a failure's response (nil for a success, a
  /// stub's or a response you made).
  package var failureDecoder: FailureDecoder?
  /// The cache key the provider's cache looked this response's request up under, when the
  /// network answered it: the key it is stored under (`CacheTransport.store`), so that the
  /// entry belongs to whoever sent the request, not to whoever the session's cookie jar names
  /// once this response's `Set-Cookie` changed it.
  var cacheEntryKey: CacheEntryKey?
  /// The names this response is written under (see `redaction`); nil for the defaults.
  var redactionRule: RedactionRule?

  /// Creates a response.
  ///
  /// - Parameters:
  ///   - statusCode: the HTTP status.
  ///   - headers: the headers.
  ///   - data: the body.
  ///   - request: the request.
  ///   - isFromCache: whether it came from a cache.
  public init(
    statusCode: Int, headers: [String: String] = [:], data: Data, request: URLRequest? = nil,
    isFromCache: Bool = false
  ) {
    self.statusCode = statusCode
    self.headers = headers
    self.data = data
    self.request = request
    self.isFromCache = isFromCache
  }

  /// The value of a header, its name compared without case (`etag` finds `ETag`).
  ///
  /// - Parameter name: the header name.
  /// - Returns: the value, or nil.
  public func header(_ name: String) -> String? {
    if let value = headers[name] { return value }
    return headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
  }

  /// The body as UTF-8 text, cut at 500 characters, with secrets redacted by this response's
  /// `redaction` (errors that print it end up in logs): the provider's names as well as the
  /// defaults. A body over 64 KB is cut to its first 64 KB (at a
  /// character's start) before it is redacted, so a huge body costs no more than that; the cut
  /// text is redacted as any text is (JSON cut short is text, withheld when it names a secret),
  /// so a secret cut in two is still hidden.
  public var bodyPreview: String {
    let text = redaction.bodyText(Self.previewPrefix(of: data))
    return text.count > 500 ? String(text.prefix(500)) + "…" : text
  }

  /// How much of a body `bodyPreview` redacts.
  static let previewLimit = 65_536

  /// The first `previewLimit` bytes of `data`, not ending inside a UTF-8 character.
  static func previewPrefix(of data: Data) -> Data {
    guard data.count > previewLimit else { return data }
    var end = data.startIndex + previewLimit
    var backed = 0
    // A continuation byte (10xxxxxx) is inside a character: start the cut before it.
    while backed < 3, end > data.startIndex, data[end] & 0xC0 == 0x80 {
      end -= 1
      backed += 1
    }
    return data[data.startIndex..<end]
  }

  /// The body read as your own type, leniently: an error body (RFC 9457 problem details,
  /// GitHub's `{"message":…,"documentation_url":…}`, `{"error":{"type":…,"message":…}}`, an
  /// envelope). Nil when the body is empty, does not decode, or is not of that shape (the
  /// lenient decoder would have put a default in place of a value or dropped one). Mismatched
  /// scalar kinds are coerced as usual.
  ///
  /// It reads with the decoder of the provider that failed with this response (its key
  /// strategy, key mappings, value transforms, dates), in the lenient policy: a snake_case error
  /// body fills camelCase properties when the provider's decoder says `.convertFromSnakeCase`.
  /// That is the response ``ProviderError`` carries and ``TargetType/error(for:)`` is given; a
  /// response that did not fail (or one made by hand) reads with `LenientDecoder()`.
  ///
  /// ```swift
  /// func error(for response: Response) -> (any Error)? {
  ///   response.errorBody(as: GitHubError.self)   // {"message": …, "documentation_url": …}
  /// }
  /// ```
  ///
  /// - Parameter type: the body's type.
  /// - Returns: the decoded body, or nil.
  public func errorBody<E: Decodable>(as type: E.Type) -> E? {
    guard !data.isEmpty else { return nil }
    var decoder = failureDecoder?.decoder ?? LenientDecoder()
    decoder.policy = .lenient
    guard let decoded = try? decoder.decodeWithReport(E.self, from: data, at: .root),
      !decoded.report.entries.contains(where: { [.defaulted, .dropped].contains($0.kind) })
    else { return nil }
    return decoded.value
  }

  /// `500 GET https://… (1234 bytes): <body preview>`, secret query items redacted (by this
  /// response's `redaction`).
  public var description: String {
    let method = request?.httpMethod ?? "?"
    let url = request?.url.map { redaction.url($0) } ?? "?"
    return "\(statusCode) \(method) \(url) (\(data.count) bytes): \(bodyPreview)"
  }
}

/// Why a provider call failed. Every case after the transport keeps the `Response`.
public enum ProviderError: Error, Sendable, CustomStringConvertible, LocalizedError {
  /// The transport failed, e.g. `.notConnectedToInternet` or `.timedOut`.
  case transport(URLError)
  /// The HTTP status was not accepted by the target.
  case status(Response)
  /// The envelope's code was not a success code.
  case business(code: EnvelopeCode, message: String?, response: Response)
  /// The body did not decode.
  case decoding(DecodingError, response: Response)
  /// The body was empty where a value was expected.
  case emptyBody(Response)
  /// A stub named a fixture file that does not exist; the searched path.
  case fixtureNotFound(String)
  /// The envelope had no code, an invalid code (null, an array, an object, a fraction), or no
  /// data where data was expected.
  case envelope(EnvelopeError, response: Response)
  /// The token refresh failed (see `AccessTokenPlugin`); the refresh's error.
  case authentication(any Error)
  /// Any other error of an attempt: a transport that throws something other than `URLError`, a
  /// request body that did not encode, a plugin's error; with the response when one arrived.
  case underlying(any Error, response: Response?)

  /// The response, when one arrived.
  public var response: Response? {
    switch self {
    case .status(let response), .emptyBody(let response): return response
    case .business(_, _, let response), .decoding(_, let response): return response
    case .envelope(_, let response): return response
    case .underlying(_, let response): return response
    case .transport, .fixtureNotFound, .authentication: return nil
    }
  }

  /// The error response's body read as your own type, leniently, with the decoder of the
  /// provider that failed: ``Response/errorBody(as:)`` on ``response``; nil when there is no
  /// response.
  ///
  /// ```swift
  /// catch let error as ProviderError {
  ///   if let problem = error.errorBody(as: Problem.self) { show(problem.detail) }
  /// }
  /// ```
  ///
  /// - Parameter type: the error body's type.
  /// - Returns: the decoded body, or nil.
  public func errorBody<E: Decodable>(as type: E.Type) -> E? {
    response?.errorBody(as: type)
  }

  /// A readable account with the response body; the errors it holds are written as
  /// `Redaction` writes an error (a `URLError`'s failing URL without its secrets), under the
  /// response's `redaction` (the provider's names; the defaults for an error without a
  /// response).
  public var description: String {
    let redaction = self.redaction
    switch self {
    case .transport(let error):
      return "transport(\(error.code.rawValue): \(error.localizedDescription))"
    case .status(let response): return "status(\(response))"
    case .business(let code, let message, let response):
      return
        "business(code: \(code), message: \(message.map { "\"\($0)\"" } ?? "nil")) in \(response)"
    case .decoding(let error, let response):
      return "decoding(\(redaction.text(of: error))) in \(response)"
    case .emptyBody(let response): return "emptyBody(\(response))"
    case .fixtureNotFound(let path): return "fixtureNotFound(\(path))"
    case .envelope(let error, let response):
      return "envelope(\(error)\(Self.keysFound(error, response))) in \(response)"
    case .authentication(let error): return "authentication(\(redaction.text(of: error)))"
    case .underlying(let error, let response):
      let text = redaction.text(of: error)
      return "underlying(\(text))" + (response.map { " in \($0)" } ?? "")
    }
  }

  /// Same as `description`.
  public var errorDescription: String? { description }

  /// For a missing code, the keys the body's top level does have (`; keys found: id, login`),
  /// which tell a plain body from an envelope whose code is elsewhere; empty otherwise.
  private static func keysFound(_ error: EnvelopeError, _ response: Response) -> String {
    // A description stays cheap: a body over 1 MB is not read for it.
    guard error == .missingCode, response.data.count <= 1 << 20,
      let body = try? LenientDecoder().decode(JSON.self, from: response.data)
    else { return "" }
    switch body {
    case .object(let object):
      let keys = object.keys.prefix(12)
      return "; keys found: " + (keys.isEmpty ? "none" : keys.joined(separator: ", "))
        + (object.count > 12 ? ", …" : "")
    default:
      return "; the body is \(body.kindName), not an object"
    }
  }
}

/// A decoded value with the response it came from and the lenient report of its decoding.
public struct DecodedResponse<T> {
  /// The value.
  public var value: T
  /// The response.
  public var response: Response
  /// Every coercion and fallback made while decoding (empty in strict policy).
  public var report: DecodingReport

  /// Creates a decoded response.
  ///
  /// - Parameters:
  ///   - value: the value.
  ///   - response: the response.
  ///   - report: the report.
  public init(value: T, response: Response, report: DecodingReport) {
    self.value = value
    self.response = response
    self.report = report
  }
}

extension DecodedResponse: Sendable where T: Sendable {}

/// A value and where it came from: the cache (and when it was stored) or the network.
public struct Sourced<T> {
  /// Where a value came from.
  public enum Source: Sendable, Hashable {
    /// The provider's cache; stored at that time.
    case cache(storedAt: Date)
    /// The network.
    case network
  }

  /// The value.
  public var value: T
  /// Its source.
  public var source: Source

  /// Creates a sourced value.
  ///
  /// - Parameters:
  ///   - value: the value.
  ///   - source: where it came from.
  public init(value: T, source: Source) {
    self.value = value
    self.source = source
  }
}

extension Sourced: Sendable where T: Sendable {}
extension Sourced: Equatable where T: Equatable {}

/// Why the provider's cache answered instead of the network, and when the entry was stored.
public struct CacheAnswer: Sendable, Equatable {
  /// Why the cache answered.
  public enum Reason: Sendable, Equatable {
    /// The entry was fresh: younger than `cacheElseLoad`'s `maxAge`, or within the response's
    /// own `Cache-Control: max-age` / `Expires` under `.http`.
    case fresh
    /// The server answered `304 Not Modified` to the request revalidating the entry.
    case notModified
    /// The network failed (offline, timed out, connection lost) and `loadElseCache` answered.
    case networkFailed(URLError)
    /// The server answered this 5xx status and `loadElseCache(onServerError: true)` answered.
    case serverError(status: Int)
    /// The cached leg of `cachedThenNetwork`.
    case cacheFirst
  }

  /// When the entry was stored (or last revalidated).
  public var storedAt: Date
  /// Why the cache answered.
  public var reason: Reason

  /// Creates an answer.
  ///
  /// - Parameters:
  ///   - storedAt: when the entry was stored.
  ///   - reason: why the cache answered.
  public init(storedAt: Date, reason: Reason) {
    self.storedAt = storedAt
    self.reason = reason
  }
}

/// The decoder a failed response is read with by `Response.errorBody(as:)`: a reference,
/// so that a response carries one word for it.
package final class FailureDecoder: Sendable {
  /// The provider's decoder.
  package let decoder: LenientDecoder

  package init(_ decoder: LenientDecoder) { self.decoder = decoder }
}
