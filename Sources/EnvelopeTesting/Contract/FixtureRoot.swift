import EnvelopeNetworking
import Foundation

/// Finds the `Fixtures/` folder of the package that holds the calling test file.
///
/// The rule is the one a provider's stubs use (`Provider.fixtures`): the folder named by
/// `ENVELOPEKIT_FIXTURES`, else the nearest `Fixtures/` folder above the caller's source file,
/// whatever the working directory.
public enum FixtureRoot {
  /// The environment variable that overrides discovery.
  public static let environmentKey = FixtureFolder.environmentKey

  /// Walks up from `filePath` to the first folder that has a `Fixtures/` child.
  ///
  /// - Parameter filePath: the caller's `#filePath`.
  /// - Returns: the `Fixtures` folder (or `ENVELOPEKIT_FIXTURES` when set), or nil when none is
  ///   found.
  public static func find(from filePath: String = #filePath) -> URL? {
    try? require(from: filePath)
  }

  /// The fixture folder, or an error naming where it looked.
  ///
  /// - Parameter filePath: the caller's `#filePath`.
  /// - Returns: the `Fixtures` folder (or `ENVELOPEKIT_FIXTURES` when set).
  /// - Throws: `FixtureFolderError` when there is none.
  public static func require(from filePath: String = #filePath) throws -> URL {
    try FixtureFolder(explicit: nil, sourceFile: filePath).locate()
  }

  /// The `.json` fixtures below a folder of the fixture root, as paths relative to the root,
  /// sorted: the arguments of a parameterised test. Drift baselines (`.drift.json`) are left
  /// out.
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
      path.hasSuffix(".json") && !path.hasSuffix(".drift.json")
        && !excluding.contains((path as NSString).lastPathComponent)
    }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
  }
}
