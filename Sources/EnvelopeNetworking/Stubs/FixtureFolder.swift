import Foundation

/// Where fixtures are found: one rule for a provider's stubs (`StubResponse.fixture`) and for
/// EnvelopeTesting's contract tests, recordings and cassettes.
///
/// 1. the folder given in code (`Provider(fixtures:)`, e.g. fixtures an app target ships as
///    bundle resources: `Bundle.main.url(forResource: "Fixtures", withExtension: nil)`);
/// 2. else the folder named by `ENVELOPEKIT_FIXTURES`;
/// 3. else the nearest `Fixtures/` folder above the source file of the caller (the file that
///    made the provider, or the test), whatever the working directory;
/// 4. else a `FixtureFolderError` naming where it looked.
package struct FixtureFolder: Sendable, Hashable {
  /// The environment variable that names the folder.
  package static let environmentKey = "ENVELOPEKIT_FIXTURES"

  /// The folder given in code, if any.
  package var explicit: URL?
  /// The caller's `#filePath`, searched from when no folder is given.
  package var sourceFile: String

  package init(explicit: URL?, sourceFile: String) {
    self.explicit = explicit
    self.sourceFile = sourceFile
  }

  /// The folder, by the rule above.
  ///
  /// - Throws: `FixtureFolderError` when there is none.
  package func locate() throws -> URL {
    if let explicit { return explicit }
    let environment = ProcessInfo.processInfo.environment[Self.environmentKey]
    if let environment, !environment.isEmpty { return URL(fileURLWithPath: environment) }
    var folder = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
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
    throw FixtureFolderError(sourceFile: sourceFile)
  }
}

/// No fixture folder was given and none was found.
public struct FixtureFolderError: Error, Sendable, CustomStringConvertible {
  /// The source file the search started from.
  public var sourceFile: String

  /// Names every place looked and how to give the folder.
  public var description: String {
    "no Fixtures/ folder: none was given in code (fixtures:), \(FixtureFolder.environmentKey) "
      + "is unset, and no folder above \(sourceFile) has a Fixtures/ child. Pass the folder "
      + "(for fixtures shipped as bundle resources, "
      + "Bundle.main.url(forResource: \"Fixtures\", withExtension: nil)) or set "
      + "\(FixtureFolder.environmentKey)."
  }
}
