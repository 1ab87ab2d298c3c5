/// What a lenient decode did besides plain decoding: every coercion and every fallback, with
/// the path where it happened.
///
/// ```swift
/// let result = try LenientDecoder().decodeWithReport(User.self, from: body)
/// print(result.report)
/// // path      kind       expected  found
/// // id        coerced    Int       string "18"
/// // tags[1]   dropped    String    null
/// ```
public struct DecodingReport: Sendable, Sequence, CustomStringConvertible {
  /// One coercion or fallback.
  public struct Entry: Sendable, Hashable, CustomStringConvertible {
    /// What the decoder did with a value.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
      /// The value had another JSON type and converted without loss.
      case coerced
      /// The value was missing, null or unusable; a non-optional took its fallback value.
      case defaulted
      /// An array element could not be used as the element type and was left out.
      case dropped
      /// The value was present but unusable; an Optional became nil.
      case nulled
      /// A `TaggedDecodable` value's tag named no variant and the type's own
      /// `unknown(tag:json:)` kept it (the entry's `found` says `tag "…"`).
      ///
      /// Not drift: strict policy decodes the value the same way, since the type itself
      /// accepts unknown tags. It is recorded in both policies, so that a new variant the
      /// server started sending shows in the report; `isDrift` is false for it.
      case unknownVariant

      /// The kind's name.
      public var description: String {
        switch self {
        case .coerced: return "coerced"
        case .defaulted: return "defaulted"
        case .dropped: return "dropped"
        case .nulled: return "nulled"
        case .unknownVariant: return "unknownVariant"
        }
      }

      /// Whether the entry is something strict policy would have rejected (every kind but
      /// `unknownVariant`, which the type itself accepts).
      public var isDrift: Bool { self != .unknownVariant }
    }

    /// Where, from the document root: `data.items[2].age`.
    public var path: String
    /// What the decoder did.
    public var kind: Kind
    /// The Swift type asked for, e.g. `Int`.
    public var expected: String
    /// The JSON kind and a short snippet, e.g. `string "18"`, or `missing`.
    public var found: String

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - path: the path from the root.
    ///   - kind: what the decoder did.
    ///   - expected: the Swift type asked for.
    ///   - found: the JSON kind and a snippet.
    public init(path: String, kind: Kind, expected: String, found: String) {
      self.path = path
      self.kind = kind
      self.expected = expected
      self.found = found
    }

    /// `data.id: coerced Int from string "18"`.
    public var description: String {
      "\(path.isEmpty ? "<root>" : path): \(kind) \(expected) from \(found)"
    }
  }

  /// The stored entries in decoding order: the first `LenientDecoder.maxReportEntries`.
  public internal(set) var entries: [Entry]
  /// How many entries were made past the cap and not stored.
  public internal(set) var omittedCount: Int

  /// Creates a report.
  ///
  /// - Parameters:
  ///   - entries: the entries in decoding order.
  ///   - omittedCount: how many more entries were made but not stored.
  public init(entries: [Entry] = [], omittedCount: Int = 0) {
    self.entries = entries
    self.omittedCount = omittedCount
  }

  /// Whether nothing was coerced or fell back (and no unknown variant was kept).
  public var isEmpty: Bool { entries.isEmpty && omittedCount == 0 }

  /// Whether the report holds drift: something strict policy would have rejected. The drift
  /// entries list exactly what strict would reject; an `unknownVariant` entry is a notice.
  /// Entries past the cap count as drift (their kinds are not kept).
  public var hasDrift: Bool { omittedCount > 0 || entries.contains { $0.kind.isDrift } }

  /// Every entry made, stored or not.
  public var totalCount: Int { entries.count + omittedCount }

  /// Iterates the entries.
  public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

  /// The entries as an aligned table, or `no coercions or fallbacks`; a last line says how
  /// many entries past the cap were not stored.
  public var description: String {
    guard !isEmpty else { return "no coercions or fallbacks" }
    let omitted = omittedCount > 0 ? "\n… and \(omittedCount) more entries not stored" : ""
    let header = ["path", "kind", "expected", "found"]
    let rows =
      [header]
      + entries.map { [$0.path.isEmpty ? "<root>" : $0.path, "\($0.kind)", $0.expected, $0.found] }
    var widths = [0, 0, 0, 0]
    for row in rows {
      for column in 0..<3 { widths[column] = Swift.max(widths[column], row[column].count) }
    }
    return rows.map { row in
      (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
        .joined(separator: "  ") + "  " + row[3]
    }.joined(separator: "\n") + omitted
  }
}

/// A decoded value with the report of how it was decoded.
public struct Decoded<T> {
  /// The value.
  public var value: T
  /// Every coercion and fallback made on the way.
  public var report: DecodingReport

  /// Creates a result.
  ///
  /// - Parameters:
  ///   - value: the value.
  ///   - report: the report.
  public init(value: T, report: DecodingReport) {
    self.value = value
    self.report = report
  }
}

extension Decoded: Sendable where T: Sendable {}
