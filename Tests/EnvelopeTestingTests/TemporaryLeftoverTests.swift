import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

@testable import EnvelopeTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Recordings, cassettes and drift baselines (written with `Data.write(to:options: .atomic)`)
/// leave nothing in the temporary directory: the `TemporaryDirectory.*` folders a `swift test`
/// run leaves in `/tmp` are SwiftPM's own.
@Suite struct TemporaryLeftoverTests {
  static let writes = 8

  enum Writer: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case recording, cassette, driftBaseline
    var testDescription: String { rawValue }
  }

  /// The `TemporaryDirectory.*` folders in the temporary directory now.
  static func temporaryDirectories() -> Set<String> {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
    return Set(names.filter { $0.hasPrefix("TemporaryDirectory.") })
  }

  /// Other processes (another `swift test`) may add a few folders meanwhile, so the test asks
  /// for fewer new folders than writes, which one folder per write cannot meet.
  @Test(arguments: Writer.allCases) func writingAFileLeavesNoTemporaryDirectory(_ writer: Writer)
    async throws
  {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let before = Self.temporaryDirectories()
    let recorder = try RecordingTransport(wrapping: FixedTransport(), folder: folder, mode: .all)
    let cassette = try CassetteTransport(
      wrapping: FixedTransport(), file: folder.appendingPathComponent("tape.json"), mode: .all)
    for index in 0..<Self.writes {
      let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:9/items/\(index)")))
      switch writer {
      case .recording:
        _ = try await recorder.send(request)
      case .cassette:
        _ = try await cassette.send(request)
      case .driftBaseline:
        let baseline = DriftBaseline(
          fixture: "items/\(index).json",
          file: folder.appendingPathComponent("items/\(index).json"))
        try baseline.write([
          DriftEntry(path: "data.id", kind: "coerced", expected: "Int", found: "string")
        ])
        #expect(try baseline.read()?.count == 1)
      }
    }
    let created = Self.temporaryDirectories().subtracting(before).count
    #expect(created < Self.writes, "\(created) TemporaryDirectory.* left by \(Self.writes) writes")
    let names = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
    #expect(!names.contains { $0.hasSuffix(".tmp") }, "\(names)")
  }
}
