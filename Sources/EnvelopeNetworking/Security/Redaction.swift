import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Which secrets are hidden wherever EnvelopeKit writes a request or response: log lines
/// (`LoggingPlugin`), errors (`ProviderError`'s description), recordings (`RecordingTransport`,
/// `CassetteTransport`), cache metadata and `cURLDescription`.
///
/// This is the one place that decides what is secret. One list of names applies alike to
/// headers, URL query items, form fields, `name=value` pairs inside any text, and JSON fields
/// (at any depth and inside stringified JSON). Names are compared without case and without
/// `-`, `_` and `.`, so `access_token`, `accessToken` and `Access-Token` are one name. The
/// defaults (`defaultNames`) always apply and what you name is added to them; a name holding a
/// word of `defaultNameWords` (`auth_token`, `PRIVATE-TOKEN`, `newPassword`) is secret too.
///
/// `code` is secret only as the authorization code of an OAuth exchange: beside
/// `grant_type=authorization_code`, `code_verifier`, `redirect_uri` or `state` in one form or
/// query (see `Redaction+OAuth.swift`); an envelope's `"code":0` stays readable.
///
/// A string that holds a URL (`"url":"http://…/anything?access_token=S&page=2"`, a `Location`
/// header, a form value) is redacted as a URL: its secret query items are replaced and its
/// user and password (`user:pw@`) are removed.
///
/// A body that is not JSON or a form is written (with the `user:password@` of its URLs removed)
/// only when it names none of the secret names and you named no name of your own; otherwise it
/// becomes a placeholder with its size alone (`<redacted body: 57 bytes>`). No hash of a secret is ever written: a hash of a short
/// password is found again by trying a dictionary.
///
/// Logs and errors write `<redacted>` for every secret. Recordings number them instead: each
/// distinct secret value of one recording run becomes `<token 1>`, `<token 2>`, … in the order
/// it first appears, so a request sent with the token a replayed refresh handed out matches the
/// recordings made with that token (see `Interaction.Request`).
///
/// A default can be turned off for a name a flow needs in clear (`revealing:`), e.g. a
/// pagination field called `token` that is no credential:
///
/// ```swift
/// let redaction = Redaction(headers: ["X-Session"], fields: ["ssn"], revealing: ["token"])
/// print(request.cURLDescription(redacting: ["X-Session"]))
/// ```
public struct Redaction: Sendable, Hashable {
  /// The secret names that always apply, to headers, query items, form fields and JSON fields
  /// alike.
  public static let defaultNames: [String] = [
    "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token",
    "api_key", "key", "access_token", "refresh_token", "id_token", "token", "password", "secret",
    "client_secret", "auth", "passwd", "sig", "code_verifier", "X-Auth", "Authentication", "pwd",
    "jwt",
  ]
  /// Words that make any name holding them secret, compared as names are (lower-case, without
  /// `-`, `_` and `.`): `auth_token`, `X-Access-Token`, GitLab's `PRIVATE-TOKEN`,
  /// `newPassword`, `OPENAI_API_KEY`, `credentials`, Azure's `Ocp-Apim-Subscription-Key` and
  /// `x-functions-key`, a presigned URL's `X-Amz-Signature`, `JSESSIONID` and `PHPSESSID`,
  /// Cloudflare's `X-Auth-Key`, Datadog's `DD-APPLICATION-KEY`, an `X-Access-Key`. A
  /// name ending in `tokens` is a count (`max_tokens`, `prompt_tokens`) and holds no
  /// credential; `author` and `authority` hold no word. Revealing a name (`revealing:`) writes
  /// it in clear although it holds a word.
  public static let defaultNameWords: [String] = [
    "token", "secret", "passw", "apikey", "credential", "privatekey", "subscriptionkey",
    "functionskey", "signature", "sessionid", "sessid", "authkey", "accesskey", "applicationkey",
  ]
  /// The default names, lower-case (one list: the same as `defaultQueryItems` and
  /// `defaultFields`).
  public static let defaultHeaders: Set<String> = Set(defaultNames.map { $0.lowercased() })
  /// The default names, lower-case (one list: the same as `defaultHeaders`).
  public static let defaultQueryItems: Set<String> = defaultHeaders
  /// The default names, lower-case (one list: the same as `defaultHeaders`).
  public static let defaultFields: Set<String> = defaultHeaders
  /// What replaces a secret value in logs and errors.
  public static let placeholder = "<redacted>"
  /// The defaults alone.
  public static let `default` = Redaction()

