import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A session whose configuration adds a credential to every request (`httpAdditionalHeaders`)
/// and a `rel="next"` link to another origin: URLSession adds the header to the followed page
/// too, whatever the provider strips from the request, so the credential must not go there.
@Suite struct PagesSessionCredentialTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test(arguments: ["Authorization", "X-Api-Key"])
  func sessionCredentialsNeverFollowANextLinkToAnotherOrigin(_ header: String) async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = [header: "planted-session-secret"]
    let transport = URLSessionTransport(session: URLSession(configuration: configuration))
    let provider = Provider<Route>(transport: transport)
    let target = Route.plain("/pages", ["id": uniqueID(), "link": "cross"])
    let (pages, error) = await collect(provider.pages(target, as: ItemPage.self))
    // The first page got it (its own origin); a followed page on another origin never does.
    let seen = pages.dropFirst().map { $0.authorization + $0.apiKey }
    #expect(!seen.contains { $0.contains("planted-session-secret") }, "\(seen)")
    // Not followed: the sequence ends after the first page, saying why.
    #expect(pages.count == 1)
    guard case .underlying(let underlying, _)? = error as? ProviderError,
      case .crossOriginLink(let url)? = underlying as? PagingError
    else {
      Issue.record("ended with \(String(describing: error))")
      return
    }
    #expect(url.host == "localhost")
  }

  @Test func sessionCredentialsStillFollowANextLinkToTheSameOrigin() async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["Authorization": "Bearer planted-session-secret"]
    let transport = URLSessionTransport(session: URLSession(configuration: configuration))
    let provider = Provider<Route>(transport: transport)
    let target = Route.plain("/pages", ["id": uniqueID(), "link": "absolute"])
    let (pages, error) = await collect(provider.pages(target, as: ItemPage.self))
    #expect(error == nil)
    #expect(
      pages.map(\.authorization) == Array(repeating: "Bearer planted-session-secret", count: 3))
  }
}
