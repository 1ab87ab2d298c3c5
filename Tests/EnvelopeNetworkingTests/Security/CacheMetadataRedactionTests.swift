import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Answers every request with a small envelope and a response header `X-Session` holding the
/// session the request sent: a server that hands a session back in a header of your naming.
struct SessionEchoTransport: HTTPTransport {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let url = request.url ?? URL(fileURLWithPath: "/")
    let session = request.value(forHTTPHeaderField: "X-Session") ?? ""
    guard
      let response = HTTPURLResponse(
        url: url, statusCode: 200, httpVersion: nil, headerFields: ["X-Session": session])
    else { throw URLError(.badServerResponse) }
    return (Data(#"{"code":0,"data":{"count":1}}"#.utf8), response)
  }
}

/// A cached GET whose secret travels in a header and a query item named by the app alone
/// (`sensitiveHeaders: ["X-Session"]`), not by the default list.
struct NamedSecretTarget: TargetType {
  static let secret = "planted-named-session"
  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/me" }
  var query: [URLQueryItem] { [URLQueryItem(name: "x-session", value: Self.secret)] }
  var headers: [String: String] { ["X-Session": Self.secret] }
  var authorization: AuthorizationType { .none }
  var cachePolicy: CachePolicy { .cacheElseLoad(maxAge: .seconds(60)) }
}

@Suite struct CacheMetadataRedactionTests {
  /// A name the provider was told is secret (`sensitiveHeaders:`) is hidden in the disk cache's
  /// metadata as the defaults are: in the stored response headers and in the stored URL.
  @Test func aSecretNamedByTheAppNeverReachesADiskCacheFile() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<NamedSecretTarget>(
      transport: SessionEchoTransport(), cache: try DiskCache(directory: folder),
      sensitiveHeaders: ["X-Session"])
    _ = try await provider.response(NamedSecretTarget())
    let cached = try await provider.response(NamedSecretTarget())
    #expect(cached.isFromCache)
    let files = filesText(below: folder)
    #expect(files.count == 1)
    for file in files {
      #expect(!file.text.contains(NamedSecretTarget.secret), "\(file.text.prefix(400))")
    }
  }

  /// A server that writes its `Link`s by copying the request's query copies the credential in it
  /// (`/pages?access_token=…` links to `/pages?access_token=…&page=2`): the disk cache's metadata
  /// holds a stand-in for it, and a cached page still gives its links as the server wrote them,
  /// so the pages follow from the cache.
  @Test func aCredentialTheServerCopiesIntoALinkNeverReachesADiskCacheFile() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let (token, key) = ("planted-linked-token", "planted-linked-key")
    let id = uniqueID()
    var route = Route.plain("/pages", ["id": id, "access_token": token, "api_key": key])
    route.server = server
    route.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    let provider = Provider<Route>(cache: try DiskCache(directory: folder))
    let first = await collect(provider.pages(route, as: [Item].self, at: "items"))
    #expect(first.error == nil)
    #expect(first.pages.flatMap { $0 } == (1...23).map(Item.init))
    let live = try #require(try await provider.response(route).header("Link"))
    #expect(live.contains("access_token=\(token)"), "the server copies the query: \(live)")
    let files = filesText(below: folder)
    #expect(files.count == 3)
    for file in files {
      // The body is the user's data and stays as received; the metadata holds no credential.
      let metadata = String(file.text.prefix { $0 != "\n" })
      #expect(!metadata.contains(token) && !metadata.contains(key), "\(metadata)")
    }
    // From the cache: the links as the server wrote them, and every page without the network.
    let cached = try await provider.response(route)
    #expect(cached.isFromCache)
    #expect(cached.header("Link") == live)
    let again = await collect(provider.pages(route, as: [Item].self, at: "items"))
    #expect(again.error == nil)
    #expect(again.pages.flatMap { $0 } == (1...23).map(Item.init))
    #expect(try await hits("pages" + id).count == 3)
  }
}
