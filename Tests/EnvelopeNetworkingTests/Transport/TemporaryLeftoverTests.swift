import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The `TemporaryDirectory.*` folders in the temporary directory (the name SwiftPM's own
/// temporary folders have, which it leaves behind).
func temporaryDirectoryLeftovers() -> Set<String> {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
  return Set(names.filter { $0.hasPrefix("TemporaryDirectory.") })
}

/// How many `TemporaryDirectory.*` folders appeared while `body` ran `writes` writes. Other
/// processes (another `swift test`) may add a few meanwhile, so the test asks for fewer new
/// folders than writes, which a writer that left one folder per write cannot meet.
func leftovers(writes: Int, _ body: (Int) async throws -> Void) async rethrows -> Int {
  let before = temporaryDirectoryLeftovers()
  for index in 0..<writes { try await body(index) }
  return temporaryDirectoryLeftovers().subtracting(before).count
}

/// A transport that can only send: downloads go through the in-memory default.
private struct SendOnlyTransport: HTTPTransport {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let url = request.url ?? URL(fileURLWithPath: "/")
    guard
      let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:])
    else { throw URLError(.badServerResponse) }
    return (Data("downloaded".utf8), response)
  }
}

/// A stubbed target whose sample is a short body.
private struct StubbedFile: TargetType {
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "file" }
  var sample: StubResponse { .body(Data("stubbed".utf8)) }
}

/// Files the library writes whole (cache entries, downloads that pass through memory) leave
/// nothing in the temporary directory. (The `TemporaryDirectory.*` folders a `swift test` run
/// leaves in `/tmp` are SwiftPM's own: five per run, with no test selected too, none when the
/// test binary runs by itself.)
@Suite struct TemporaryLeftoverTests {
  static let writes = 8
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "EnvelopeKitLeftovers-\(UUID().uuidString)")

  init() throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(at: folder) }

  /// The writers of whole files.
  enum Writer: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case diskCache, stubDownload, defaultDownload
    var testDescription: String { rawValue }
  }

  @Test(arguments: Writer.allCases) func writingAFileLeavesNoTemporaryDirectory(_ writer: Writer)
    async throws
  {
    defer { remove() }
    let cache = try DiskCache(directory: folder.appendingPathComponent("cache"))
    let url = try #require(URL(string: "http://127.0.0.1:9/file"))
    let created = try await leftovers(writes: Self.writes) { index in
      let file = folder.appendingPathComponent("file-\(index)")
      switch writer {
      case .diskCache:
        let response = Response(
          statusCode: 200, headers: [:], data: Data("entry \(index)".utf8),
          request: URLRequest(url: url))
        try await cache.store(response, forKey: String(repeating: "a", count: 63) + "\(index)")
      case .stubDownload:
        for try await _ in Provider<StubbedFile>(stub: .immediate).download(StubbedFile(), to: file)
        {}
        #expect(try Data(contentsOf: file) == Data("stubbed".utf8))
      case .defaultDownload:
        _ = try await SendOnlyTransport().download(URLRequest(url: url), to: file) { _, _ in }
        #expect(try Data(contentsOf: file) == Data("downloaded".utf8))
      }
    }
    #expect(created < Self.writes, "\(created) TemporaryDirectory.* left by \(Self.writes) writes")
  }
}
