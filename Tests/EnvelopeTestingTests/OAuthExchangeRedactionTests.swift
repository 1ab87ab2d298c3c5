import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An OAuth authorization-code exchange (RFC 6749 §4.1.3 with PKCE, RFC 7636) and the redirect
/// that hands the code out, sent to the loopback server's echo routes.
struct OAuthTarget: TargetType {
  static let code = "planted-oauth-code"
  static let verifier = "planted-code-verifier"
  static let secrets = [code, verifier]

  var baseURL: URL
  var path: String
  var method: HTTPMethod = .post
  var task: RequestTask = .plain
  var query: [URLQueryItem] = []
  var authorization: AuthorizationType { .none }
  var timeout: TimeInterval { 30 }

  /// The token request as RFC 6749 writes it: a form.
  static func formExchange(_ base: URL, path: String = "/echo") -> OAuthTarget {
    OAuthTarget(
      baseURL: base, path: path,
      task: .form([
        "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
        "redirect_uri": "https://app.example/callback", "client_id": "app",
      ]))
  }

  /// The same exchange as a JSON body (some servers take it so).
  static func jsonExchange(_ base: URL) -> OAuthTarget {
    OAuthTarget(
      baseURL: base, path: "/echo",
      task: .json([
        "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
        "redirect_uri": "https://app.example/callback",
      ]))
  }

  /// The exchange's parameters in the URL's query (and `state` beside the code, as the
  /// authorization redirect brings it back).
  static func queryExchange(_ base: URL) -> OAuthTarget {
    OAuthTarget(
      baseURL: base, path: "/echo", method: .get,
      query: [
        URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: "xyz"),
        URLQueryItem(name: "code_verifier", value: verifier),
      ])
  }
}

@Suite(.serialized) struct OAuthExchangeRedactionTests {
  /// A code and a PKCE verifier planted in a form, a JSON body and a query reach no log line,
  /// no recording (name or contents) and no error description; the envelope's own `"code":0`
  /// stays readable in the logged response body.
  @Test func anAuthorizationCodeExchangeLeavesNoCodeOrVerifierInLogsRecordingsOrErrors()
    async throws
  {
    let server = try #require(TestServer.shared, "python3 must be available")
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let lines = LineLog()
    let logging = LoggingPlugin(level: .debug) { lines.add($1) }
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let provider = Provider<OAuthTarget>(transport: recorder, plugins: [logging])
    let base = server.baseURL
    let targets = [
      OAuthTarget.formExchange(base), OAuthTarget.jsonExchange(base),
      OAuthTarget.queryExchange(base),
    ]
    for target in targets {
      let response = try await provider.response(target)
      #expect(response.statusCode == 200)
      // The server got the secrets: only what is written of them is redacted.
      let sent = String(decoding: response.data, as: UTF8.self)
      #expect(OAuthTarget.secrets.allSatisfy { sent.contains($0) }, "\(sent)")
    }
    // An error's description previews the body the server answered with (the form echoed).
    var errors: [String] = []
    do {
      _ = try await provider.response(
        OAuthTarget.formExchange(base, path: "/anything").with(query: "status", "400"))
    } catch {
      errors.append("\(error)")
      errors.append(String(reflecting: error))
    }
    #expect(errors.count == 2)
    for text in lines.all + errors {
      #expect(!OAuthTarget.secrets.contains { text.contains($0) }, "\(text)")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == targets.count + 1)
    for name in names {
      let contents = try text(folder, name)
      let leaked = OAuthTarget.secrets.filter { contents.contains($0) || name.contains($0) }
      #expect(leaked.isEmpty, "\(name) holds \(leaked)")
    }
    // The status field of every envelope is no OAuth parameter: still written.
    let bodies = lines.all.filter { $0.contains("body: {") && $0.contains("\"method\"") }
    #expect(bodies.count == targets.count, "\(lines.all)")
    for body in bodies { #expect(body.contains(#"{"code":0,"#), "\(body)") }
  }

  struct TextCase: Sendable, CustomTestStringConvertible {
    var text: String
    var kept: [String]
    var testDescription: String { text }
  }

  /// Where `code` is an OAuth parameter (a form or query that holds `grant_type=
  /// authorization_code`, `code_verifier`, `redirect_uri` or `state` beside it) its value is
  /// redacted; elsewhere `code` is an envelope's status and stays.
  @Test(arguments: [
    TextCase(text: "grant_type=authorization_code&code=S3CR3T", kept: ["grant_type="]),
    TextCase(text: "code=S3CR3T&redirect_uri=https%3A%2F%2Fa.example%2Fcb", kept: ["redirect_uri"]),
    TextCase(text: "https://app.example/cb?code=S3CR3T&state=af0ifjsldkj", kept: ["af0ifjsldkj"]),
    TextCase(text: "https://app.example/cb#state=s1&code=S3CR3T", kept: ["state=s1"]),
    TextCase(text: "callback: /cb?code=S3CR3T&state=s1 failed", kept: ["failed"]),
    TextCase(text: "code_verifier=S3CR3T&client_id=app", kept: ["client_id=app"]),
  ])
  func anOAuthCodeOrVerifierIsRedactedInText(_ test: TextCase) throws {
    let data = Data(test.text.utf8)
    var written = [Redaction.default.bodyText(data), Redaction.default.query(test.text)]
    if test.text.hasPrefix("https:") {
      guard let url = URL(string: test.text) else {
        Issue.record("not a URL: \(test.text)")
        return
      }
      written.append(Redaction.default.url(url))
    }
    for text in written {
      #expect(!text.contains("S3CR3T"), "\(text)")
      for kept in test.kept { #expect(text.contains(kept), "\(text)") }
    }
  }

  /// JSON keys: `code_verifier` is always secret, `code` only beside `grant_type=
  /// authorization_code` or `code_verifier`.
  @Test func aJSONExchangeHidesItsCodeAndVerifier() throws {
    let body = #"{"grant_type":"authorization_code","code":"S3CR3T","code_verifier":"V3R1F13R"}"#
    let written = Redaction.default.bodyText(Data(body.utf8))
    #expect(!written.contains("S3CR3T") && !written.contains("V3R1F13R"), "\(written)")
    let alone = Redaction.default.bodyText(Data(#"{"code":0,"code_verifier":"V3R1F13R"}"#.utf8))
    #expect(!alone.contains("V3R1F13R"), "\(alone)")
  }

  @Test(arguments: [
    #"{"code":0,"msg":"ok","data":{"state":"active"}}"#,
    #"{"code":"A100","state":"x","msg":"wrong code"}"#,
    #"{"code":0,"data":{"url":"https://x.example/list?code=7&page=2"}}"#,
  ])
  func anEnvelopeCodeIsNoSecret(_ body: String) throws {
    let written = Redaction.default.bodyText(Data(body.utf8))
    #expect(!written.contains(Redaction.placeholder), "\(written)")
    #expect(Redaction.default.query("code=0&page=2") == "code=0&page=2")
  }
}

extension OAuthTarget {
  /// The same target with one more query item.
  func with(query name: String, _ value: String) -> OAuthTarget {
    var copy = self
    copy.query.append(URLQueryItem(name: name, value: value))
    return copy
  }
}
