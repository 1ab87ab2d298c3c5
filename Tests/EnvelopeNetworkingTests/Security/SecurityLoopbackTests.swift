import EnvelopeKit
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `/headers` answers: the headers the server received and the Host it was addressed as.
struct SeenHeaders: Decodable {
  var host: String
  var headers: [String: String]

  func value(_ name: String) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
  }
}

/// A GET with credential headers of one user, cached for a minute.
struct CookieTarget: TargetType {
  var path = "/counter"
  var headers: [String: String]
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var cachePolicy: CachePolicy { .cacheElseLoad(maxAge: .seconds(60)) }
  var timeout: TimeInterval { 10 }
}

@Suite(.serialized) struct SecurityLoopbackTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  // MARK: - Redirects

  /// A session without a cookie jar, so the Cookie header sent is the one the test set (the
  /// shared session's jar holds cookies other tests' responses set).
  static func session() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    return URLSession(configuration: configuration)
  }

  func redirected(to target: String, transport: URLSessionTransport) async throws -> SeenHeaders {
    var components = URLComponents(
      url: server.baseURL.appendingPathComponent("redirect"), resolvingAgainstBaseURL: false)
    components?.queryItems = [URLQueryItem(name: "to", value: target)]
    var request = URLRequest(url: try #require(components?.url))
    for (name, value) in PlantedSecrets.headers() {
      request.setValue(value, forHTTPHeaderField: name)
    }
    request.setValue("Basic cHJveHk6cGxhbnRlZA==", forHTTPHeaderField: "Proxy-Authorization")
    request.setValue("kept", forHTTPHeaderField: "X-Trace")
    let (data, response) = try await transport.send(request)
    #expect(response.statusCode == 200)
    return try LenientDecoder().decode(SeenHeaders.self, from: data, at: "data")
  }

  @Test func crossOriginRedirectReachesTheOtherHostWithoutCredentials() async throws {
    let transport = URLSessionTransport(session: Self.session(), sensitiveHeaders: ["X-Session"])
    let seen = try await redirected(
      to: "http://localhost:\(server.port)/headers", transport: transport)
    #expect(seen.host == "localhost:\(server.port)")
    for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Session"] {
      #expect(seen.value(name) == nil, "\(name) reached the other origin")
    }
    #expect(seen.value("X-Trace") == "kept")
    #expect(PlantedSecrets.found(in: "\(seen.headers)").isEmpty)
  }

  @Test func sameOriginRedirectKeepsCredentials() async throws {
    let seen = try await redirected(
      to: "/headers", transport: URLSessionTransport(session: Self.session()))
    #expect(seen.host == "127.0.0.1:\(server.port)")
    #expect(seen.value("Authorization") == "Bearer \(PlantedSecrets.bearer)")
    #expect(seen.value("X-Api-Key") == PlantedSecrets.apiKey)
    #expect(seen.value("Cookie")?.contains(PlantedSecrets.cookie) == true)
  }

  @Test(arguments: [
    ("http://a.test/x", "http://A.test:80/y", true),
    ("https://a.test/", "https://a.test:443", true),
    ("http://a.test/", "https://a.test/", false), ("http://a.test:8080/", "http://a.test/", false),
    ("http://127.0.0.1:9/", "http://localhost:9/", false),
  ])
  func originsCompareSchemeHostAndPort(from: String, to: String, same: Bool) throws {
    let a = try #require(URL(string: from))
    let b = try #require(URL(string: to))
    #expect(RedirectGuard.sameOrigin(a, b) == same)
  }

  // MARK: - Cache partitions

  @Test func twoCookieUsersNeverShareACachedEntry() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<CookieTarget>(cache: try DiskCache(directory: folder))
    let ada = CookieTarget(headers: ["Cookie": "sid=ada-\(UUID())"])
    let bob = CookieTarget(headers: ["Cookie": "sid=bob-\(UUID())"])
    let first = try await provider.request(ada, as: Count.self)
    let second = try await provider.request(bob, as: Count.self)
    #expect(second.count != first.count, "bob was served ada's cached entry")
    #expect(try await provider.request(ada, as: Count.self) == first)  // ada's own entry
    #expect(try await provider.request(bob, as: Count.self) == second)
    // API-key users are partitioned the same way.
    let keyed = try await provider.request(
      CookieTarget(headers: ["X-Api-Key": "k1"]), as: Count.self)
    let other = try await provider.request(
      CookieTarget(headers: ["X-Api-Key": "k2"]), as: Count.self)
    #expect(keyed.count != other.count)
  }

  @Test func cacheScopeKeepsAUsersEntriesAcrossATokenRefresh() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let provider = Provider<CookieTarget>(
      cache: try DiskCache(directory: folder), cacheScope: { "user-1" })
    let before = try await provider.request(
      CookieTarget(headers: ["Authorization": "Bearer old"]), as: Count.self)
    let after = try await provider.request(
      CookieTarget(headers: ["Authorization": "Bearer new"]), as: Count.self)
    #expect(after == before)
    let otherUser = Provider<CookieTarget>(
      cache: try DiskCache(directory: folder), cacheScope: { "user-2" })
    let theirs = try await otherUser.request(
      CookieTarget(headers: ["Authorization": "Bearer new"]), as: Count.self)
    #expect(theirs != before)
  }

  @Test func cacheFilesHoldNoCredentialAndNoSetCookie() async throws {
    let folder = temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = try DiskCache(directory: folder)
    let provider = Provider<SecretTarget>(cache: cache, sensitiveHeaders: ["X-Session"])
    let first = try await provider.response(SecretTarget(path: "/profile"))
    #expect(first.headers.keys.contains { $0.lowercased() == "set-cookie" })
    let cached = try await provider.response(SecretTarget(path: "/profile"))
    #expect(cached.isFromCache)
    #expect(!cached.headers.keys.contains { $0.lowercased() == "set-cookie" })
    let files = filesText(below: folder)
    #expect(files.count == 1)
    for file in files {
      // The body is the user's data and stays as received; the metadata holds no secret.
      let metadata = String(file.text.prefix { $0 != "\n" })
      #expect(PlantedSecrets.found(in: metadata + file.name).isEmpty, "\(file.name): \(metadata)")
      #expect(!file.text.contains("planted-set-cookie"))
      #expect(!file.text.contains(PlantedSecrets.queryToken))
    }
  }

  // MARK: - Logs, recordings, cURL

  @Test func noPlantedSecretReachesALogLineOrACurlDescription() async throws {
    let lines = HookLog()
    let logging = LoggingPlugin(level: .debug, redactedHeaders: ["X-Session"]) { lines.add($1) }
    let curls = HookLog()
    struct CurlPlugin: Plugin {
      let curls: HookLog
      func willSend(_ request: URLRequest, target: any TargetType) async {
        curls.add(request.cURLDescription(redacting: ["X-Session"]))
      }
    }
    let provider = Provider<SecretTarget>(plugins: [logging, CurlPlugin(curls: curls)])
    for target in Self.secretTargets { _ = try? await provider.response(target) }
    #expect(lines.all.count >= 12)
    #expect(curls.all.count == Self.secretTargets.count)
    for line in lines.all + curls.all {
      #expect(PlantedSecrets.found(in: line).isEmpty, "\(line)")
    }
  }

  /// GET and POST routes whose requests and responses carry every kind of planted secret.
  static let secretTargets: [SecretTarget] = [
    SecretTarget(path: "/profile"), SecretTarget(path: "/login/form"),
    SecretTarget(path: "/headers"),
    SecretTarget(
      path: "/echo", method: .post,
      task: .json(["name": "ada", "password": PlantedSecrets.bodyPassword])),
    SecretTarget(
      path: "/echo", method: .post,
      task: .form(["name": "ada", "password": PlantedSecrets.bodyPassword])),
  ]
}

