@testable import EnvelopeKit

/// The number conversions' oracle for the generated tests: `Double(String)`, correctly rounded,
/// compared to the bit with `NumberParsing.double` over the lexeme alone.
enum NumberOracle {
  /// `body` over a copy of `text` in an allocation of exactly its length (nothing after it).
  static func withExactBytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let utf8 = Array(text.utf8)
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: utf8.count)
    defer { buffer.deallocate() }
    _ = buffer.initialize(from: utf8)
    return body(UnsafeBufferPointer(buffer))
  }

  /// `text` converted by `NumberParsing.double` from an allocation of exactly its length.
  static func double(_ text: String) -> Double? {
    withExactBytes(text) { try? NumberParsing.double($0, allowsUnderflow: true).get() }
  }

  /// Nil when `text` converts to the bits of `Double(text)` (or is refused where that is
  /// infinite).
  static func doubleMismatch(_ text: String) -> String? {
    let expected = Double(text)
    let actual = double(text)
    if actual?.bitPattern == expected?.bitPattern { return nil }
    if expected?.isInfinite == true && actual == nil { return nil }
    return "\(text): \(String(describing: actual)) vs Double(text) \(String(describing: expected))"
  }
}
