import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The loopback server's `/anything`: echoes the URL, query items, headers, form and JSON it was
/// sent (as httpbin does), with the status the `status` query item names.
struct AnythingTarget: TargetType {
  var baseURL: URL
  var path = "/anything"
  var method: HTTPMethod = .get
  var task: RequestTask = .plain
  var headers: [String: String] = [:]
  var query: [URLQueryItem] = []
  // Only a hang's bound: a call waits in the default session's queue (six connections to a
  // host) behind the calls of every suite running beside it, which on a loaded machine can take
  // longer than the 5 s this was.
  var timeout: TimeInterval { 30 }
}

/// Where a secret is planted.
enum SecretPlace: String, CaseIterable, Sendable {
  case header, queryItem, formField, jsonField
}

/// Collects log lines.
final class LogLines: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []
  func add(_ line: String) { lock.withLock { lines.append(line) } }
  var text: String { lock.withLock { lines.joined(separator: "\n") } }
}

@Suite struct SecretNamesTests {
  /// Sends `target` through a `.debug` logging provider; the log and the error's description.
  func logAndError(_ target: AnythingTarget) async throws -> (log: String, error: String) {
    let lines = LogLines()
    let provider = Provider<AnythingTarget>(plugins: [
      LoggingPlugin(level: .debug) { _, line in lines.add(line) }
    ])
    do {
      _ = try await provider.response(target)
      Issue.record("/anything?status=400 answered with a success")
      return (lines.text, "")
    } catch let error as ProviderError {
      #expect(error.response?.statusCode == 400)
      return (lines.text, "\(error)")
    }
  }

