import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The names in the temporary folder that a transfer could leave: `.tmp` and `.part-` files.
func transferLeftovers(in folder: URL = FileManager.default.temporaryDirectory) -> Set<String> {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
  return Set(names.filter { $0.hasSuffix(".tmp") || $0.contains(".part-") })
}

@Suite(.serialized) struct TransferCancellationTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func abandoningADownloadAt2MBStopsItAndLeavesNoFile() async throws {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = transferLeftovers()
    let file = folder.appendingPathComponent("big.bin")
    let size = 20 << 20
    let id = uniqueID()
    var received: Int64 = 0
    // 64 KB every 5 ms: 20 MB would take about 1.6 s. The server stops after 3 MB until the
    // client goes (or 60 s): a loaded run that holds every thread of the concurrency pool for
    // minutes kept this loop from breaking while the whole body arrived.
    for try await event in Provider<Route>().download(
      Route("/bytes", ["n": "\(size)", "pause": "0.005", "id": id, "hold": "\(3 << 20)"]),
      to: file)
    {
      if case .progress(let completed, _) = event, completed >= 2 << 20 {
        received = completed
        break
      }
    }
    #expect(received >= 2 << 20 && received < Int64(size))
    // The transfer stopped: the server saw the connection go before its last byte. (A fixed
    // 2.5 s here, "long enough for the whole body to have arrived had the transfer gone on",
    // proved nothing on a machine slow enough to take longer.)
    #expect(try await stoppedEarly(id))
    #expect(!FileManager.default.fileExists(atPath: file.path))
    // The part file goes when the cancelled task completes, which a loaded machine (every suite
    // at once on two cores) can put off: wait for it, for `poll`'s rounds.
    try await waitForCleanUp(folder, before: before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    #expect(transferLeftovers().subtracting(before).isEmpty)
  }

  @Test func aCancelledConsumerGetsCancellationError() async throws {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = transferLeftovers()
    let file = folder.appendingPathComponent("big.bin")
    let started = HookLog()
    let id = uniqueID()
    let consumer = Task {
      for try await event in Provider<Route>().download(
        Route("/bytes", ["n": "\(20 << 20)", "pause": "0.005", "id": id, "hold": "\(1 << 20)"]),
        to: file)
      {
        if case .progress = event { started.add("progress") }
      }
    }
    while started.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    consumer.cancel()
    do {
      try await consumer.value
      Issue.record("a cancelled download ended normally")
    } catch {
      #expect(error is CancellationError, "\(error)")
    }
    // The transfer stopped before the body's end (was: a fixed 2.5 s, see above).
    #expect(try await stoppedEarly(id))
    #expect(!FileManager.default.fileExists(atPath: file.path))
    try await waitForCleanUp(folder, before: before)
    #expect(transferLeftovers().subtracting(before).isEmpty)
  }

  /// Whether the server saw the `/bytes` download of `id` go before its last byte: waits for
  /// it to say how the body ended (`poll`'s rounds at most).
  func stoppedEarly(_ id: String) async throws -> Bool {
    func ends() async throws -> (gone: Int, done: Int) {
      (try await hits("disconnect-" + id).count, try await hits("bytes-done-" + id).count)
    }
    _ = try await poll {
      let (gone, done) = try await ends()
      return gone + done > 0
    }
    let (gone, done) = try await ends()
    return gone == 1 && done == 0
  }

  /// Waits until `folder` is empty and the temporary folder has no transfer file that was not
  /// there `before` (`poll`'s rounds at most): a cancelled task's files go when it completes, after its
  /// consumer, and a download of another suite running beside this one has its own for a while.
  func waitForCleanUp(_ folder: URL, before: Set<String>) async throws {
    _ = try await poll {
      try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty
        && transferLeftovers().subtracting(before).isEmpty
    }
  }
}

@Suite struct IsolatedSessionTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  struct Echoed: Decodable { var headers: [String: String] }

  @Test func oneUsersCookieNeverReachesTheNextUsersRequest() async throws {
    let provider = Provider<Route>()  // the default transport
    _ = try await provider.request(Route("/cookie/set", ["user": "alice"]), as: Counted.self)
    let next = try await provider.request(Route("/headers"), as: Echoed.self)
    #expect(!next.headers.keys.contains { $0.lowercased() == "cookie" }, "\(next.headers)")
    // A Cookie header the app sets itself is sent as it is, not replaced by a jar.
    var own = Route("/headers")
    own.headers = ["Cookie": "session=bob"]
    let sent = try await provider.request(own, as: Echoed.self)
    #expect(sent.headers.first { $0.key.lowercased() == "cookie" }?.value == "session=bob")
    #expect(URLSessionTransport().session.configuration.urlCache == nil)
    #expect(URLSessionTransport().session.configuration.httpCookieStorage == nil)
  }
}
