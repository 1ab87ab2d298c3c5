import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Every task of a provider goes through the session it was given, and that session's delegate
/// hears about it: calls, downloads and uploads alike.
@Suite(.aheadOfTheBacklog) struct SessionDelegateTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  /// The provider over a session whose delegate counts, and that delegate.
  func provider() -> (Provider<UploadRoute>, CountingDelegate) {
    let (transport, delegate) = SessionKind.delegated.transport()
    return (Provider<UploadRoute>(transport: transport), delegate ?? CountingDelegate())
  }

  func folder() throws -> URL {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Waits for callbacks the session delivers on its own queue after the result, `poll`'s rounds at most
  /// (100 rounds of 10 ms, about a second, could pass before a loaded machine ran that queue).
  func settle(_ delegate: CountingDelegate, _ name: String, atLeast count: Int) async throws {
    _ = await poll { delegate.count(name) >= count }
  }

  @Test func theSessionsDelegateSeesADownload() async throws {
    let (provider, delegate) = provider()
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let target = UploadRoute(route: Route("/bytes", ["n": "100000"]), task: .plain)
    for try await _ in provider.download(target, to: folder.appendingPathComponent("d.bin")) {}
    try await settle(delegate, "complete", atLeast: 1)
    #expect(delegate.count("complete") == 1)
    #expect(delegate.count("response") == 1)
    #expect(delegate.count("data") >= 1)
  }

  @Test func theSessionsDelegateSeesAnUpload() async throws {
    let (provider, delegate) = provider()
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("u.bin")
    try Data(count: 100_000).write(to: file)
    var route = Route("/upload")
    route.method = .post
    let target = UploadRoute(
      route: route, task: .file(file, contentType: "application/octet-stream"))
    for try await _ in provider.upload(target) {}
    try await settle(delegate, "complete", atLeast: 1)
    #expect(delegate.count("complete") == 1)
    #expect(delegate.count("sent") >= 1)
  }

  @Test func theSessionsDelegateSeesACall() async throws {
    let (provider, delegate) = provider()
    _ = try await provider.request(
      UploadRoute(route: Route("/envelope/ok"), task: .plain), as: User.self)
    try await settle(delegate, "complete", atLeast: 1)
    #expect(delegate.count("complete") == 1)
  }

  @Test func theSessionsDelegateAnswersATransfersChallenge() async throws {
    let (provider, delegate) = provider()
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    var challenge = Route("/challenge", ["scheme": "basic"])
    challenge.timeout = 5
    let route = challenge
    // A hang: transfers have no timeout. 100 s, not 30: a full run on a loaded machine held the
    // concurrency pool past 30 s, and this failed with `Overran`.
    let (error, _) = try await timed(limit: .seconds(100)) {
      do {
        for try await _ in provider.download(
          UploadRoute(route: route, task: .plain), to: folder.appendingPathComponent("c.bin"))
        {}
        return nil as ProviderError?
      } catch let error as ProviderError { return error }
    }
    #expect(error?.response?.statusCode == 401)
    #expect(delegate.count("challenge") == 1)
  }
}