  /// The secret names (defaults included, revealed ones left out), as compared: lower-case,
  /// without `-`, `_` and `.`.
  public let names: Set<String>
  /// Whether names beyond the defaults were given: then no non-JSON body is written in clear.
  public let namesExtraFields: Bool
  /// The names written in clear although a default (a name or a word) makes them secret, as
  /// compared.
  private let revealed: Set<String>
  /// The length of the shortest secret name or word, as compared: a shorter name is no secret.
  let shortestName: Int
  /// Numbers each distinct secret of a recording run; nil writes `<redacted>`.
  package private(set) var numbers: SecretNumbers?
  /// Whether this redaction makes request keys (see `SecretNumbers`).
  private var forRequestKey = false

  /// The secret names as compared (the one list).
  public var headers: Set<String> { names }
  /// The secret names as compared (the one list).
  public var queryItems: Set<String> { names }
  /// The secret names as compared (the one list).
  public var fields: Set<String> { names }

  /// Creates a redaction: the defaults plus the names given, minus the names revealed. Every
  /// name given applies to headers, query items, form fields and JSON fields alike; the three
  /// parameters only say where you met it.
  ///
  /// - Parameters:
  ///   - headers: more secret names (e.g. a header `X-Session`).
  ///   - queryItems: more secret names (e.g. a query item `sig`).
  ///   - fields: more secret names (e.g. a JSON field `ssn`).
  ///   - revealing: names written in clear although a default redacts them, for a value a
  ///     recorded flow needs as it was. Only reveal what is not a credential, or a credential
  ///     of a throwaway test account.
  public init(
    headers: Set<String> = [], queryItems: Set<String> = [], fields: Set<String> = [],
    revealing: Set<String> = []
  ) {
    let revealed = Set(revealing.map(Self.normalized))
    let extra = Set(headers.union(queryItems).union(fields).map(Self.normalized))
    self.init(names: Self.comparedDefaults.union(extra).subtracting(revealed), revealed: revealed)
  }

  /// A redaction of these names and revealed names, as compared.
  private init(names: Set<String>, revealed: Set<String>) {
    self.names = names
    self.revealed = revealed
    self.shortestName = (names.map(\.count) + Self.defaultNameWords.map(\.count)).min() ?? 0
    self.namesExtraFields = !names.isSubset(of: Self.comparedDefaults)
    self.numbers = nil
  }

  /// The default names as compared.
  private static let comparedDefaults = Set(defaultNames.map(normalized))

  /// This redaction, also hiding what `other` hides: what a writer with names of its own (a
  /// `LoggingPlugin`'s, a recording's) writes for a response or request that carries the names
  /// of the provider and transport it went through (``Response/redaction``). A name is secret
  /// when either redaction says so, except a name this one reveals: the writer's `revealing:`
  /// stands. The numbering of a recording run stays this one's.
  ///
  /// ```swift
  /// let logged = Redaction(headers: ["X-Trace-Key"]).adding(response.redaction)
  /// ```
  ///
  /// - Parameter other: the redaction whose names are added.
  /// - Returns: the redaction hiding both's names (this one when `other` adds none).
  public func adding(_ other: Redaction) -> Redaction {
    if other.names.isSubset(of: names) { return self }
    let added = other.names.subtracting(revealed)
    guard !added.isSubset(of: names) else { return self }
    var result = Redaction(names: names.union(added), revealed: revealed)
    result.numbers = numbers
    result.forRequestKey = forRequestKey
    return result
  }

  /// The same redaction, numbering secrets with `numbers` (`<token 1>`, …) instead of writing
  /// `<redacted>`: what recordings write and match on.
  package func numbering(_ numbers: SecretNumbers) -> Redaction {
    var copy = self
    copy.numbers = numbers
    return copy
  }

  /// The same numbering redaction as request keys use: a secret the server did not issue is
  /// `<redacted>` (see `SecretNumbers`).
  package func forRequestKeys() -> Redaction {
    var copy = self
    copy.forRequestKey = true
    return copy
  }

