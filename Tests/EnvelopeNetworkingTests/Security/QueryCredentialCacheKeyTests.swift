import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An entry's owner is whoever the request authenticates as, also when the credential travels
/// in the query (`api_key=…`, a signed URL's `sig`), and also under the `.base` and `.custom`
/// identities that leave the rest of the query out: two users never share an entry.
@Suite struct QueryCredentialCacheKeyTests {
  static let identities: [CacheKey] = [.default, .base, .custom("v1")]
  static let names = ["api_key", "access_token", "token", "sig", "X-Amz-Signature", "auth[token]"]

  @Test(arguments: identities, names)
  func twoUsersWhoseCredentialIsAQueryItemNeverShareAnEntry(_ identity: CacheKey, _ name: String)
    throws
  {
    func key(_ user: String) throws -> String {
      var components = try #require(URLComponents(string: "https://api.example.com/v1/me"))
      components.queryItems = [
        URLQueryItem(name: "page", value: "1"), URLQueryItem(name: name, value: user),
      ]
      let url = try #require(components.url)
      return CachePartition.key(
        for: URLRequest(url: url), identity: identity,
        endpoint: (URL(string: "https://api.example.com")!, "/v1/me"), scope: nil)
    }
    #expect(try key("user-a-credential") != key("user-b-credential"))
  }

  /// Queries whose credential only `Redaction`'s whole rule sees (not a secret item name): an
  /// OAuth authorization code beside `state` (a callback GET), and a token inside an
  /// encoded URL item. Whatever the redaction hides in the query owns a `.base` or `.custom`
  /// entry, as for the body.
  static let queries: [String] = [
    "code=%@&state=s1&page=1",
    "page=1&next=https%3A%2F%2Fx.example%2Fa%3Faccess_token%3D%@",
  ]

  @Test(arguments: [CacheKey.base, .custom("v1")], queries)
  func twoUsersWhoseQueryCredentialOnlyTheRedactionSeesNeverShareAnEntry(
    _ identity: CacheKey, _ query: String
  ) throws {
    func key(_ user: String) throws -> String {
      let url = try #require(
        URL(
          string: "https://api.example.com/v1/cb?"
            + query.replacingOccurrences(of: "%@", with: user)))
      return CachePartition.key(
        for: URLRequest(url: url), identity: identity,
        endpoint: (URL(string: "https://api.example.com")!, "/v1/cb"), scope: nil)
    }
    #expect(try key("user-a-credential") != key("user-b-credential"))
    // What is no credential still shares the entry.
    #expect(try key("same") == key("same"))
  }

  /// An ordinary query item stays out of a `.base` key: every query shares one entry.
  @Test func anOrdinaryQueryItemStaysOutOfABaseKey() throws {
    func key(_ page: String) throws -> String {
      let url = try #require(URL(string: "https://api.example.com/v1/me?page=" + page))
      return CachePartition.key(
        for: URLRequest(url: url), identity: .base,
        endpoint: (URL(string: "https://api.example.com")!, "/v1/me"), scope: nil)
    }
    #expect(try key("1") == key("2"))
  }
}