@Suite struct FixtureNameTests {
  @Test(arguments: ["../Package.swift", "users/../../x.json", "/etc/passwd", "~/x", "", "a\\..\\b"])
  func namesThatLeaveTheFolderAreRejected(name: String) throws {
    let root = URL(fileURLWithPath: "/tmp/fixtures")
    #expect(throws: FixtureNameError.self) { try FixtureName.resolve(name, in: root) }
  }

  @Test func aStubNamingAFileOutsideTheFolderFailsClearly() async throws {
    struct Escape: TargetType {
      var baseURL: URL { URL(fileURLWithPath: "/") }
      var path: String { "" }
      var sample: StubResponse { .fixture("../Package.swift") }
    }
    let provider = Provider<Escape>(stub: .immediate, fixtures: packageFixtures)
    do {
      _ = try await provider.response(Escape())
      Issue.record("a fixture outside the folder was read")
    } catch ProviderError.underlying(let error as FixtureNameError, nil) {
      #expect(error.name == "../Package.swift")
    }
  }

  @Test func nestedRelativeNamesResolveBelowTheRoot() throws {
    let root = URL(fileURLWithPath: "/tmp/fixtures")
    #expect(
      try FixtureName.resolve("users/ada.json", in: root).path == "/tmp/fixtures/users/ada.json")
  }
}
