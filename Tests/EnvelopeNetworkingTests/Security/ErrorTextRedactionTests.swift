import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A provider error's description writes the errors it holds (a refresh's, a plugin's, a
/// decoding error) without the secrets in them: a `URLError` prints its failing URL from its
/// `userInfo`, query and `user:password@` included, and a decoding error on a secret field may
/// quote the value.
@Suite struct ErrorTextRedactionTests {
  static let refreshToken = "planted-refresh-in-url"
  static let password = "planted-userinfo-password"
  static let apiKey = "planted-signing-key"
  static let decoded = "planted-decoded-token"

  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  /// A loopback URL nothing listens on any more (a server of its own, stopped): a request to it
  /// fails at once with `URLError(.cannotConnectToHost)` naming the URL.
  static func deadURL(_ pathAndQuery: String) throws -> URL {
    let dead = try TestServer()
    let port = dead.port
    dead.stop()
    return try #require(URL(string: "http://ada:\(password)@127.0.0.1:\(port)\(pathAndQuery)"))
  }

  /// Every way an app writes an error.
  static func texts(of error: any Error) -> [String] {
    ["\(error)", String(reflecting: error), error.localizedDescription]
  }

  static func leaked(_ error: any Error) -> [String] {
    let secrets = [refreshToken, password, apiKey, decoded]
    return texts(of: error).flatMap { text in secrets.filter { text.contains($0) } }
  }

  @Test func aRefreshThatFailsOnTheNetworkLeavesItsURLsSecretsOutOfTheError() async throws {
    let refreshURL = try Self.deadURL("/oauth/refresh?refresh_token=\(Self.refreshToken)")
    let auth = AccessTokenPlugin(token: { "stale" }) {
      _ = try await URLSession(configuration: .ephemeral).data(from: refreshURL)
    }
    let lines = HookLog()
    let logging = LoggingPlugin(level: .debug) { lines.add($1) }
    var route = Route("/auth401")
    route.authorization = .bearer
    do {
      let response = try await Provider<Route>(plugins: [auth, logging]).response(route)
      Issue.record("the call succeeded with \(response.statusCode)")
    } catch let error as ProviderError {
      guard case .authentication(let refreshError) = error else {
        Issue.record("not an authentication failure: \(error)")
        return
      }
      // The refresh's own error names the secrets: that is what must not reach the text.
      #expect(Self.texts(of: refreshError).contains { $0.contains(Self.refreshToken) })
      #expect(Self.leaked(error).isEmpty, "\(error)")
      #expect("\(error)".contains("/oauth/refresh"), "the URL is still told: \(error)")
    }
    #expect(lines.all.allSatisfy { !$0.contains(Self.refreshToken) && !$0.contains(Self.password) })
  }

  /// A plugin that signs each request with a key it fetches first, and fails with its own error
  /// holding the network's.
  struct SigningPlugin: Plugin {
    struct SigningFailed: Error { var underlying: any Error }
    let keyURL: URL

    func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
      do {
        _ = try await URLSession(configuration: .ephemeral).data(from: keyURL)
        return request
      } catch {
        throw SigningFailed(underlying: error)
      }
    }
  }

  @Test func aPluginsErrorHoldingAURLErrorLeavesItsURLsSecretsOutOfTheError() async throws {
    let plugin = SigningPlugin(keyURL: try Self.deadURL("/keys?api_key=\(Self.apiKey)"))
    do {
      let response = try await Provider<Route>(plugins: [plugin]).response(Route("/headers"))
      Issue.record("the call succeeded with \(response.statusCode)")
    } catch let error as ProviderError {
      guard case .underlying(let underlying, _) = error else {
        Issue.record("not the plugin's error: \(error)")
        return
      }
      #expect(Self.texts(of: underlying).contains { $0.contains(Self.apiKey) })
      #expect(Self.leaked(error).isEmpty, "\(error)")
    }
  }

  struct Session: Decodable { var token: Date }
  struct Echo: Decodable { var args: Session }

  @Test func aDecodingErrorOnASecretFieldDoesNotQuoteItsValue() async throws {
    var decoder = LenientDecoder()
    decoder.policy = .strict
    decoder.transform(Session.self, key: "token", .iso8601)
    let route = Route.plain("/anything", ["token": Self.decoded])
    do {
      let echo = try await Provider<Route>(decoder: decoder).request(route, as: Echo.self)
      Issue.record("decoded \(echo.args.token)")
    } catch let error as ProviderError {
      guard case .decoding(let decoding, _) = error else {
        Issue.record("not a decoding error: \(error)")
        return
      }
      #expect("\(decoding)".contains(Self.decoded))
      #expect(Self.leaked(error).isEmpty, "\(error)")
      #expect("\(error)".contains("args.token"), "the path is still told: \(error)")
    }
  }

  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  @Test func aDecodingErrorOnAnOrdinaryFieldKeepsItsDescription() {
    let error = DecodingError.typeMismatch(
      Int.self,
      DecodingError.Context(
        codingPath: [Key(stringValue: "age")],
        debugDescription: "Expected to decode Int but found a string instead."))
    #expect(
      Redaction.default.text(of: error).contains("Expected to decode Int but found a string"))
  }
}
