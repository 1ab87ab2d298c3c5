import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `/bytes` (n bytes, optional pause per 64 KB chunk) and `/upload` (counts what it receives).
struct TransferTarget: TargetType {
  var path = "/bytes"
  var method: HTTPMethod = .get
  var query: [URLQueryItem] = []
  var task: RequestTask = .plain
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var timeout: TimeInterval { 60 }

  static func bytes(_ count: Int, pause: Double = 0) -> TransferTarget {
    TransferTarget(query: [
      URLQueryItem(name: "n", value: "\(count)"), URLQueryItem(name: "pause", value: "\(pause)"),
    ])
  }
}

/// The resident set size of this process, from /proc (Linux); nil elsewhere.
func residentBytes() -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
    let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
  else { return nil }
  return kilobytes * 1024
}

struct Received: Decodable, Equatable { var received: Int; var contentType: String }

@Suite(.serialized) final class TransferTests {
  let folder = temporaryFolder()

  // A fresh instance per test: whatever the test did, its folder goes with it.
  deinit { try? FileManager.default.removeItem(at: folder) }

  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  @Test func aHundredMegabyteDownloadStreamsToDiskWithRisingProgress() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("big.bin")
    let size = 100_000_000
    let baseline = residentBytes()
    var peak = baseline ?? 0
    var completed: [Int64] = []
    var totals = Set<Int64?>()
    var finished: Response?
    for try await event in Provider<TransferTarget>().download(.bytes(size), to: file) {
      switch event {
      case .progress(let done, let total):
        completed.append(done)
        totals.insert(total)
        if completed.count % 64 == 0, let now = residentBytes() { peak = max(peak, now) }
      case .finished(let response):
        finished = response
      }
    }
    #expect(finished?.statusCode == 200)
    // How often the session reports depends on load: hundreds of events alone, a few when
    // every suite runs at once. They never go backwards and end at the total.
    #expect(!completed.isEmpty)
    #expect(zip(completed, completed.dropFirst()).allSatisfy { $0 <= $1 })  // never backwards
    #expect(completed.last == Int64(size))
    #expect(totals == [Int64(size)])
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect((attributes[.size] as? NSNumber)?.intValue == size)
    if let baseline {
      // Informational only: other suites run in this process at the same time, so RSS here is
      // not the download's. `EnvelopeBenchmarks --transfer` measures it in a process of its own.
      print("download of \(size) bytes: process RSS grew \((peak - baseline) / 1_048_576) MB")
    }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(leftovers == ["big.bin"])
  }

  @Test func cancellingMidDownloadLeavesNoFile() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("cancelled.bin")
    var events = 0
    for try await event in Provider<TransferTarget>().download(
      .bytes(50_000_000, pause: 0.01), to: file)
    {
      if case .progress = event { events += 1 }
      if events == 3 { break }  // ends the stream: the download is cancelled
    }
    #expect(events == 3)
    // The session reports the cancellation asynchronously; the part file goes with it (30 s at
    // most: 100 rounds of 20 ms, about 2 s, could pass first on a loaded machine).
    _ = try await poll { try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty }
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }

  @Test func aFailedStatusLeavesNoFileAndKeepsTheBody() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("missing.bin")
    do {
      for try await _ in Provider<TransferTarget>().download(
        TransferTarget(path: "/status/404json"), to: file)
      {}
      Issue.record("a 404 download finished")
    } catch ProviderError.business(404, _, let response) {  // an error envelope on a 404
      #expect(response.statusCode == 404)
      #expect(String(decoding: response.data, as: UTF8.self).contains("not found"))
    }
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }

  @Test func aFileUploadStreamsFromDiskWithProgress() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("upload.bin")
    try Data(repeating: 7, count: 3_000_000).write(to: file)
    let target = TransferTarget(
      path: "/upload", method: .post, task: .file(file, contentType: "application/octet-stream"))
    var sent: [Int64] = []
    var finished: Response?
    for try await event in Provider<TransferTarget>().upload(target) {
      switch event {
      case .progress(let done, _): sent.append(done)
      case .finished(let response): finished = response
      }
    }
    #expect(sent.last == 3_000_000)
    #expect(zip(sent, sent.dropFirst()).allSatisfy { $0 <= $1 })
    let response = try #require(finished)
    let received = try LenientDecoder().decodeEnvelope(Received.self, from: response.data)
    #expect(received == Received(received: 3_000_000, contentType: "application/octet-stream"))
  }

  @Test func aMultipartUploadReportsProgress() async throws {
    let target = TransferTarget(
      path: "/upload", method: .post,
      task: .multipart([
        .text("name", "ada"),
        MultipartPart(name: "f", data: Data(count: 200_000), fileName: "f.bin"),
      ]))
    var last: Int64 = 0
    var finished: Response?
    for try await event in Provider<TransferTarget>().upload(target) {
      switch event {
      case .progress(let done, _): last = done
      case .finished(let response): finished = response
      }
    }
    let received = try LenientDecoder().decodeEnvelope(
      Received.self, from: try #require(finished).data)
    #expect(received.received == Int(last))
    #expect(received.contentType.hasPrefix("multipart/form-data; boundary="))
  }
}
