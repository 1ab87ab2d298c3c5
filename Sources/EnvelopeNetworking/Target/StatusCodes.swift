/// A set of HTTP statuses, such as the ones a target accepts (``TargetType/validStatusCodes``):
/// a range, codes with gaps (Moya's `.customCodes`), or both.
///
/// ```swift
/// var validStatusCodes: StatusCodes { 200...299 }              // a range, as before
/// var validStatusCodes: StatusCodes { [200, 204, 304] }        // codes with gaps
/// var validStatusCodes: StatusCodes { StatusCodes(200..<300).union([304]) }
/// ```
///
/// Kept as sorted, disjoint ranges, so two sets holding the same codes are equal and hash alike
/// however they were written. A single range (the default `200...299`, checked on every
/// response) is held inline: making and reading one allocates nothing.
public struct StatusCodes: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
  /// The lowest range; nil for an empty set.
  private var first: ClosedRange<Int>?
  /// The ranges above `first`, sorted, none touching or overlapping another; empty (no
  /// allocation) for a single range.
  private var rest: [ClosedRange<Int>] = []

  /// The codes of a range.
  ///
  /// - Parameter range: the codes, e.g. `200...299`.
  public init(_ range: ClosedRange<Int>) { first = range }

  /// The codes of a half-open range; none when it is empty.
  ///
  /// - Parameter range: the codes, e.g. `200..<300`.
  public init(_ range: Range<Int>) {
    if !range.isEmpty { first = range.lowerBound...(range.upperBound - 1) }
  }

  /// The codes of a sequence, in any order, repeats allowed.
  ///
  /// - Parameter codes: the codes, e.g. `[200, 204, 304]` or a `Set<Int>`.
  public init<S: Sequence>(_ codes: S) where S.Element == Int {
    self.init(ranges: codes.map { $0...$0 })
  }

  /// The codes of several ranges, which may overlap.
  ///
  /// - Parameter ranges: the ranges, e.g. `[200...299, 304...304]`.
  public init<S: Sequence>(ranges: S) where S.Element == ClosedRange<Int> {
    let merged = Self.normalized(Array(ranges))
    first = merged.first
    rest = Array(merged.dropFirst())
  }

  /// The codes of an array literal: `[200, 204, 304]`.
  ///
  /// - Parameter codes: the codes.
  public init(arrayLiteral codes: Int...) { self.init(codes) }

  /// Whether the set holds `code`.
  ///
  /// - Parameter code: an HTTP status.
  /// - Returns: true when `code` is in the set.
  public func contains(_ code: Int) -> Bool {
    guard let first else { return false }
    if code <= first.upperBound { return code >= first.lowerBound }
    // Few ranges in practice: a scan beats a search.
    for range in rest where code <= range.upperBound { return code >= range.lowerBound }
    return false
  }

  /// The codes of this set and of `other`.
  ///
  /// - Parameter other: more codes.
  /// - Returns: the union.
  public func union(_ other: StatusCodes) -> StatusCodes {
    StatusCodes(ranges: ranges + other.ranges)
  }

  /// Whether the set holds no code.
  public var isEmpty: Bool { first == nil }

  /// The ranges, lowest first.
  private var ranges: [ClosedRange<Int>] { first.map { [$0] + rest } ?? [] }

  /// The codes as ranges and single codes: `200...299, 304`.
  public var description: String {
    // Bounds compared, not counted: `0...Int.max` has more codes than an `Int` can count.
    ranges.map {
      $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)...\($0.upperBound)"
    }
    .joined(separator: ", ")
  }

  /// Sorted, merged where they overlap or touch.
  private static func normalized(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
    var merged: [ClosedRange<Int>] = []
    for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      // Touching: the next code after the last one (none after Int.max).
      if let last = merged.last,
        range.lowerBound <= last.upperBound
          || (last.upperBound < Int.max && range.lowerBound == last.upperBound + 1)
      {
        merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
      } else {
        merged.append(range)
      }
    }
    return merged
  }
}

/// The codes from `lower` through `upper`, where a ``StatusCodes`` is expected:
/// `var validStatusCodes: StatusCodes { 200...299 }`. Reversed bounds (`299...200`) give an
/// empty set, where a `ClosedRange` would stop the program.
///
/// Disfavoured: elsewhere `200...299` stays the standard library's `ClosedRange<Int>` (without
/// it, `let range = 1...5` in any file that imports this module would become a `StatusCodes`).
///
/// - Parameters:
///   - lower: the first code.
///   - upper: the last code.
/// - Returns: the codes between them, both included.
@_disfavoredOverload
public func ... (lower: Int, upper: Int) -> StatusCodes {
  lower <= upper ? StatusCodes(lower...upper) : []
}

/// The codes from `lower` up to, not including, `upper`, where a ``StatusCodes`` is expected:
/// `200..<300`. Reversed or equal bounds give an empty set.
///
/// Disfavoured as `...` is: elsewhere `200..<300` stays a `Range<Int>`.
///
/// - Parameters:
///   - lower: the first code.
///   - upper: the code after the last.
/// - Returns: the codes between them, `upper` excluded.
@_disfavoredOverload
public func ..< (lower: Int, upper: Int) -> StatusCodes {
  lower < upper ? StatusCodes(lower..<upper) : []
}