  /// One list of names: each default name is redacted as a header, a query item, a form field
  /// and a JSON field (nested, as `{"args":{"api_key":…}}`), in the `.debug` log of the request
  /// and of the echoed response, and in the error's description.
  @Test(arguments: Redaction.defaultNames, SecretPlace.allCases)
  func everySecretNameIsRedactedInEveryPlace(name: String, place: SecretPlace) async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let secret = "planted\(place.rawValue)\(UInt32.random(in: 100_000...999_999))"
    var target = AnythingTarget(
      baseURL: server.baseURL, query: [URLQueryItem(name: "status", value: "400")])
    switch place {
    case .header: target.headers = [name: secret]
    case .queryItem: target.query.insert(URLQueryItem(name: name, value: secret), at: 0)
    case .formField:
      target.method = .post
      target.task = .form([name: secret, "page": "2"])
    case .jsonField:
      target.method = .post
      target.task = .json(["outer": [name: secret]])
    }
    let (log, error) = try await logAndError(target)
    #expect(log.contains("body:"), "the debug log shows the bodies")
    #expect(!log.contains(secret), "\(name) as a \(place) reached the log:\n\(log)")
    #expect(!error.contains(secret), "\(name) as a \(place) reached the error:\n\(error)")
  }

  /// A response that echoes the request URL (`"url":"http://…/anything?access_token=S&page=2"`)
  /// hides the token in the log and the error, wherever the secret item stands in the query.
  @Test(arguments: [["access_token", "page"], ["page", "access_token"], ["token", "key"]])
  func anEchoedURLIsRedactedAsAURL(order: [String]) async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let secret = "echoed\(UInt32.random(in: 100_000...999_999))"
    let items = order.map { URLQueryItem(name: $0, value: $0 == "page" ? "2" : secret) }
    let target = AnythingTarget(
      baseURL: server.baseURL, query: items + [URLQueryItem(name: "status", value: "400")])
    let (log, error) = try await logAndError(target)
    #expect(log.contains("\"url\":\"http://127.0.0.1"), "the echoed URL is logged:\n\(log)")
    #expect(log.contains("status=400"), "items that are no secret stay")
    #expect(!log.contains(secret), "the log:\n\(log)")
    #expect(!error.contains(secret), "the error:\n\(error)")
  }

  struct TextCase: Sendable, CustomTestStringConvertible {
    var body: String
    var kept: [String]
    var testDescription: String { body }
  }

  /// URLs in JSON strings, in form values (percent-encoded) and as a whole text body: their
  /// secret query items and their user and password are hidden, the rest kept.
  @Test(arguments: [
    TextCase(
      body: #"{"url":"http://127.0.0.1:1/anything?access_token=S3CR3T&page=2"}"#,
      kept: ["/anything?access_token=%3Credacted%3E&page=2"]),
    TextCase(
      body: #"{"a":[{"next":"https://ada:S3CR3T@x.test/p?q=1"}]}"#,
      kept: [#""https://x.test/p?q=1""#]),
    TextCase(
      body: #"{"error":"see https://x.test/cb?code=1&client_secret=S3CR3T for details"}"#,
      kept: ["code=1&client_secret=%3Credacted%3E for details"]),
    TextCase(
      body: "user=ada&next=https%3A%2F%2Fx.test%2F%3Ftoken%3DS3CR3T%26page%3D2",
      kept: ["user=ada&next=https%3A%2F%2Fx.test%2F%3Ftoken%3D%253Credacted%253E%26page%3D2"]),
    TextCase(
      body: "http://x.test/anything?access_token=S3CR3T&page=2",
      kept: ["http://x.test/anything?access_token=%3Credacted%3E&page=2"]),
    TextCase(body: #"{"accessToken":"S3CR3T","Api-Key":"S3CR3T"}"#, kept: ["accessToken"]),
  ])
  func stringsThatHoldURLsAreRedactedAsURLs(_ test: TextCase) {
    let text = Redaction.default.bodyText(Data(test.body.utf8))
    #expect(!text.contains("S3CR3T"), "\(text)")
    for kept in test.kept { #expect(text.contains(kept), "\(text)") }
  }

  @Test func aHeaderThatIsNoSecretHasTheSecretsOfItsURLHidden() {
    let location = "https://u:S3CR3T@x.test/cb?token=S3CR3T&state=ok"
    #expect(
      Redaction.default.header("Location", location)
        == "https://x.test/cb?token=%3Credacted%3E&state=ok")
  }

  /// The one list: a name given for headers is also a field, a query item and a form field.
  @Test func aNameYouAddAppliesEverywhere() {
    let redaction = Redaction(headers: ["X-Session"])
    #expect(redaction.isSecret(field: "x_session"))
    #expect(redaction.query("xSession=S3CR3T&a=1") == "xSession=%3Credacted%3E&a=1")
    #expect(!redaction.bodyText(Data(#"{"x-session":"S3CR3T"}"#.utf8)).contains("S3CR3T"))
    #expect(Redaction(revealing: ["Api-Key"]).isSecret(field: "api_key") == false)
  }
}

@Suite struct GeneratedSecretTests {
  /// A name as apps spell it: as listed, lower, upper, camelCase, with `-` or `_`.
  static func variant(_ name: String, _ pick: Int) -> String {
    let words = name.split { $0 == "-" || $0 == "_" }.map(String.init)
    switch pick % 5 {
    case 0: return name
    case 1: return words.joined(separator: "_").lowercased()
    case 2: return words.joined(separator: "-").uppercased()
    case 3:
      return words.enumerated().map {
        $0.offset == 0 ? $0.element.lowercased() : $0.element.capitalized
      }
      .joined()
    default: return words.joined(separator: "-")
    }
  }

  /// Over generated bodies (a secret under every default name and its spellings, as a nested
  /// JSON field, a query item of a URL in a JSON string at any position, a form field, a form
  /// value holding an encoded URL, a URL inside a sentence, a URL's password), no planted secret
  /// survives `bodyText`, and the items around it that are no secret do. Seeded: the same
  /// inputs every run; the first failing input is in the message.
  @Test(arguments: [36, 3_600, 360_036] as [UInt64])
  func noPlantedSecretSurvivesAGeneratedBody(seed: UInt64) throws {
    var random = SeededGenerator(state: seed)
    let names = Redaction.defaultNames
    for index in 0..<1_500 {
      let name = Self.variant(
        names[Int(random.next() % UInt64(names.count))], Int(random.next() % 5))
      let secret = "Zq\(random.next() % 1_000_000_000)x\(index)"
      var items = [("page", "2"), ("sort", "asc"), ("q", "swift")].shuffled(using: &random)
      items.insert((name, secret), at: Int(random.next() % 4))
      let query = items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
      let url = "http://127.0.0.1:8080/anything?" + query
      let encodedURL = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
      let body: String
      switch random.next() % 7 {
      case 0:
        body = #"{"a":{"b":[{"\#(name)":"\#(secret)","page":"2"}]}}"#
      case 1:
        body = #"{"url":"\#(url)"}"#
      case 2:
        body = query
      case 3:
        body = "page=2&next=" + encodedURL
      case 4:
        body = #"{"error":"the request to \#(url) failed, page=2"}"#
      case 5:
        body = #"{"page":"2","link":"https://ada:\#(secret)@x.test/p?page=2"}"#
      default:
        body = #"{"meta":"{\"\#(name)\":\"\#(secret)\",\"page\":2}"}"#
      }
      let written = Redaction.default.bodyText(Data(body.utf8))
      guard !written.contains(secret), written.contains("page") else {
        Issue.record("seed \(seed), input \(index): \(body)\nwritten: \(written)")
        return
      }
    }
  }
}
