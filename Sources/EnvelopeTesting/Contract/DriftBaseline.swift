import EnvelopeKit
import EnvelopeNetworking
import Foundation

/// Which drift a contract check accepts.
///
/// An API whose sloppiness the app already handles (ids as strings, `null` lists) fails a strict
/// contract test for ever, and new drift is lost in the old. With `.baseline` the check decodes
/// leniently and compares the report with a reviewable file beside the fixture
/// (`users/18.json` → `users/18.drift.json`): a test fails only on drift that is not in it.
public enum AcceptedDrift: Sendable, Hashable {
  /// None: the fixture must decode strictly (the default).
  case none
  /// The drift recorded in `<fixture>.drift.json`. The file is written when missing and
  /// rewritten in record mode `all`, by the record modes and environment variable of recordings
  /// (`RecordMode.fromEnvironment(default:)`); in `never` (the default on CI) a missing baseline
  /// fails, and in `failed` it is written and the test fails.
  case baseline
}

/// One kind of drift a fixture has: where (array indices as `[*]`), what the decoder did, the
/// type asked for and the JSON kind found. A baseline lists these.
public struct DriftEntry: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The path with array indices normalised: `data.list[*].id`.
  public var path: String
  /// `coerced`, `defaulted`, `dropped` or `nulled`.
  public var kind: String
  /// The Swift type asked for, e.g. `Int`.
  public var expected: String
  /// The JSON kind found: `string`, `number`, `bool`, `null`, `object`, `array` or `missing`.
  public var found: String

  /// Creates an entry.
  ///
  /// - Parameters:
  ///   - path: the normalised path.
  ///   - kind: what the decoder did.
  ///   - expected: the Swift type.
  ///   - found: the JSON kind.
  public init(path: String, kind: String, expected: String, found: String) {
    self.path = path
    self.kind = kind
    self.expected = expected
    self.found = found
  }

  /// The entry a report entry is accepted as: indices become `[*]`, the snippet is dropped.
  ///
  /// - Parameter entry: a lenient report's entry.
  public init(_ entry: DecodingReport.Entry) {
    self.init(
      path: Self.normalised(entry.path), kind: "\(entry.kind)", expected: entry.expected,
      found: entry.found.split(separator: " ", maxSplits: 1).first.map(String.init) ?? "")
  }

  /// `data.list[*].id: coerced Int from string`.
  public var description: String {
    "\(path.isEmpty ? "<root>" : path): \(kind) \(expected) from \(found)"
  }

  /// Ordered by path, then kind, type and what was found.
  public static func < (lhs: DriftEntry, rhs: DriftEntry) -> Bool {
    (lhs.path, lhs.kind, lhs.expected, lhs.found) < (rhs.path, rhs.kind, rhs.expected, rhs.found)
  }

  /// `list[12]` → `list[*]`.
  static func normalised(_ path: String) -> String {
    var result = ""
    var rest = Substring(path)
    while let open = rest.firstIndex(of: "[") {
      result += rest[...open]
      let after = rest[rest.index(after: open)...]
      if let close = after.firstIndex(of: "]"), !after[..<close].isEmpty,
        after[..<close].allSatisfy(\.isASCII), after[..<close].allSatisfy(\.isNumber)
      {
        result += "*]"
        rest = after[after.index(after: close)...]
      } else {
        rest = after
      }
    }
    return result + rest
  }
}

/// The baseline file of one fixture: read, compared, written.
struct DriftBaseline {
  /// `users/18.drift.json` beside `users/18.json`.
  let file: URL
  /// The fixture's name below the root, written into the file for the reader.
  let fixture: String

  init(fixture: String, file fixtureFile: URL) {
    self.fixture = fixture
    let base = fixtureFile.deletingPathExtension()
    file = base.appendingPathExtension("drift.json")
  }

  /// The accepted entries, or nil when there is no file.
  func read() throws -> Set<DriftEntry>? {
    guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
    let malformed = ContractFailure(
      message:
        "\(file.path): not a drift baseline ({\"accepted\": [{path, kind, expected, found}]})"
    )
    guard let json = try? JSON(data: data), let entries = json["accepted"]?.arrayValue else {
      throw malformed
    }
    return Set(
      try entries.map { entry in
        guard let path = entry["path"]?.stringValue, let kind = entry["kind"]?.stringValue,
          let expected = entry["expected"]?.stringValue, let found = entry["found"]?.stringValue
        else { throw malformed }
        return DriftEntry(path: path, kind: kind, expected: expected, found: found)
      })
  }

  /// Writes `entries`, sorted, pretty-printed with sorted keys.
  func write(_ entries: Set<DriftEntry>) throws {
    var list: [JSON] = []
    for entry in entries.sorted() {
      var object = JSONObject()
      object.append("path", .string(entry.path))
      object.append("kind", .string(entry.kind))
      object.append("expected", .string(entry.expected))
      object.append("found", .string(entry.found))
      list.append(.object(object))
    }
    var root = JSONObject()
    root.append("fixture", .string(fixture))
    root.append("accepted", .array(list))
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data((JSON.object(root).prettyText() + "\n").utf8).write(to: file, options: .atomic)
  }
}

/// What a baseline check found besides failing: accepted drift no longer seen, and a baseline
/// written.
struct DriftOutcome<T> {
  var value: T

  /// The value, the notes written to standard error first (what a passing check says).
  func valueNoting(_ fixture: String) -> T {
    for note in notes {
      FileHandle.standardError.write(Data("EnvelopeKit: \(fixture): \(note)\n".utf8))
    }
    return value
  }
  /// Accepted entries the fixture no longer has: the baseline can shrink.
  var fixed: [DriftEntry] = []
  /// The baseline file written by this check, if any.
  var written: URL?

  /// The notes to show beside a passing check.
  var notes: [String] {
    var notes: [String] = []
    if !fixed.isEmpty {
      notes.append(
        "accepted drift no longer seen (remove it from the baseline, or re-record with "
          + "ENVELOPEKIT_RECORD=all):\n" + fixed.map { "  \($0)" }.joined(separator: "\n"))
    }
    if let written { notes.append("wrote drift baseline \(written.path)") }
    return notes
  }
}
