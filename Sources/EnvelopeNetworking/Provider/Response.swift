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

  /// The body as UTF-8 text, cut at 500 characters, with secrets redacted by `Redaction`
  /// (errors that print it end up in logs).
  public var bodyPreview: String {
    let text = Redaction.default.bodyText(data)
    return text.count > 500 ? String(text.prefix(500)) + "…" : text
  }

  /// `500 GET https://… (1234 bytes): <body preview>`, secret query items redacted.
  public var description: String {
    let method = request?.httpMethod ?? "?"
    let url = request?.url.map { Redaction.default.url($0) } ?? "?"
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

  /// A readable account with the response body.
  public var description: String {
    switch self {
    case .transport(let error):
      return "transport(\(error.code.rawValue): \(error.localizedDescription))"
    case .status(let response): return "status(\(response))"
    case .business(let code, let message, let response):
      return
        "business(code: \(code), message: \(message.map { "\"\($0)\"" } ?? "nil")) in \(response)"
    case .decoding(let error, let response): return "decoding(\(error)) in \(response)"
    case .emptyBody(let response): return "emptyBody(\(response))"
    case .fixtureNotFound(let path): return "fixtureNotFound(\(path))"
    case .envelope(let error, let response): return "envelope(\(error)) in \(response)"
    case .authentication(let error): return "authentication(\(error))"
    case .underlying(let error, let response):
      return "underlying(\(error))" + (response.map { " in \($0)" } ?? "")
    }
  }

  /// Same as `description`.
  public var errorDescription: String? { description }
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
