import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A cancelled download leaves the destination as it was: a file already there stays.
///
/// The server holds its answer (`heldRoute`) until the test lets it, after the cancellation has
/// closed the connection: a download that went on would get its answer then and replace the
/// file. (They used `/delay`, 1 s, and cancelled after 200 ms: a cancellation more than a second
/// late on a loaded machine saw the download finish.)
@Suite struct DownloadCancelTests {
  /// The folder holds `copy.bin` alone once the transfer has cleaned up after itself (it ends
  /// after its consumer), or after `poll`'s rounds.
  func settledContents(_ folder: URL) async throws -> [String] {
    _ = try await poll {
      try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["copy.bin"]
    }
    return try FileManager.default.contentsOfDirectory(atPath: folder.path)
  }

  /// Waits for the server to see the held request of `id` hang up, then lets it answer (a
  /// download that was not cancelled gets its body now); how many hung up.
  func hangUpsThenRelease(_ id: String) async throws -> Int {
    let hangUps = try await hits(of: "shared-aborted" + id, reaching: 1)
    try await releaseShared(id)
    return hangUps
  }

  @Test func aCancelledDownloadKeepsThePreviousFile() async throws {
    let server = try #require(TestServer.shared)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "download-cancel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("copy.bin")
    try Data("previous good copy".utf8).write(to: file)
    let transport = wideTransport  // a session of its own: no queue behind other suites' calls
    let id = uniqueID()
    var components = try #require(
      URLComponents(
        url: server.baseURL.appendingPathComponent("shared"), resolvingAgainstBaseURL: false))
    components.queryItems = heldRoute(id).query
    // Longer than the server's hold: nothing but the cancellation hangs up (see heldRoute).
    let request = URLRequest(url: try #require(components.url), timeoutInterval: 600)
    let download = Task {
      try await transport.download(request, to: file, progress: { _, _ in })
    }
    try await waitForHits("shared" + id, 1)
    download.cancel()
    #expect(try await hangUpsThenRelease(id) == 1)
    let result = await download.result
    #expect((try? result.get()) == nil, "the download finished anyway")
    #expect(try Data(contentsOf: file) == Data("previous good copy".utf8))
    #expect(try await settledContents(folder) == ["copy.bin"])
  }

  @Test func aCancelledProviderDownloadKeepsThePreviousFile() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "download-cancel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("copy.bin")
    try Data("previous good copy".utf8).write(to: file)
    let id = uniqueID()
    let download = Task {
      for try await _ in Provider<UploadRoute>(transport: wideTransport).download(
        UploadRoute(route: heldRoute(id), task: .plain), to: file)
      {}
    }
    try await waitForHits("shared" + id, 1)
    download.cancel()
    #expect(try await hangUpsThenRelease(id) == 1)
    let result = await download.result
    #expect((try? result.get()) == nil, "the download finished anyway")
    #expect(try await settledContents(folder) == ["copy.bin"])
    #expect(try Data(contentsOf: file) == Data("previous good copy".utf8))
  }
}
