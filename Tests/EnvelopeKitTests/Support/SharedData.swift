import Foundation

/// Locates `../shared/data` beside the repository, found from this file's path.
enum SharedData {
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // EnvelopeKitTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // repository
    .deletingLastPathComponent()
    .appendingPathComponent("shared/data")

  /// The folder, or nil (with a printed notice) when `../shared` is absent.
  static func folder(_ relative: String) -> URL? {
    let url = root.appendingPathComponent(relative)
    guard FileManager.default.fileExists(atPath: url.path) else {
      print("SKIPPED: \(url.path) is absent; shared test data not available")
      return nil
    }
    return url
  }

  /// All files of a folder, sorted by name.
  static func files(in folder: URL) throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
      .filter { $0.pathExtension == "json" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
  }
}
