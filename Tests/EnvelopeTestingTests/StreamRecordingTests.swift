import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A stream is recorded (the whole body, redacted as every recording) and replayed as a
/// stream, in the chunks asked for.
@Suite struct StreamRecordingTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  func request(_ path: String) throws -> URLRequest {
    URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)")))
  }

  func collect(_ body: ResponseBody) async throws -> [Data] {
    var chunks: [Data] = []
    for try await chunk in body { chunks.append(chunk) }
    return chunks
  }

  @Test(arguments: [1, 7, 64]) func aRecordedStreamReplaysAsAStreamInTheChunksAsked(_ size: Int)
    async throws
  {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let path = "/stream/chunks?n=4&pause=0.05&size=25"
    let recorded = try await recorder.stream(try request(path))
    let live = try await collect(recorded.body).reduce(Data(), +)
    #expect(live.count == 100)

    let replay = ReplayTransport(folder: folder, chunking: StreamChunking(size: size))
    let replayed = try await replay.stream(try request(path))
    let chunks = try await collect(replayed.body)
    #expect(replayed.response.statusCode == 200)
    #expect(chunks.reduce(Data(), +) == live)
    #expect(chunks.count == (live.count + size - 1) / size)
    #expect(chunks.allSatisfy { $0.count <= size })
  }

  @Test func aRecordedStreamIsRedactedAsRecordingsAre() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let streamed = try await recorder.stream(try request("/profile"))
    let live = try await collect(streamed.body).reduce(Data(), +)
    #expect(String(decoding: live, as: UTF8.self).contains("planted-password"))
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    let file = try #require(files.first)
    let written = try text(folder, file)
    #expect(!written.contains("planted-password"))
    #expect(!written.contains("planted-set-cookie"))
    #expect(written.contains("dark"))

    let replayed = try await ReplayTransport(folder: folder).stream(try request("/profile"))
    let body = String(decoding: try await collect(replayed.body).reduce(Data(), +), as: UTF8.self)
    #expect(body.contains("Ada"))
    #expect(!body.contains("planted-password"))
  }

  @Test func aStreamLeftEarlyRecordsWhatWasRead() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let path = "/stream/chunks?n=50&pause=0.05&size=10"
    let streamed = try await recorder.stream(try request(path))
    var read = Data()
    for try await chunk in streamed.body {
      read.append(chunk)
      if read.count >= 20 { break }
    }
    let replayed = try await ReplayTransport(folder: folder).stream(try request(path))
    #expect(try await collect(replayed.body).reduce(Data(), +) == read)
  }

  @Test func aCassetteRecordsAndReplaysAStream() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("stream.json")
    let path = "/stream/chunks?n=3&size=12"
    let recording = try CassetteTransport(file: file, mode: .all)
    let live = try await collect(try await recording.stream(try request(path)).body)
      .reduce(Data(), +)
    let replaying = try CassetteTransport(file: file, mode: .never)
    let replayed = try await collect(try await replaying.stream(try request(path)).body)
      .reduce(Data(), +)
    #expect(live.count == 36)
    #expect(replayed == live)
  }
}
