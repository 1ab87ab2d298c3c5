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
  /// A folder that is missing or holds no fixture throws: Swift Testing reports a test whose
  /// argument list is empty as skipped ("No test cases found"), and a contract that checks
  /// nothing would pass. Swift Testing records the error against the test.
  ///
  /// ```swift
  /// @Test(arguments: try FixtureRoot.fixtures(in: "users"))
  /// func userFixturesDecode(fixture: String) {
  ///   FixtureContract.expectDecodes(User.self, fixture: fixture, envelope: .default)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - folder: a folder below the root, e.g. `users`.
  ///   - excluding: file names to leave out, e.g. `manifest.json`.
  ///   - root: the fixture root; found from `filePath` when nil (see `require(from:)`).
  ///   - filePath: the caller's `#filePath`.
  /// - Returns: e.g. `["users/ada.json", "users/bob.json"]`, never empty.
  /// - Throws: `FixtureFolderError` when no fixture root is found; `FixtureListError` when the
  ///   folder is missing or holds no fixture.
  public static func fixtures(
    in folder: String, excluding: Set<String> = [], root: URL? = nil,
    filePath: String = #filePath
  ) throws -> [String] {
    let root = try root ?? require(from: filePath)
    let base = root.appendingPathComponent(folder)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isFolder),
      isFolder.boolValue
    else { throw FixtureListError(folder: base, missing: true) }
    let paths = FileManager.default.subpaths(atPath: base.path) ?? []
    let fixtures = paths.filter { path in
      path.hasSuffix(".json") && !path.hasSuffix(".drift.json")
        && !excluding.contains((path as NSString).lastPathComponent)
    }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
    guard !fixtures.isEmpty else { throw FixtureListError(folder: base, missing: false) }
    return fixtures
  }
}

/// A fixture folder that is missing or holds no fixture, where a test expected some.
public struct FixtureListError: Error, Sendable, CustomStringConvertible {
  /// The folder looked in.
  public var folder: URL
  /// Whether the folder does not exist (else it holds no `.json` fixture).
  public var missing: Bool

  /// `no fixture folder …/users` or `the fixture folder …/users holds no .json fixture`.
  public var description: String {
    missing
      ? "no fixture folder \(folder.path): a contract over it would check nothing"
      : "the fixture folder \(folder.path) holds no .json fixture (drift baselines and excluded "
        + "names left out): a contract over it would check nothing"
  }
}
