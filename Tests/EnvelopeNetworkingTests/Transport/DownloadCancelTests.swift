import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A cancelled download leaves the destination as it was: a file already there stays.
@Suite struct DownloadCancelTests {
  @Test func aCancelledDownloadKeepsThePreviousFile() async throws {
    let server = try #require(TestServer.shared)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "download-cancel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("copy.bin")
    try Data("previous good copy".utf8).write(to: file)
    let transport = URLSessionTransport()
    let download = Task {
      try await transport.download(
        URLRequest(url: server.baseURL.appendingPathComponent("delay")), to: file,
        progress: { _, _ in })
    }
    try await Task.sleep(for: .milliseconds(200))
    download.cancel()
    let result = await download.result
    #expect((try? result.get()) == nil, "the slow download finished anyway")
    #expect(try Data(contentsOf: file) == Data("previous good copy".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["copy.bin"])
  }

  @Test func aCancelledProviderDownloadKeepsThePreviousFile() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "download-cancel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("copy.bin")
    try Data("previous good copy".utf8).write(to: file)
    let download = Task {
      for try await _ in Provider<TransferTarget>().download(
        TransferTarget(path: "/delay"), to: file)
      {}
    }
    try await Task.sleep(for: .milliseconds(200))
    download.cancel()
    let result = await download.result
    #expect((try? result.get()) == nil, "the slow download finished anyway")
    try await Task.sleep(for: .milliseconds(300))  // the transfer ends after its consumer
    #expect(try Data(contentsOf: file) == Data("previous good copy".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["copy.bin"])
  }
}
