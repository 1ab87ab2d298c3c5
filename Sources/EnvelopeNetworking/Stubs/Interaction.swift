import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One recorded HTTP exchange, as stored in an interaction fixture file (see `Fixtures/README.md`).
///
/// Stubs (`StubResponse.fixture`), contract tests, and the recording and replay transports of
/// EnvelopeTesting all read and write this one format.
public struct Interaction: Sendable, Equatable {
  /// What identifies a request when replaying: method, path, sorted query, body hash and, in a
  /// recording, the credentials it carried (as numbered placeholders).
  public struct Request: Sendable, Hashable, CustomStringConvertible {
    /// The method, upper-case.
    public var method: String
    /// The URL path, e.g. `/users/ada`.
    public var path: String
    /// The percent-encoded query with its `name=value` pairs sorted, or nil for none.
    public var query: String?
    /// The SHA-256 in hex of the body as recordings write it (`Redaction.matchingHash(of:)`:
    /// secrets replaced, JSON keys sorted), or nil for no body.
    public var bodySHA256: String?
    /// The secret headers the request carried, as a recording writes them (`authorization:
    /// Bearer <token 2>`, one per line, names lower-case and sorted), or nil when it carried none
    /// or the key was made without numbering (a recording made before numbering, a log).
    /// Replay answers a request with the recordings made with the same credentials, so a
    /// request sent with the token a replayed refresh handed out gets the answers recorded for
    /// that token, however the requests of a concurrent flow interleave.
    public var credentials: String?

    /// Creates a request key.
    ///
    /// - Parameters:
    ///   - method: the method.
    ///   - path: the path.
    ///   - query: the query; its pairs are sorted here.
    ///   - bodySHA256: the body hash.
    public init(method: String, path: String, query: String? = nil, bodySHA256: String? = nil) {
      self.method = method.uppercased()
      self.path = path.isEmpty ? "/" : path
      self.query = query.flatMap { $0.isEmpty ? nil : Self.sortedQuery($0) }
      self.bodySHA256 = bodySHA256
    }

    /// Creates a request key with the credentials it carried.
    ///
    /// - Parameters:
    ///   - method: the method.
    ///   - path: the path.
    ///   - query: the query; its pairs are sorted here.
    ///   - bodySHA256: the body hash.
    ///   - credentials: the secret headers as written (see `credentials`).
    public init(
      method: String, path: String, query: String?, bodySHA256: String?, credentials: String?
    ) {
      self.init(method: method, path: path, query: query, bodySHA256: bodySHA256)
      self.credentials = credentials.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The key without its credentials: what identifies the request whatever token it carried.
    public var withoutCredentials: Request {
      var base = self
      base.credentials = nil
      return base
    }

    /// The key of a `URLRequest`, with secret query items and body fields replaced (recordings
    /// are written and matched with the same redaction, so no token reaches a file name or file,
    /// and a replayed flow that sends back a recorded placeholder still matches). With a
    /// numbering redaction (a recording transport's), a secret a response issued keeps its
    /// `<token n>`, a secret the app sent first is `<redacted>`, and the secret headers are kept
    /// as `credentials`; otherwise every secret is `<redacted>` and `credentials` is nil.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - redaction: which query items are secret.
    public init(_ request: URLRequest, redacting redaction: Redaction = .default) {
      let components = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true) }
      let redaction = redaction.forRequestKeys()
      var credentials: String?
      if redaction.numbers != nil {
        credentials = (request.allHTTPHeaderFields ?? [:])
          .filter { redaction.isSecret(header: $0.key) }
          .sorted { $0.key.lowercased() < $1.key.lowercased() }
          .map { $0.key.lowercased() + ": " + redaction.header($0.key, $0.value) }
          .joined(separator: "\n")
      }
      self.init(
        method: request.httpMethod ?? "GET", path: components?.percentEncodedPath ?? "/",
        query: components?.percentEncodedQuery.map(redaction.query),
        bodySHA256: request.httpBody.flatMap(redaction.matchingHash(of:)),
        credentials: credentials)
    }

