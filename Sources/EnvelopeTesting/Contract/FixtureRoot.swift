import Foundation

/// Finds the `Fixtures/` folder of the package that holds the calling test file.
public enum FixtureRoot {
  /// The environment variable that overrides discovery.
  public static let environmentKey = "ENVELOPEKIT_FIXTURES"

  /// Walks up from `filePath` to the first folder that has a `Fixtures/` child.
  ///
  /// - Parameter filePath: the caller's `#filePath`.
  /// - Returns: the `Fixtures` folder (or `ENVELOPEKIT_FIXTURES` when set), or nil when none is
  ///   found.
  public static func find(from filePath: String = #filePath) -> URL? {
    if let override = ProcessInfo.processInfo.environment[environmentKey], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while folder.path != "/" && !folder.path.isEmpty {
      let candidate = folder.appendingPathComponent("Fixtures")
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder),
        isFolder.boolValue
      {
        return candidate
      }
      folder.deleteLastPathComponent()
    }
    return nil
  }

  /// The `.json` fixtures below a folder of the fixture root, as paths relative to the root,
  /// sorted: the arguments of a parameterised test.
  ///
  /// ```swift
  /// @Test(arguments: FixtureRoot.fixtures(in: "users"))
  /// func userFixturesDecode(fixture: String) {
  ///   FixtureContract.expectDecodes(User.self, fixture: fixture, envelope: .default)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - folder: a folder below the root, e.g. `users`.
  ///   - excluding: file names to leave out, e.g. `manifest.json`.
  ///   - filePath: the caller's `#filePath`.
  /// - Returns: e.g. `["users/ada.json", "users/bob.json"]`; empty when the folder is missing.
  public static func fixtures(
    in folder: String, excluding: Set<String> = [], filePath: String = #filePath
  ) -> [String] {
    guard let root = find(from: filePath) else { return [] }
    let base = root.appendingPathComponent(folder)
    let paths = FileManager.default.subpaths(atPath: base.path) ?? []
    return paths.filter { path in
      path.hasSuffix(".json") && !excluding.contains((path as NSString).lastPathComponent)
    }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
  }
}
