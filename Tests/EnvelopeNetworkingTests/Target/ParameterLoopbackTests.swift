import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `.parameters` as the loopback server receives them, and as the logs write them.
@Suite(.serialized) struct ParameterLoopbackTests {
  let provider = Provider<LoopbackAPI>()

  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available to start the loopback server")
  }

  static let parameters: [String: any Sendable] = [
    "q": "swift & co",
    "tags": ["a b", "ü"],
    "filter": ["since": "2024-01-01", "open": true] as [String: any Sendable],
    "page": 2,
    "ratio": 0.5,
    "none": String?.none,
  ]
  static let encoded =
    "filter%5Bopen%5D=1&filter%5Bsince%5D=2024-01-01&page=2&q=swift%20%26%20co&ratio=0.5"
    + "&tags%5B%5D=a%20b&tags%5B%5D=%C3%BC"

  @Test func theServerReceivesTheParametersWhereTheEncodingPutsThem() async throws {
    let get = try await provider.request(
      .echo(.parameters(Self.parameters, encoding: .url), .get), as: Echo.self)
    #expect(get.method == "GET" && get.query == Self.encoded && get.body.isEmpty)

    let delete = try await provider.request(
      .echo(.parameters(Self.parameters, encoding: .url), .delete), as: Echo.self)
    #expect(delete.method == "DELETE" && delete.query == Self.encoded && delete.body.isEmpty)

    let post = try await provider.request(
      .echo(.parameters(Self.parameters, encoding: .url), .post), as: Echo.self)
    #expect(post.method == "POST" && post.query.isEmpty && post.body == Self.encoded)
    #expect(post.contentType == "application/x-www-form-urlencoded")
    // Python's parse_qsl decodes the brackets and escapes (a dictionary: the last `tags[]`).
    #expect(
      post.form == [
        "filter[open]": "1", "filter[since]": "2024-01-01", "page": "2", "q": "swift & co",
        "ratio": "0.5", "tags[]": "ü",
      ])

    let query = try await provider.request(
      .echo(.parameters(Self.parameters, encoding: .queryString), .post), as: Echo.self)
    #expect(query.query == Self.encoded && query.body.isEmpty && query.contentType.isEmpty)

    let json = try await provider.request(
      .echo(.parameters(Self.parameters, encoding: .json), .patch), as: Echo.self)
    #expect(json.contentType == "application/json" && json.query.isEmpty)
    #expect(
      json.body
        == #"{"filter":{"open":true,"since":"2024-01-01"},"none":null,"page":2,"q":"swift & co","#
        + #""ratio":0.5,"tags":["a b","ü"]}"#)
  }

  // MARK: - Logs

  /// Logs every line of one call at `.debug`, over a transport that answers `{}` (so that only
  /// the request is written with a secret in it).
  func logged(_ task: RequestTask, _ method: HTTPMethod) async throws -> String {
    let lines = HookLog()
    let logging = LoggingPlugin(level: .debug) { lines.add($1) }
    let provider = Provider<ParameterTarget>(transport: CountingTransport(), plugins: [logging])
    _ = try await provider.response(ParameterTarget(method: method, task: task))
    #expect(lines.all.count >= 2)
    return lines.all.joined(separator: "\n")
  }

  @Test(arguments: [
    (ParameterEncoding.url, HTTPMethod.get), (.url, .post), (.queryString, .post),
  ])
  func aSecretParameterIsRedactedInDebugLogs(_ encoding: ParameterEncoding, _ method: HTTPMethod)
    async throws
  {
    let log = try await logged(
      .parameters(["api_key": "S3CR3T-k", "token": "S3CR3T-t", "q": "x"], encoding: encoding),
      method)
    #expect(!log.contains("S3CR3T"), "\(log)")
    #expect(log.contains("api_key=%3Credacted%3E"), "\(log)")
  }

  @Test func aSecretJSONFieldIsRedactedInDebugLogs() async throws {
    let log = try await logged(
      .parameters(["password": "S3CR3T-p", "user": ["token": "S3CR3T-t"]], encoding: .json),
      .post)
    #expect(!log.contains("S3CR3T"), "\(log)")
  }

  // Secrets inside nested keys (`auth[token]`, `user[password]`, `token[]`) and `api_key` as a
  // JSON field are redacted like any other secret name (one list, Security/Redaction.swift).

  @Test(arguments: [
    (RequestTask.parameters(["auth": ["token": "S3CR3T-n"]], encoding: .url), "GET"),
    (.parameters(["user": ["password": "S3CR3T-f", "name": "ada"]], encoding: .url), "POST"),
    (.parameters(["token": ["S3CR3T-a", "S3CR3T-b"]], encoding: .queryString), "POST"),
    (.parameters(["api_key": "S3CR3T-j"], encoding: .json), "POST"),
  ])
  func secretsInNestedKeysAndJSONFieldsAreRedacted(task: RequestTask, method: String)
    async throws
  {
    let log = try await logged(task, method == "GET" ? .get : .post)
    #expect(!log.contains("S3CR3T"), "\(log)")
  }
}
