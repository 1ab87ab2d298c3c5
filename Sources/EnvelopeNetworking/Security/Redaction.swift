import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Which secrets are hidden wherever EnvelopeKit writes a request or response: log lines
/// (`LoggingPlugin`), recordings (`RecordingTransport`), cache metadata and `cURLDescription`.
///
/// This is the one place that decides what is secret. Names are matched case-insensitively; the
/// defaults always apply and what you name is added to them:
/// - headers: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`;
/// - URL query items: `access_token`, `token`, `api_key`, `key`, `password`;
/// - JSON body fields, at any depth and inside stringified JSON: `password`, `token`,
///   `access_token`, `refresh_token`, `secret`, and any field named like a secret header.
///
/// A body that is not JSON is written in clear only when it names none of the secret fields or
/// query items and you named no field of your own; otherwise it becomes a placeholder with its
/// size alone (`<redacted body: 57 bytes>`). No hash of a secret is ever written: a hash of a
/// short password is found again by trying a dictionary.
///
/// A default can be turned off for a name a flow needs in clear (`revealing:`), e.g. a
/// pagination field called `token` that is no credential:
///
/// ```swift
/// let redaction = Redaction(headers: ["X-Session"], fields: ["ssn"], revealing: ["token"])
/// print(request.cURLDescription(redacting: ["X-Session"]))
/// ```
public struct Redaction: Sendable, Hashable {
  /// Header names always redacted.
  public static let defaultHeaders: Set<String> = [
    "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
  ]
  /// Query item names always redacted.
  public static let defaultQueryItems: Set<String> = [
    "access_token", "token", "api_key", "key", "password",
  ]
  /// JSON field names always redacted.
  public static let defaultFields: Set<String> = [
    "password", "token", "access_token", "refresh_token", "secret",
  ]
  /// What replaces a secret value.
  public static let placeholder = "<redacted>"
  /// The defaults alone.
  public static let `default` = Redaction()

  /// Redacted header names, lower-case (defaults included).
  public let headers: Set<String>
  /// Redacted query item names, lower-case (defaults included).
  public let queryItems: Set<String>
  /// Redacted JSON field names, lower-case (defaults included).
  public let fields: Set<String>
  /// Whether fields beyond the defaults were named: then no non-JSON body is written in clear.
  public let namesExtraFields: Bool

  /// Creates a redaction: the defaults plus the names given, minus the names revealed.
  ///
  /// - Parameters:
  ///   - headers: more header names.
  ///   - queryItems: more query item names.
  ///   - fields: more JSON field names.
  ///   - revealing: names (headers, query items or fields, any case) written in clear although
  ///     a default redacts them, for a value a recorded flow needs as it was. Only reveal what
  ///     is not a credential, or a credential of a throwaway test account.
  public init(
    headers: Set<String> = [], queryItems: Set<String> = [], fields: Set<String> = [],
    revealing: Set<String> = []
  ) {
    let revealed = Set(revealing.map { $0.lowercased() })
    self.headers = Self.defaultHeaders.union(headers.map { $0.lowercased() }).subtracting(revealed)
    self.queryItems = Self.defaultQueryItems.union(queryItems.map { $0.lowercased() })
      .subtracting(revealed)
    let extra = Set(fields.map { $0.lowercased() })
    self.fields = Self.defaultFields.union(extra).subtracting(revealed)
    self.namesExtraFields = !extra.subtracting(Self.defaultFields).subtracting(revealed).isEmpty
  }

  // MARK: - Headers

  /// Whether a header holds a secret.
  ///
  /// - Parameter name: the header name, any case.
  /// - Returns: whether it is redacted.
  public func isSecret(header name: String) -> Bool {
    headers.contains(name.lowercased())
  }

  /// A header value as it may be written.
  ///
  /// - Parameters:
  ///   - name: the header name.
  ///   - value: its value.
  /// - Returns: `value`, or `<redacted>`.
  public func header(_ name: String, _ value: String) -> String {
    isSecret(header: name) ? Self.placeholder : value
  }

  /// Headers as they may be written.
  ///
  /// - Parameter headers: the headers.
  /// - Returns: the same names with secret values replaced.
  public func headers(_ headers: [String: String]) -> [String: String] {
    var result: [String: String] = [:]
    for (name, value) in headers { result[name] = header(name, value) }
    return result
  }

  // MARK: - URLs

  /// A URL as it may be written: secret query item values replaced (the names stay), and any
  /// user and password removed.
  ///
  /// - Parameter url: the URL.
  /// - Returns: its text.
  public func url(_ url: URL?) -> String {
    guard let url else { return "" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return Self.placeholder
    }
    components.user = nil
    components.password = nil
    if let query = components.percentEncodedQuery {
      components.percentEncodedQuery = self.query(query)
    }
    return components.string ?? Self.placeholder
  }

