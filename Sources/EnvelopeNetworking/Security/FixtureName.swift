import Foundation

/// A fixture name that would read a file outside the fixture folder (`../secrets.json`,
/// `/etc/passwd`): names are relative paths that stay below the folder.
public struct FixtureNameError: Error, Sendable, CustomStringConvertible {
  /// The name as given.
  public var name: String

  /// Creates the error.
  ///
  /// - Parameter name: the rejected name.
  public init(name: String) { self.name = name }

  /// `fixture name "../x.json" leaves the fixture folder`.
  public var description: String {
    "fixture name \"\(name)\" leaves the fixture folder (use a relative path without ..)"
  }
}

/// The one check that a fixture name stays inside its folder, used by stubs and contract tests.
package enum FixtureName {
  /// The file `name` names below `root`.
  ///
  /// - Parameters:
  ///   - name: a relative path such as `users/ada.json`.
  ///   - root: the fixture folder.
  /// - Returns: the file URL.
  /// - Throws: `FixtureNameError` for an absolute path, a `..` component, a NUL byte or an
  ///   empty name.
  package static func resolve(_ name: String, in root: URL) throws -> URL {
    let components = name.split(separator: "/", omittingEmptySubsequences: true)
    guard !name.hasPrefix("/"), !name.hasPrefix("~"), !name.contains("\0"),
      !name.contains("\\"), !components.isEmpty, !components.contains("..")
    else { throw FixtureNameError(name: name) }
    return root.appendingPathComponent(name)
  }
}