    /// A file name that is valid on every file system and reads as the request: `GET_users_ada`,
    /// path segments joined by `_`, every byte other than letters, digits, `-` and `.` written
    /// as `~XX`; a short query made only of letters, digits and `-._` kept readable
    /// (`GET_repos_o_r_issues_page-1` for `?page=1`, `&` as `_`); a longer or unsafe query (a
    /// redacted secret, spaces, encoded bytes) and any body as `_` and 8 hex digits of their
    /// hash. See `FixtureName.recording`.
    public var fileName: String {
      FixtureName.recording(
        method: method, path: path, query: query, bodySHA256: bodySHA256, readableQuery: true)
    }

    /// The file name with the query always hashed (`GET_repos_o_r_issues_1a2b3c4d`), distinct
    /// for distinct requests: what a recording is written as when its readable name holds a
    /// recording of another request.
    public var hashedFileName: String {
      FixtureName.recording(
        method: method, path: path, query: query, bodySHA256: bodySHA256, readableQuery: false)
    }

    /// `POST /login?a=1 (body 3f2a…)`.
    public var description: String {
      var text = method + " " + path
      if let query { text += "?" + query }
      if let bodySHA256 { text += " (body \(bodySHA256.prefix(12))…)" }
      if let credentials {
        text += " [" + credentials.split(separator: "\n").joined(separator: ", ") + "]"
      }
      return text
    }

