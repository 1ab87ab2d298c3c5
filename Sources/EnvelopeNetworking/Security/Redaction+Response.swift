import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// MARK: - The names a response is written under

/// The one rule for which names are secret wherever a response (or a request the provider
/// sends) is written: the redaction of the provider it went through, which holds the names the
/// app gave (`Provider(sensitiveHeaders:)`, `URLSessionTransport(sensitiveHeaders:)`). The
/// provider stamps it on every response of its line (`Provider.exchange`) and on the exchange
/// its hooks and transport run in; every writer uses it: the response's and error's
/// descriptions, the disk cache's metadata, `LoggingPlugin` (with its own names added).
///
/// A reference, so that a response carries one word for it and a provider's responses share
/// one; nil on a response made by hand stands for `Redaction.default`.
final class RedactionRule: Sendable {
  /// The names.
  let redaction: Redaction

  init(_ redaction: Redaction) { self.redaction = redaction }

  /// The redaction of a rule, the defaults for none.
  static func redaction(_ rule: RedactionRule?) -> Redaction {
    rule?.redaction ?? .default
  }
}

extension Response {
  /// Which names are secret when this response is written: in its `description` and
  /// `bodyPreview`, the description of an error that carries it, a `DiskCache` entry's metadata
  /// and a `LoggingPlugin` line (which adds its own names). A provider's response carries the
  /// provider's redaction (``Provider/redaction``: the defaults, its `sensitiveHeaders` and its
  /// `URLSessionTransport`'s); a response you make carries `Redaction.default` until you set
  /// another.
  ///
  /// ```swift
  /// var response = Response(statusCode: 500, data: body, request: request)
  /// response.redaction = Redaction(headers: ["X-Session"])
  /// print(response)   // ?x_session=%3Credacted%3E, "x_session":"<redacted>"
  /// ```
  public var redaction: Redaction {
    get { RedactionRule.redaction(redactionRule) }
    set { redactionRule = newValue == .default ? nil : RedactionRule(newValue) }
  }

  /// Marks this response as written under `rule` (a provider's), keeping any names it already
  /// carries (a response a plugin made under names of its own).
  mutating func written(under rule: RedactionRule) {
    guard let current = redactionRule, current !== rule else {
      redactionRule = rule
      return
    }
    let combined = current.redaction.adding(rule.redaction)
    if combined != current.redaction { redactionRule = RedactionRule(combined) }
  }
}

extension ProviderError {
  /// The redaction this error is written with: its response's, the defaults without one.
  var redaction: Redaction { response?.redaction ?? .default }

  /// The same error, its response (when it has one) written under `rule`.
  func written(under rule: RedactionRule) -> ProviderError {
    func mark(_ response: Response) -> Response {
      var response = response
      response.written(under: rule)
      return response
    }
    switch self {
    case .status(let response): return .status(mark(response))
    case .business(let code, let message, let response):
      return .business(code: code, message: message, response: mark(response))
    case .decoding(let error, let response): return .decoding(error, response: mark(response))
    case .emptyBody(let response): return .emptyBody(mark(response))
    case .envelope(let error, let response): return .envelope(error, response: mark(response))
    case .underlying(let error, let response?): return .underlying(error, response: mark(response))
    case .transport, .fixtureNotFound, .authentication, .underlying(_, nil): return self
    }
  }
}

extension Result<Response, ProviderError> {
  /// The result with its response (or its error's) written under `rule`.
  func written(under rule: RedactionRule) -> Self {
    switch self {
    case .success(var response):
      response.written(under: rule)
      return .success(response)
    case .failure(let error):
      return .failure(error.written(under: rule))
    }
  }
}

extension Redaction {
  /// The names of the provider whose call is running (its `redaction`), for a transport that
  /// writes the request it is handed (a recording adds them to its own); the defaults outside a
  /// provider call. The provider sets the call around your transport (`TimedTransport`).
  package static var ofCurrentCall: Redaction {
    RedactionRule.redaction(Exchange.current?.redaction)
  }
}
