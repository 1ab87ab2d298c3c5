import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A secret under a name the app gave (`Provider(sensitiveHeaders:)` or
/// `URLSessionTransport(sensitiveHeaders:)`), a name that is no default and holds no default
/// word: `X-Session` as a header, `x_session` as a query item and as a JSON field the server
/// echoes. Every place that writes the request or the response hides it as it hides a default
/// one: an error's and a response's description, a page error, a log line, a disk cache file.
@Suite struct ProviderNamedSecretTests {
  static let secret = "planted-provider-named"
  /// Under a default name beside it: the defaults still apply where names are added.
  static let defaultSecret = "planted-default-named"

  /// Where the app named `X-Session`.
  enum Naming: String, CaseIterable, Sendable {
    case provider, transport

    func provider(
      decoder: LenientDecoder = .init(), cache: (any ResponseCache)? = nil,
      plugins: [any Plugin] = []
    ) -> Provider<Route> {
      switch self {
      case .provider:
        return Provider(
          decoder: decoder, plugins: plugins, cache: cache, sensitiveHeaders: ["X-Session"])
      case .transport:
        return Provider(
          transport: URLSessionTransport(sensitiveHeaders: ["X-Session"]), decoder: decoder,
          plugins: plugins, cache: cache)
      }
    }
  }

  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  /// A route carrying the secret in a header and a query item (and a default one in the query).
  static func route(_ path: String, _ query: [String: String] = [:]) -> Route {
    var route = Route.plain(
      path, query.merging(["x_session": secret, "access_token": defaultSecret]) { $1 })
    route.headers = ["X-Session": secret]
    return route
  }

  /// Every way an app writes an error.
  static func texts(of error: any Error) -> [String] {
    var texts = ["\(error)", String(reflecting: error), error.localizedDescription]
    if let response = (error as? ProviderError)?.response {
      texts += ["\(response)", response.bodyPreview]
    }
    return texts
  }

  static func leaks(_ text: String) -> Bool {
    text.contains(secret) || text.contains(defaultSecret)
  }

  struct Missing: Decodable { var absent: Int }

  /// `/anything` echoes the URL, the query and the headers in its JSON body: a status the target
  /// does not accept (500) and a body that does not decode both fail with the response, whose
  /// URL and body the error's text writes.
  @Test(arguments: Naming.allCases, ["500", "200"])
  func aProviderNamedSecretNeverReachesAnErrorsText(_ naming: Naming, status: String)
    async throws
  {
    var decoder = LenientDecoder()
    decoder.policy = .strict
    let route = Self.route("/anything", ["status": status])
    do {
      let value = try await naming.provider(decoder: decoder).request(route, as: Missing.self)
      Issue.record("decoded \(value)")
    } catch let error as ProviderError {
      let response = try #require(error.response, "\(error)")
      // The echo holds the secret: that is what must not reach the text.
      #expect(String(decoding: response.data, as: UTF8.self).contains(Self.secret))
      for text in Self.texts(of: error) {
        #expect(!Self.leaks(text), "\(text)")
      }
      #expect("\(error)".contains("x_session="), "the name is still told: \(error)")
    }
  }

  /// A server that copies the request's query into its `Link`s copies the secret in it: the
  /// page error that names the next link (here a loop) does not write it.
  @Test(arguments: Naming.allCases)
  func aProviderNamedSecretNeverReachesAPageError(_ naming: Naming) async throws {
    let route = Self.route("/pages", ["id": uniqueID(), "link": "loop"])
    let (pages, error) = await collect(
      naming.provider().pages(route, as: [Item].self, at: "items"))
    #expect(pages.count == 2)
    guard case .underlying(let underlying, _)? = error as? ProviderError,
      case .repeatedLink(let url)? = underlying as? PagingError
    else {
      Issue.record("ended with \(String(describing: error))")
      return
    }
    #expect(url.query?.contains(Self.secret) == true, "the link holds it: \(url)")
    for text in Self.texts(of: try #require(error)) {
      #expect(!Self.leaks(text), "\(text)")
    }
  }

  /// `LoggingPlugin()` given no names of its own hides the provider's, in the request's and the
  /// response's lines, headers and bodies included.
  @Test(arguments: Naming.allCases)
  func aProviderNamedSecretNeverReachesALogLine(_ naming: Naming) async throws {
    let lines = HookLog()
    let logging = LoggingPlugin(level: .debug) { lines.add($1) }
    let provider = naming.provider(plugins: [logging])
    _ = try await provider.response(Self.route("/anything"))
    await #expect(throws: ProviderError.self) {
      try await provider.response(Self.route("/anything", ["status": "500"]))
    }
    #expect(lines.all.count >= 6, "\(lines.all)")
    #expect(lines.all.contains { $0.contains("X-Session: <redacted>") }, "\(lines.all)")
    for line in lines.all {
      #expect(!Self.leaks(line), "\(line)")
    }
  }

  /// A cached response's metadata (its URL and headers) is written without the secret, and
  /// the header partitions the cache whoever named it. The body is the user's data and stays
  /// as received: `/envelope/ok` does not echo the request.
  @Test(arguments: Naming.allCases)
  func aProviderNamedSecretNeverReachesADiskCacheFile(_ naming: Naming) async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = naming.provider(cache: try DiskCache(directory: folder))
    var route = Self.route("/envelope/ok", ["id": uniqueID()])
    route.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    _ = try await provider.response(route)
    #expect(try await provider.response(route).isFromCache)
    let files = filesText(below: folder)
    #expect(files.count == 1)
    for file in files {
      #expect(!Self.leaks(file.text), "\(file.text.prefix(400))")
    }
    // Another session in the header alone: another entry, not the first user's.
    var other = route
    other.headers = ["X-Session": Self.secret + "-other"]
    #expect(try await !provider.response(other).isFromCache)
  }

  /// A response the app stores in a `DiskCache` itself is written under the names of the
  /// provider that received it.
  @Test(arguments: Naming.allCases)
  func aProvidersResponseStoredByHandKeepsItsNamesOnDisk(_ naming: Naming) async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let response = try await naming.provider().response(Self.route("/envelope/ok"))
    try await DiskCache(directory: folder).store(
      response, forKey: String(repeating: "ab", count: 32))
    let files = filesText(below: folder)
    #expect(files.count == 1)
    for file in files {
      #expect(!Self.leaks(file.text), "\(file.text.prefix(400))")
    }
  }

  /// What a writer adds to a response's names: both lists, the defaults kept, and the writer's
  /// `revealing:` standing.
  @Test func addingNamesKeepsTheDefaultsAndTheWritersRevealedNames() {
    let provider = Redaction(headers: ["X-Session"])
    let writer = Redaction(fields: ["ssn"], revealing: ["token"])
    let both = writer.adding(provider)
    for name in ["X-Session", "x_session", "ssn", "access_token", "Authorization", "apiKey"] {
      #expect(both.isSecret(name: name), "\(name)")
    }
    #expect(!both.isSecret(name: "token"))
    #expect(!both.isSecret(name: "page"))
    #expect(both.namesExtraFields)
    #expect(Redaction.default.adding(.default) == .default)
    #expect(Redaction.default.adding(provider) == provider)
    var made = Response(statusCode: 200, data: Data())
    #expect(made.redaction == .default)
    made.redaction = provider
    #expect(made.redaction == provider)
  }
}