    private static func sortedQuery(_ query: String) -> String {
      query.split(separator: "&", omittingEmptySubsequences: true).map(String.init).sorted()
        .joined(separator: "&")
    }
  }

  /// The request this answers; nil in a file written by hand for stubs.
  public var request: Request?
  /// Which identical request this answered in the recorded run: 1 for the first, 2 for the
  /// second (a retry after a token refresh), and so on. Replay answers the n-th identical
  /// request with occurrence n, or the last one recorded when there are fewer.
  public var occurrence = 1
  /// The request's headers, for review only (never matched on); written redacted.
  public var requestHeaders: [String: String] = [:]
  /// The HTTP status.
  public var status: Int
  /// The response headers.
  public var headers: [String: String]
  /// The response body.
  public var body: Data
  /// A delay before answering, in milliseconds.
  public var delayMilliseconds: Int?
  /// A transport error to fail with instead of answering.
  public var error: URLError.Code?

  /// Creates an interaction.
  ///
  /// - Parameters:
  ///   - request: the request key.
  ///   - status: the status.
  ///   - headers: the headers.
  ///   - body: the body.
  ///   - delayMilliseconds: a delay.
  ///   - error: a transport error.
  public init(
    request: Request?, status: Int, headers: [String: String] = [:], body: Data = Data(),
    delayMilliseconds: Int? = nil, error: URLError.Code? = nil
  ) {
    self.request = request
    self.status = status
    self.headers = headers
    self.body = body
    self.delayMilliseconds = delayMilliseconds
    self.error = error
  }

  /// Reads an interaction file.
  ///
  /// - Parameter fileContents: the file.
  /// - Returns: the interaction, or nil when the file is a body-only fixture (not a JSON object
  ///   with a `response` object holding an integer `status`).
  /// - Throws: `InteractionFileError` when it is an interaction with a malformed field.
  public static func read(_ fileContents: Data) throws -> Interaction? {
    guard let json = try? JSON(data: fileContents) else { return nil }
    return try read(json)
  }

  /// Reads an interaction from its JSON (a file's, or one entry of a cassette).
  ///
  /// - Parameter json: the interaction object.
  /// - Returns: the interaction, or nil when it is not one (no `response.status`).
  /// - Throws: `InteractionFileError` for a malformed field.
  public static func read(_ json: JSON) throws -> Interaction? {
    guard let response = json["response"], let status = response["status"]?.numberValue?.intValue
    else { return nil }
    var headers: [String: String] = [:]
    for (name, value) in response["headers"]?.objectValue ?? JSONObject() {
      guard let text = value.stringValue else { throw InteractionFileError("headers.\(name)") }
      headers[name] = text
    }
    var body = Data()
    if let text = response["bodyText"]?.stringValue {
      body = Data(text.utf8)
    } else if let encoded = response["bodyBase64"]?.stringValue {
      guard let data = Data(base64Encoded: encoded) else {
        throw InteractionFileError("response.bodyBase64")
      }
      body = data
    } else if let value = response["body"] {
      body = Data(value.rawText.utf8)
    }
    var request: Request?
    if let recorded = json["request"], let method = recorded["method"]?.stringValue {
      request = Request(
        method: method, path: recorded["path"]?.stringValue ?? "/",
        query: recorded["query"]?.stringValue, bodySHA256: recorded["bodySHA256"]?.stringValue,
        credentials: recorded["credentials"]?.stringValue)
    }
    var interaction = Interaction(
      request: request, status: status, headers: headers, body: body,
      delayMilliseconds: response["delayMilliseconds"]?.numberValue?.intValue,
      error: response["error"]?.numberValue?.intValue.map(Self.errorCode))
    for (name, value) in json["request"]?["headers"]?.objectValue ?? JSONObject() {
      interaction.requestHeaders[name] = value.stringValue
    }
    if let occurrence = json["request"]?["occurrence"] {
      guard let number = occurrence.numberValue?.intValue, number >= 1 else {
        throw InteractionFileError("request.occurrence")
      }
      interaction.occurrence = number
    }
    return interaction
  }

  /// The file text: pretty-printed, keys sorted, a JSON body embedded as JSON (a UTF-8 text body
  /// as `bodyText`, other bytes as `bodyBase64`), and secrets hidden by `redaction`.
  ///
  /// - Parameter redaction: what is secret in headers and bodies (the request key's query was
  ///   redacted when the key was made).
  /// - Returns: UTF-8 text ending in a newline.
  public func fileContents(redacting redaction: Redaction = .default) -> Data {
    Data((json(redacting: redaction).prettyText() + "\n").utf8)
  }

  /// The interaction as JSON, secrets hidden by `redaction` (what `fileContents` writes).
  ///
  /// - Parameter redaction: what is secret in headers and bodies.
  /// - Returns: the object with `request` and `response`.
  public func json(redacting redaction: Redaction = .default) -> JSON {
    var response = JSONObject()
    response.append("status", .number(JSONNumber(status)))
    var headerObject = JSONObject()
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      headerObject.append(name, .string(redaction.header(name, value)))
    }
    if headerObject.count > 0 { response.append("headers", .object(headerObject)) }
    if !body.isEmpty {
      switch redaction.body(body) {
      case .json(let json): response.append("body", json)
      case .text(let text), .withheld(let text): response.append("bodyText", .string(text))
      case .binary(let data): response.append("bodyBase64", .string(data.base64EncodedString()))
      }
    }
    if let delayMilliseconds {
      response.append("delayMilliseconds", .number(JSONNumber(delayMilliseconds)))
    }
    if let error { response.append("error", .number(JSONNumber(error.rawValue))) }
    var file = JSONObject()
    if let request {
      var object = JSONObject()
      object.append("method", .string(request.method))
      object.append("path", .string(request.path))
      if let query = request.query { object.append("query", .string(query)) }
      if let hash = request.bodySHA256 { object.append("bodySHA256", .string(hash)) }
      if let credentials = request.credentials {
        object.append("credentials", .string(credentials))
      }
      if occurrence > 1 { object.append("occurrence", .number(JSONNumber(occurrence))) }
      var sentHeaders = JSONObject()
      for (name, value) in requestHeaders.sorted(by: { $0.key < $1.key }) {
        sentHeaders.append(name, .string(redaction.header(name, value)))
      }
      if sentHeaders.count > 0 { object.append("headers", .object(sentHeaders)) }
      file.append("request", .object(object))
    }
    file.append("response", .object(response))
    return .object(file)
  }

  /// The code for a number (`Code(rawValue:)` is failable on Linux only).
  private static func errorCode(_ number: Int) -> URLError.Code {
    let code: URLError.Code? = URLError.Code(rawValue: number)
    return code ?? .unknown
  }
}

/// An interaction file with a field of the wrong kind.
public struct InteractionFileError: Error, CustomStringConvertible {
  /// The field, e.g. `response.bodyBase64`.
  public var field: String

  package init(_ field: String) { self.field = field }

  /// `interaction file: malformed response.bodyBase64`.
  public var description: String { "interaction file: malformed \(field)" }
}
