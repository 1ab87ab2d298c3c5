import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Credential headers of well-known APIs, secret by a word of the rule (Cloudflare's
/// `X-Auth-Key`, Datadog's `DD-APPLICATION-KEY`, an `X-Access-Key`) or by a default name
/// (`X-Auth`, `Authentication`). Each
/// is dropped on a redirect to another origin and hidden in logs and `cURLDescription`.
@Suite struct VendorCredentialHeaderTests {
  static let planted = "planted-vendor-key"

  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  @Test(arguments: [
    "X-Auth-Key", "DD-APPLICATION-KEY", "X-Access-Key", "accessKey", "X-Auth", "Authentication",
  ])
  func aVendorsKeyHeaderNeverReachesAnotherOriginOrALog(_ header: String) async throws {
    var components = URLComponents(
      url: server.baseURL.appendingPathComponent("redirect"), resolvingAgainstBaseURL: false)
    components?.queryItems = [
      URLQueryItem(name: "to", value: "http://localhost:\(server.port)/headers")
    ]
    var request = URLRequest(url: try #require(components?.url))
    request.setValue(Self.planted, forHTTPHeaderField: header)
    request.setValue("kept", forHTTPHeaderField: "X-Trace")
    let transport = URLSessionTransport(session: URLSession(configuration: .ephemeral))
    let (data, response) = try await transport.send(request)
    #expect(response.statusCode == 200)
    let seen = try LenientDecoder().decode(SeenHeaders.self, from: data, at: "data")
    #expect(seen.host == "localhost:\(server.port)")
    #expect(seen.value(header) == nil, "\(header) reached the other origin")
    #expect(seen.value("X-Trace") == "kept")

    let lines = HookLog()
    await LoggingPlugin(level: .debug) { lines.add($1) }.willSend(request, target: Route("/"))
    #expect(!lines.all.isEmpty)
    for text in lines.all + [request.cURLDescription()] {
      #expect(!text.contains(Self.planted), "\(text)")
    }
  }

  /// Short credential names of query strings and forms (`pwd`, `jwt`) are hidden in an error's
  /// text, as the default names are.
  @Test(arguments: ["pwd", "jwt"])
  func aShortCredentialNameInAQueryIsHiddenInText(_ name: String) {
    let text = "GET http://127.0.0.1/login?user=ada&\(name)=\(Self.planted)&page=2 failed"
    let scrubbed = Redaction.default.scrubbed(text)
    #expect(!scrubbed.contains(Self.planted), "\(scrubbed)")
    #expect(scrubbed.contains("user=ada") && scrubbed.contains("page=2"))
  }

  @Test(arguments: ["monkey", "keyboard", "hotkeys", "author_key_count"])
  func aNameWithoutACredentialWordStaysReadable(_ name: String) {
    #expect(!Redaction.default.isSecret(name: name))
  }
}
