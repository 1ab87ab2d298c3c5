import Foundation
import Testing

/// The manifest says what the code needs: `swift-tools-version` is the oldest toolchain that
/// builds the sources, and the README says the same version.
@Suite struct ManifestTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// The `major.minor` of `// swift-tools-version: X.Y` on the manifest's first line.
  static func toolsVersion() throws -> (Int, Int) {
    let manifest = try text("Package.swift")
    let firstLine = manifest.prefix { $0 != "\n" }
    let prefix = "// swift-tools-version: "
    #expect(firstLine.hasPrefix(prefix), "the manifest's first line is \(firstLine)")
    let parts = firstLine.dropFirst(prefix.count).split(separator: ".").compactMap { Int($0) }
    try #require(parts.count >= 2, "unreadable tools version: \(firstLine)")
    return (parts[0], parts[1])
  }

  /// Every Swift file under `Sources`.
  static func sources() throws -> [String] {
    let folder = root.appendingPathComponent("Sources")
    guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map {
      try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)
    }
  }

  @Test func toolsVersionCoversTheLanguageFeaturesTheSourcesUse() throws {
    let (major, minor) = try Self.toolsVersion()
    let sources = try Self.sources()
    #expect(!sources.isEmpty)
    // SE-0461 (`nonisolated(nonsending)`) first compiles with Swift 6.2.
    if sources.contains(where: { $0.contains("nonisolated(nonsending)") }) {
      #expect((major, minor) >= (6, 2), "the sources use SE-0461, which needs tools 6.2")
    }
  }

  @Test func readmeStatesTheManifestsToolsVersion() throws {
    let (major, minor) = try Self.toolsVersion()
    let readme = try Self.text("README.md")
    let namesToolchain = readme.contains("Swift \(major).\(minor) toolchain")
    let namesManifest = readme.contains("swift-tools-version: \(major).\(minor)")
    #expect(namesToolchain, "README.md must name the Swift \(major).\(minor) toolchain")
    #expect(namesManifest, "README.md must quote swift-tools-version: \(major).\(minor)")
  }
}
