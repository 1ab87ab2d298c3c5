import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A download's progress counts the response body only, an upload's the request body only.
@Suite struct TransferProgressTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test(arguments: SessionKind.allCases) func aDownloadWithALargeRequestBodyReportsOnlyTheResponse(
    _ session: SessionKind
  ) async throws {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let size = 300_000
    var route = Route("/bytes", ["n": "\(size)"])
    route.method = .post
    let target = UploadRoute(
      route: route, task: .data(Data(count: 1 << 20), contentType: "application/octet-stream"))
    var completed: [Int64] = []
    var totals = Set<Int64?>()
    for try await event in Provider<UploadRoute>(transport: session.transport().0).download(
      target, to: folder.appendingPathComponent("body.bin"))
    {
      if case .progress(let done, let total) = event {
        completed.append(done)
        totals.insert(total)
      }
    }
    #expect(totals == [Int64(size)], "totals other than the Content-Length")
    #expect(zip(completed, completed.dropFirst()).allSatisfy { $0 <= $1 }, "\(completed)")
    #expect(completed.last == Int64(size))
    #expect(completed.allSatisfy { $0 <= Int64(size) })
  }

  @Test func anUploadWithALargeResponseReportsOnlyTheRequestBody() async throws {
    let folder = temporaryFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("up.bin")
    try Data(count: 200_000).write(to: file)
    var route = Route("/bytes", ["n": "\(2 << 20)"])  // answers 2 MB
    route.method = .post
    let target = UploadRoute(
      route: route, task: .file(file, contentType: "application/octet-stream"))
    var totals = Set<Int64?>()
    var completed: [Int64] = []
    for try await event in Provider<UploadRoute>().upload(target) {
      if case .progress(let done, let total) = event {
        completed.append(done)
        totals.insert(total)
      }
    }
    #expect(totals == [200_000])
    #expect(completed.last == 200_000)
    #expect(zip(completed, completed.dropFirst()).allSatisfy { $0 <= $1 })
  }
}
