import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

/// The oracle of `JSONDocument.string(_:)`, which copies a string into a `String` without
/// validating its UTF-8 again: for every string token (values and keys) of a scanned document,
/// the raw bytes are valid UTF-8 by Swift's own validation, the token's `isNonASCII` flag says
/// exactly whether a byte is 0x80 or above, and the `String` made holds valid UTF-8 equal to
/// what another reader makes of them (without escapes: the bytes themselves, as Swift validates
/// them; with escapes: the string `JSONSerialization` reads, where it reads one).
///
/// Used by `ScannerFuzzDifferentialTests` (seeded) and by the `scanner` fuzz target.
enum ScannedStringOracle {
  /// The first broken rule in `document`, or nil.
  static func violation(in document: JSONDocument) -> String? {
    var index = 0
    while index < document.tokens.count {
      defer { index += 1 }
      guard document.kind(index) == .string else { continue }
      let raw = document.withBytes(index) { Array($0) }
      guard let validated = String(validating: raw, as: UTF8.self) else {
        return "token \(index): the scanner accepted invalid UTF-8 \(raw)"
      }
      let flags = document.tokens[index].flags
      if flags.contains(.isNonASCII) != raw.contains(where: { $0 >= 0x80 }) {
        return "token \(index): isNonASCII is \(flags.contains(.isNonASCII)) for \(raw)"
      }
      let made = document.string(index)
      let madeBytes = Array(made.utf8)
      guard let revalidated = String(validating: madeBytes, as: UTF8.self) else {
        return "token \(index): string(_:) made invalid UTF-8 \(madeBytes) from \(raw)"
      }
      // A string flagged ASCII that is not counts a UTF-16 unit per byte.
      if made.utf16.count != revalidated.utf16.count
        || !made.unicodeScalars.elementsEqual(revalidated.unicodeScalars)
      {
        return "token \(index): string(_:) of \(raw) is flagged ASCII and is not"
      }
      if !flags.contains(.hasEscapes) {
        if madeBytes != raw || made != validated {
          return "token \(index): string(_:) made \(madeBytes), not the bytes \(raw)"
        }
      } else if revalidated != made {
        return "token \(index): string(_:) of escaped \(raw) made \(madeBytes)"
      } else if let foundation = try? JSONSerialization.jsonObject(
        with: Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]), options: .fragmentsAllowed)
        as? String, foundation != made
      {
        return "token \(index): string(_:) of escaped \(raw) made \(made), Foundation \(foundation)"
      }
    }
    return nil
  }
}
