import Foundation

/// A JSON number, kept as its exact source text.
///
/// Conversions are exact or fail: an out-of-range or non-integral value never wraps, traps or
/// rounds into an integer type.
///
/// ```swift
/// let id = JSONNumber("12345678901234567890")
/// id?.text           // "12345678901234567890"
/// id?.int64Value     // nil: out of range
/// id?.uint64Value    // 12345678901234567890
/// ```
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
  /// The exact lexeme from the JSON source, never rounded.
  public var text: String { storage }

  private let storage: String

  /// Creates a number from JSON number text; nil when `text` is not a JSON number.
  ///
  /// - Parameter text: a lexeme of the RFC 8259 number grammar, e.g. `-12.5e3`.
  public init?(_ text: String) {
    var copy = text
    let valid = copy.withUTF8 { NumberParsing.isJSONNumber($0) }
    guard valid else { return nil }
    storage = text
  }

  /// Creates a number from a lexeme the reader already validated.
  init(validated text: String) {
    storage = text
  }

  /// Creates a number from an integer.
  ///
  /// - Parameter value: any fixed-width integer.
  public init<T: BinaryInteger>(_ value: T) {
    storage = String(value)
  }

  /// The number's text.
  public var description: String { text }

  /// Converts to an integer type exactly.
  ///
  /// - Parameter type: the integer type, e.g. `Int8.self`.
  /// - Returns: the value, or nil when it is not integral or out of the type's range.
  public func integer<T: FixedWidthInteger>(as type: T.Type = T.self) -> T? {
    withBytes { try? NumberParsing.integer($0, isInteger: isIntegerLexeme($0), as: T.self).get() }
  }

  /// Whether the text is written as an integer (`-12`, not `1.0` or `1e3`).
  package var isIntegerLiteral: Bool { withBytes { isIntegerLexeme($0) } }

  /// The value as `Int`, if integral and in range.
  public var intValue: Int? { integer(as: Int.self) }
  /// The value as `Int64`, if integral and in range.
  public var int64Value: Int64? { integer(as: Int64.self) }
  /// The value as `UInt64`, if integral and in range.
  public var uint64Value: UInt64? { integer(as: UInt64.self) }

  /// The value as `Double`, equal to `Double(text)` (0 when too small to represent); nil when
  /// it overflows to infinity. (Decoding a `Double` is stricter: underflow throws, as in
  /// Foundation's `JSONDecoder`.)
  public var doubleValue: Double? {
    withBytes { try? NumberParsing.double($0, allowsUnderflow: true).get() }
  }

  /// The value as `Float`, rounded once from the text (0 when too small); nil when it overflows.
  public var floatValue: Float? {
    withBytes { try? NumberParsing.float($0, allowsUnderflow: true).get() }
  }

  /// The value as `Decimal`, parsed from the text (never through `Double`).
  public var decimalValue: Decimal? { withBytes { try? NumberParsing.decimal($0).get() } }

  /// The value as `Double` when it is one: nil past its range, and nil for a value too small
  /// to represent (`1e-400`), where `doubleValue` gives 0.
  var representableDoubleValue: Double? {
    withBytes { try? NumberParsing.double($0, allowsUnderflow: false).get() }
  }

  private func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    var copy = storage
    return copy.withUTF8(body)
  }
}

/// Whether a lexeme has neither fraction nor exponent.
func isIntegerLexeme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  !bytes.contains { $0 == ASCII.period || $0 == ASCII.lowerE || $0 == ASCII.upperE }
}