  /// A name as compared: lower-case, without `-`, `_` and `.`.
  static func normalized(_ name: String) -> String {
    String(name.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != "." })
  }

  /// Whether `name` (a header, query item, form field or JSON field; any case) is secret.
  ///
  /// - Parameter name: the name.
  /// - Returns: whether its value is redacted.
  public func isSecret(name: String) -> Bool {
    let normalized = Self.normalized(name)
    if names.contains(normalized) { return true }
    if Self.holdsSecretWord(normalized), !revealed.contains(normalized) { return true }
    // A nested query or form key, as `RequestTask.parameters` writes them (`auth[token]`,
    // `token[]`, `user[0][password]`): secret when any of its parts is.
    guard name.contains("[") else { return false }
    return name.split(whereSeparator: { $0 == "[" || $0 == "]" }).contains {
      let part = Self.normalized(String($0))
      return names.contains(part) || (Self.holdsSecretWord(part) && !revealed.contains(part))
    }
  }

  /// Whether a name as compared was revealed.
  func isRevealed(_ normalized: String) -> Bool { revealed.contains(normalized) }

  /// Whether a name as compared holds one of `defaultNameWords` (and is no `…tokens` count).
  static func holdsSecretWord(_ normalized: String) -> Bool {
    if normalized.hasSuffix("tokens") { return false }
    return defaultNameWords.contains { normalized.contains($0) }
  }

  /// What replaces the secret `value`: `<redacted>`, or its number in a recording.
  func placeholder(for value: String) -> String {
    numbers?.placeholder(for: value, inRequestKey: forRequestKey) ?? Self.placeholder
  }

  /// Equal when the names are (the numbering of a run is not compared).
  public static func == (lhs: Redaction, rhs: Redaction) -> Bool {
    lhs.names == rhs.names && lhs.namesExtraFields == rhs.namesExtraFields
      && lhs.revealed == rhs.revealed
  }

  /// Hashes the names.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(names)
    hasher.combine(namesExtraFields)
    hasher.combine(revealed)
  }

  // MARK: - Headers

  /// Whether a header holds a secret.
  ///
  /// - Parameter name: the header name, any case.
  /// - Returns: whether it is redacted.
  public func isSecret(header name: String) -> Bool {
    isSecret(name: name)
  }

  /// A header value as it may be written: a secret header's value replaced (in a recording,
  /// `Bearer <token 2>`: the scheme stays, the credential is numbered), any other value with
  /// the secrets of URLs and `name=value` pairs in it replaced (a `Location` that carries a
  /// token).
  ///
  /// - Parameters:
  ///   - name: the header name.
  ///   - value: its value.
  /// - Returns: the value as it may be written.
  public func header(_ name: String, _ value: String) -> String {
    guard isSecret(header: name) else { return scrubbed(value) }
    guard numbers != nil else { return Self.placeholder }
    // `Bearer abc`: the scheme is no secret, and keeping it lets a replayed request that sends
    // `Bearer <token 2>` be numbered as the recording was.
    if let space = value.firstIndex(of: " "),
      value[..<space].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }),
      !value[..<space].isEmpty
    {
      let credential = value[value.index(after: space)...].trimmingCharacters(in: .whitespaces)
      return value[..<space] + " " + placeholder(for: credential)
    }
    return placeholder(for: value)
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

  /// A URL as it may be written: secret values of query and fragment items replaced (the names
  /// stay; `#access_token=…` as an OAuth implicit flow sends it), and any user and password
  /// removed. A value runs to the next `&` or `#`, whatever it holds.
  ///
  /// - Parameter url: the URL.
  /// - Returns: its text.
  public func url(_ url: URL?) -> String {
    guard let url else { return "" }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return scrubbed(url.absoluteString)
    }
    components.user = nil
    components.password = nil
    if let query = components.percentEncodedQuery {
      components.percentEncodedQuery = self.query(query)
    }
    if let fragment = components.percentEncodedFragment {
      components.percentEncodedFragment = self.query(fragment)
    }
    return components.string ?? Self.placeholder
  }

  /// A percent-encoded query (`a=1&token=x`) with secret values replaced, order kept: a value
  /// runs to the next `&` or `#`, whatever it holds. A value that is itself a URL or a query
  /// has its secrets replaced too.
  ///
  /// - Parameter query: the query, without `?`.
  /// - Returns: the query as it may be written.
  public func query(_ query: String) -> String {
    scrubbed(query, kind: .query, depth: 0)
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

  /// A body as it may be written: JSON redacted field by field; a form body (or a URL) redacted
  /// item by item; other text withheld when it can hold a named secret, else written with the
  /// user and password of its URLs removed. Bytes that are not UTF-8 are read as ISO-8859-1
  /// (every byte is a character), so a Latin-1 form is redacted as a form and any other such
  /// body that mentions a secret name is withheld; the rest is kept as bytes only when no name
  /// of your own was given.
  ///
  /// - Parameter data: the body.
  /// - Returns: what may be written.
  public func body(_ data: Data) -> Body {
    if let json = try? JSON(data: data) { return .json(self.json(json)) }
    guard let text = String(data: data, encoding: .utf8) else {
      let latin1 = String(String.UnicodeScalarView(data.map { Unicode.Scalar($0) }))
      if isForm(latin1) {
        let redacted = query(latin1)
        return redacted == latin1 ? .binary(data) : .text(redacted)
      }
      return mayHoldSecret(latin1) ? .withheld(withheld(data)) : .binary(data)
    }
    if isForm(text) { return .text(query(text)) }
    return mayHoldSecret(text) ? .withheld(withheld(data)) : .text(scrubbed(text))
  }

  /// Whether `data` holds a secret as `body(_:)` reads it: a JSON field or form item it hides,
  /// a `user:password@` it removes, or text it withholds.
  ///
  /// - Parameter data: the body.
  /// - Returns: true when what may be written differs from the body.
  func holdsSecret(body data: Data) -> Bool {
    switch body(data) {
    case .json(let redacted): return (try? JSON(data: data)) != redacted
    case .text(let text): return text != String(decoding: data, as: UTF8.self)
    case .withheld: return true
    case .binary: return false
    }
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

  /// A JSON value with every secret field replaced, also inside strings that hold JSON, a URL,
  /// a query or `name=value` pairs.
  ///
  /// - Parameter value: the value.
  /// - Returns: the redacted value.
  public func json(_ value: JSON) -> JSON {
    switch value {
    case .array(let elements):
      return .array(elements.map(json))
    case .object(let object):
      var copy = JSONObject()
      var marksExchange: Bool?
      for (key, child) in object {
        let secret =
          isSecret(field: key) || isOAuthCode(field: key, in: object, marked: &marksExchange)
        copy.append(key, secret ? secretValue(child) : json(child))
      }
      return .object(copy)
    case .string(let text):
      // Stringified JSON (`"{\"token\":\"…\"}"`) is redacted inside and written back as a
      // string; so is a URL, a query or a form (`"a=1&token=…"`).
      if let first = text.utf8.first(where: { $0 > 0x20 }),
        first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
        let inner = try? JSON(data: Data(text.utf8))
      {
        return .string(json(inner).rawText)
      }
      return .string(scrubbed(text))
    default:
      return value
    }
  }

  /// What a secret field's value becomes: `<redacted>`, or in a recording its number (a string
  /// or number is numbered by its text; an object or array as a whole).
  private func secretValue(_ value: JSON) -> JSON {
    guard numbers != nil else { return .string(Self.placeholder) }
    switch value {
    case .null: return .null
    case .string(let text): return .string(placeholder(for: text))
    default: return .string(placeholder(for: value.rawText))
    }
  }

  /// Whether a JSON field holds a secret (the one list of names: a body that echoes headers
  /// holds the same credentials).
  ///
  /// - Parameter name: the field name, any case.
  /// - Returns: whether its value is redacted.
  public func isSecret(field name: String) -> Bool {
    isSecret(name: name)
  }

  /// What identifies a request body when recordings are matched: the SHA-256 (hex) of the body
  /// as it may be written, JSON with its keys sorted. A secret never reaches the hash, so the
  /// hash reveals nothing a dictionary could find; in a recording each secret is numbered, so a
  /// request that sends back the `<token 3>` a replayed response handed out matches the
  /// recording of the request that sent that token.
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
    let lowered = Self.normalized(text)
    return names.contains { lowered.contains($0) }
      || Self.defaultNameWords.contains { lowered.contains($0) }
  }

  /// `a=1&b=2`: no spaces or line breaks, and every pair has an `=`.
  private func isForm(_ text: String) -> Bool {
    // One pass: a piece between `&` is empty or holds `=`.
    var (pieceIsEmpty, pieceHasEquals, sawPiece) = (true, false, false)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
        return false
      case UInt8(ascii: "&"):
        guard pieceIsEmpty || pieceHasEquals else { return false }
        (pieceIsEmpty, pieceHasEquals) = (true, false)
      default:
        if byte == UInt8(ascii: "=") { pieceHasEquals = true }
        (pieceIsEmpty, sawPiece) = (false, true)
      }
    }
    return sawPiece && (pieceIsEmpty || pieceHasEquals)
  }

  private func withheld(_ data: Data) -> String {
    "<redacted body: \(data.count) bytes>"
  }
}
