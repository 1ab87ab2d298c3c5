import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A cached POST (a GraphQL-style query, a search) whose credential travels in its body, under
/// an identity that leaves the body out (`.base`, `.custom`).
struct BodyCredentialTarget: TargetType {
  var task: RequestTask
  var cacheKey: CacheKey
  var path: String { "/counter" }
  var method: HTTPMethod { .post }
  var authorization: AuthorizationType { .none }
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var cachePolicy: CachePolicy { .cacheElseLoad(maxAge: .seconds(60)) }
  var timeout: TimeInterval { 30 }
}

/// An entry's owner is whoever the request authenticates as, also when the credential travels
/// in the body and the identity (`.base`, `.custom`) leaves the body out: two users never share
/// an entry, and no file of the disk cache holds the credential.
@Suite struct BodyCredentialCacheKeyTests {
  struct BodyCase: Sendable, CustomTestStringConvertible {
    var name: String
    var contentType: String
    /// The body of a user, with `variables` the part that is no credential.
    var body: @Sendable (_ credential: String, _ variables: String) -> String
    var testDescription: String { name }
  }

  static let bodies: [BodyCase] = [
    BodyCase(name: "JSON api_key", contentType: "application/json") {
      #"{"query":"{ me { name } }","variables":{"page":"\#($1)"},"api_key":"\#($0)"}"#
    },
    BodyCase(name: "GraphQL variables.token", contentType: "application/json") {
      #"{"query":"{ me }","variables":{"token":"\#($0)","page":"\#($1)"}}"#
    },
    BodyCase(name: "form access_token", contentType: "application/x-www-form-urlencoded") {
      "page=\($1)&access_token=\($0)"
    },
    BodyCase(name: "OAuth code exchange", contentType: "application/x-www-form-urlencoded") {
      "grant_type=authorization_code&code=\($0)&redirect_uri=app%3A%2F%2Fcb&page=\($1)"
    },
    BodyCase(name: "multipart password", contentType: "multipart/form-data; boundary=b") {
      "--b\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n\($0)\r\n"
        + "--b\r\nContent-Disposition: form-data; name=\"page\"\r\n\r\n\($1)\r\n--b--\r\n"
    },
  ]

  static let identities: [CacheKey] = [.base, .custom("v1"), .default]

  static func key(_ identity: CacheKey, _ body: BodyCase, _ credential: String, _ page: String)
    throws -> String
  {
    var request = URLRequest(url: try #require(URL(string: "https://api.example.com/v1/graphql")))
    request.httpMethod = "POST"
    request.httpBody = Data(body.body(credential, page).utf8)
    request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
    return CachePartition.key(
      for: request, identity: identity,
      endpoint: (try #require(URL(string: "https://api.example.com")), "/v1/graphql"), scope: nil)
  }

  @Test(arguments: identities, bodies)
  func twoUsersWhoseCredentialIsInTheBodyNeverShareAnEntry(_ identity: CacheKey, _ body: BodyCase)
    throws
  {
    #expect(
      try Self.key(identity, body, "user-a-credential", "1")
        != Self.key(identity, body, "user-b-credential", "1"))
  }

  /// `.base` and `.custom` still share one entry across what is no credential (the page), when
  /// the credential can be told apart (JSON and forms; a body redaction withholds whole counts
  /// whole).
  @Test(arguments: Array(bodies.prefix(4)))
  func aBaseKeyStillSharesAcrossTheRestOfTheBody(_ body: BodyCase) throws {
    #expect(try Self.key(.base, body, "same", "1") == Self.key(.base, body, "same", "2"))
  }

  /// Against the loopback server: each user's POST is answered for them alone (the counter
  /// differs), each is answered from the cache the second time, and no file below the cache
  /// directory holds a planted body credential.
  @Test(arguments: [CacheKey.base, .custom("v1")], bodies)
  func aDiskCacheKeepsBodyCredentialedUsersApartAndNeverWritesTheCredential(
    _ identity: CacheKey, _ body: BodyCase
  ) async throws {
    _ = try #require(TestServer.shared, "python3 must be available for the loopback server")
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<BodyCredentialTarget>(cache: try DiskCache(directory: folder))
    let planted = ["planted-body-ada-\(UUID())", "planted-body-bob-\(UUID())"]
    func target(_ credential: String) -> BodyCredentialTarget {
      BodyCredentialTarget(
        task: .data(Data(body.body(credential, "1").utf8), contentType: body.contentType),
        cacheKey: identity)
    }
    let ada = try await provider.request(target(planted[0]), as: Count.self)
    let bob = try await provider.request(target(planted[1]), as: Count.self)
    #expect(bob != ada, "bob was served ada's cached entry")
    #expect(try await provider.request(target(planted[0]), as: Count.self) == ada)
    #expect(try await provider.request(target(planted[1]), as: Count.self) == bob)
    let files = filesText(below: folder)
    #expect(files.count == 2)
    for file in files {
      for secret in planted {
        #expect(!file.text.contains(secret) && !file.name.contains(secret), "\(file.name)")
      }
    }
  }
}