  /// A percent-encoded query (`a=1&token=x`) with secret values replaced, order kept.
  ///
  /// - Parameter query: the query, without `?`.
  /// - Returns: the query as it may be written.
  public func query(_ query: String) -> String {
    query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(parts[0])
      let decoded = (name.removingPercentEncoding ?? name).lowercased()
      guard parts.count == 2, queryItems.contains(decoded) || fields.contains(decoded) else {
        return String(pair)
      }
      return name + "=%3Credacted%3E"
    }.joined(separator: "&")
  }

  // MARK: - Bodies

  /// A body as it may be written.
  public enum Body: Sendable, Hashable {
    /// JSON with secret fields replaced.
    case json(JSON)
    /// Text with nothing secret in it.
    case text(String)
    /// Bytes that are not text, kept when no field of your own was named.
    case binary(Data)
    /// A stand-in for a body that may hold a secret: `<redacted body: 57 bytes>`.
    case withheld(String)
  }

  /// A body as it may be written: JSON redacted field by field; a form body redacted item by
  /// item; other text in clear only when it can hold no named secret; bytes that are not text
  /// kept only when no field of your own was named.
  ///
  /// - Parameter data: the body.
  /// - Returns: what may be written.
  public func body(_ data: Data) -> Body {
    if let json = try? JSON(data: data) { return .json(self.json(json)) }
    guard let text = String(data: data, encoding: .utf8) else {
      return namesExtraFields ? .withheld(withheld(data)) : .binary(data)
    }
    if isForm(text) { return .text(query(text)) }
    return mayHoldSecret(text) ? .withheld(withheld(data)) : .text(text)
  }

  /// A body's text as it may be written (JSON compact, in the original key order).
  ///
  /// - Parameter data: the body.
  /// - Returns: the text.
  public func bodyText(_ data: Data) -> String {
    switch body(data) {
    case .json(let json): return json.rawText
    case .text(let text), .withheld(let text): return text
    case .binary(let data): return "<\(data.count) bytes>"
    }
  }

  /// A JSON value with every secret field replaced, also inside strings that hold JSON.
  ///
  /// - Parameter value: the value.
  /// - Returns: the redacted value.
  public func json(_ value: JSON) -> JSON {
    switch value {
    case .array(let elements):
      return .array(elements.map(json))
    case .object(let object):
      var copy = JSONObject()
      for (key, child) in object {
        copy.append(key, isSecret(field: key) ? .string(Self.placeholder) : json(child))
      }
      return .object(copy)
    case .string(let text):
      // Stringified JSON (`"{\"token\":\"…\"}"`) is redacted inside and written back as a
      // string; so is a string holding a query or form (`"a=1&token=…"`).
      if let first = text.utf8.first(where: { $0 > 0x20 }),
        first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
        let inner = try? JSON(data: Data(text.utf8))
      {
        return .string(json(inner).rawText)
      }
      return text.contains("=") && isForm(text) ? .string(query(text)) : value
    default:
      return value
    }
  }

  /// Whether a JSON field holds a secret: a secret field name, or a secret header name (a body
  /// that echoes headers holds the same credentials).
  ///
  /// - Parameter name: the field name, any case.
  /// - Returns: whether its value is redacted.
  public func isSecret(field name: String) -> Bool {
    let lowered = name.lowercased()
    return fields.contains(lowered) || headers.contains(lowered)
  }

  /// What identifies a request body when recordings are matched: the SHA-256 (hex) of the body
  /// as it may be written, JSON with its keys sorted. A secret never reaches the hash, so the
  /// hash reveals nothing a dictionary could find, and a request that carries a recorded
  /// placeholder (a replayed `"refresh_token": "<redacted>"` sent back) or a fresh secret
  /// matches the recording of the same request.
  ///
  /// - Parameter data: the body.
  /// - Returns: the hash, or nil for an empty body.
  public func matchingHash(of data: Data) -> String? {
    guard !data.isEmpty else { return nil }
    let written: String
    switch body(data) {
    case .json(let json): written = json.text(pretty: false, sortedKeys: true)
    case .text(let text), .withheld(let text): written = text
    case .binary(let bytes): return SHA256.hex(bytes)
    }
    return SHA256.hex(Data(written.utf8))
  }

  // MARK: - Reports

  /// A lenient report entry as it may be logged: when a key on its path is a secret field, the
  /// snippet of what was found is replaced (its JSON kind stays).
  ///
  /// - Parameter entry: the entry.
  /// - Returns: the entry as it may be written.
  public func entry(_ entry: DecodingReport.Entry) -> DecodingReport.Entry {
    let keys = entry.path.split(whereSeparator: { $0 == "." || $0 == "[" })
    guard keys.contains(where: { isSecret(field: String($0)) }) else { return entry }
    var redacted = entry
    let kind = entry.found.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
    redacted.found = kind.isEmpty ? Self.placeholder : kind + " " + Self.placeholder
    return redacted
  }

  /// Whether text mentions a secret name, or fields of your own were named.
  private func mayHoldSecret(_ text: String) -> Bool {
    if namesExtraFields { return true }
    let lowered = text.lowercased()
    return fields.union(queryItems).contains { lowered.contains($0) }
  }

  /// `a=1&b=2`: no spaces or line breaks, and every pair has an `=`.
  private func isForm(_ text: String) -> Bool {
    !text.isEmpty && !text.contains(where: { $0 == " " || $0.isNewline })
      && text.split(separator: "&").allSatisfy { $0.contains("=") }
  }

  private func withheld(_ data: Data) -> String {
    "<redacted body: \(data.count) bytes>"
  }
}
