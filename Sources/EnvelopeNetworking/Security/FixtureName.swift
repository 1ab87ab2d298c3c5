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

  // MARK: - Recording names

  /// The longest query kept readable in a recording's name.
  package static let readableQueryLimit = 40

  /// A recording's file name (without `.json`), valid on every file system: method and path
  /// segments joined by `_`, every byte of them other than letters, digits, `-` and `.` as
  /// `~XX`; then the query, readable (`page-1_per_page-20`) when `readableQuery` is set and it
  /// is short and made only of letters, digits, `-`, `.`, `_`, `=` and `&`, else hashed with
  /// the body (`_` and 8 hex digits). A name longer than 120 characters is cut to 100 and ends
  /// in `+` and 16 hex digits of the whole name. Nothing secret reaches a name: the query was
  /// redacted before (a redacted value is encoded, so it is hashed).
  package static func recording(
    method: String, path: String, query: String?, bodySHA256: String?, readableQuery: Bool
  ) -> String {
    let segments = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
    let slug =
      segments.isEmpty
      ? "root"
      : segments.split(separator: "/", omittingEmptySubsequences: false).map {
        escaped(String($0))
      }.joined(separator: "_")
    var name = escaped(method) + "_" + slug
    if readableQuery, let query, isReadable(query) {
      name += "_" + String(query.map { $0 == "=" ? "-" : $0 == "&" ? "_" : $0 })
      if let bodySHA256 { name += "_" + SHA256.hex(Data(bodySHA256.utf8)).prefix(8) }
    } else if query != nil || bodySHA256 != nil {
      let identity = (query ?? "") + "\n" + (bodySHA256 ?? "")
      name += "_" + SHA256.hex(Data(identity.utf8)).prefix(8)
    }
    guard name.utf8.count > 120 else { return name }
    return name.prefix(100) + "+" + SHA256.hex(Data(name.utf8)).prefix(16)
  }

  /// A query short enough and made of bytes every file system keeps as they are.
  private static func isReadable(_ query: String) -> Bool {
    query.utf8.count <= readableQueryLimit
      && query.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
          UInt8(ascii: "_"), UInt8(ascii: "="), UInt8(ascii: "&"):
          return true
        default:
          return false
        }
      }
  }

  /// Letters, digits, `-` and `.` as they are; every other UTF-8 byte as `~XX`.
  private static func escaped(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        result += byte < 16 ? "~0" + hex : "~" + hex
      }
    }
    return result
  }
}
