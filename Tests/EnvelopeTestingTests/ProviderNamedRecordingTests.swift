import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `/echo` sent with a secret under a name the provider alone was told
/// (`Provider(sensitiveHeaders: ["X-Session"])`): a header and a query item, which the server
/// echoes in its body, beside a default one.
struct SessionEchoTarget: TargetType {
  static let secret = "planted-recorded-session"
  static let defaultSecret = "planted-recorded-token"
  var baseURL: URL
  var path: String { "/echo" }
  var query: [URLQueryItem] {
    [
      URLQueryItem(name: "x_session", value: Self.secret),
      URLQueryItem(name: "access_token", value: Self.defaultSecret),
    ]
  }
  var headers: [String: String] { ["X-Session": Self.secret] }
  var timeout: TimeInterval { 30 }

  static func leaks(_ text: String) -> Bool {
    text.contains(secret) || text.contains(defaultSecret)
  }
}

/// A recording (a folder of files or a cassette) made through a provider hides the names the
/// provider was told, not only the recording's own; and replays through the same provider.
@Suite(.serialized) struct ProviderNamedRecordingTests {
  struct Echo: Decodable { var query: String }

  @Test func aProviderNamedSecretNeverReachesARecordingFile() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let target = SessionEchoTarget(baseURL: server.baseURL)
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let recorded = try await Provider<SessionEchoTarget>(
      transport: recorder, sensitiveHeaders: ["X-Session"]
    ).request(target, as: Echo.self)
    #expect(recorded.query.contains(SessionEchoTarget.secret), "the server got it")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == 1)
    for name in names {
      #expect(!SessionEchoTarget.leaks(name), "\(name)")
      let contents = try text(folder, name)
      #expect(!SessionEchoTarget.leaks(contents), "\(contents)")
    }
    // The same provider's names find the recording again.
    let replayed = try await Provider<SessionEchoTarget>(
      transport: ReplayTransport(folder: folder), sensitiveHeaders: ["X-Session"]
    ).request(target, as: Echo.self)
    #expect(!replayed.query.contains(SessionEchoTarget.secret))
  }

  @Test func aProviderNamedSecretNeverReachesACassette() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("session.json")
    let target = SessionEchoTarget(baseURL: server.baseURL)
    _ = try await Provider<SessionEchoTarget>(
      transport: try CassetteTransport(file: file, mode: .all), sensitiveHeaders: ["X-Session"]
    ).request(target, as: Echo.self)
    let contents = try text(folder, "session.json")
    #expect(contents.contains("x_session"))
    #expect(!SessionEchoTarget.leaks(contents), "\(contents)")
    let replayed = try await Provider<SessionEchoTarget>(
      transport: try CassetteTransport(file: file, mode: .never), sensitiveHeaders: ["X-Session"]
    ).request(target, as: Echo.self)
    #expect(!replayed.query.contains(SessionEchoTarget.secret))
  }
}
