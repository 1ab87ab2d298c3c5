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

  /// Whether `../shared/data/<relative>` exists: tests that need it carry
  /// `.enabled(if: SharedData.has("..."))`, so the runner reports them skipped without it.
  static func has(_ relative: String) -> Bool {
    FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path)
  }

  /// The folder (a test that asks has checked `has(_:)` in its trait).
  static func folder(_ relative: String) throws -> URL {
    let url = root.appendingPathComponent(relative)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
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
