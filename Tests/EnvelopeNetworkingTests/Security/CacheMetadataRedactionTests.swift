import EnvelopeKit
import Foundation
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
}
