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

  /// What `NumberParsing.float` gave before it rounded from the `Double`: `Float(text)`, rounded
  /// once from the text, with its rule for out-of-range values (infinity does not fit, nor
  /// does zero from a nonzero mantissa unless underflow is allowed).
  static func expectedFloat(_ text: String, allowsUnderflow: Bool) -> Result<
    Float, NumberConversionFailure
  > {
    guard let value = Float(text) else { return .failure(.invalid) }
    guard value.isFinite else { return .failure(.outOfRange) }
    let mantissa = text.prefix { $0 != "e" && $0 != "E" }
    if value == 0, !allowsUnderflow, mantissa.contains(where: { ("1"..."9").contains($0) }) {
      return .failure(.outOfRange)
    }
    return .success(value)
  }

  /// Nil when `NumberParsing.float` gives what `expectedFloat` does, to the bit, with and without
  /// underflow allowed.
  static func floatMismatch(_ text: String) -> String? {
    for allowsUnderflow in [false, true] {
      let actual = withExactBytes(text) {
        NumberParsing.float($0, allowsUnderflow: allowsUnderflow)
      }
      let expected = expectedFloat(text, allowsUnderflow: allowsUnderflow)
      if actual.map(\.bitPattern) != expected.map(\.bitPattern) {
        return
          "\(text) (underflow allowed: \(allowsUnderflow)): \(actual) vs Float(text) \(expected)"
      }
    }
    return nil
  }
}
