import Foundation
import Testing

@testable import EnvelopeKit

/// The fast float paths (Clinger, Eisel-Lemire) against `Double(String)` (correctly rounded):
/// every lexeme must give the same bits, or the same refusal.
@Suite struct DoubleParsingTests {
  func parsed(_ text: String) -> Double? {
    var text = text
    return text.withUTF8 { try? NumberParsing.double($0, allowsUnderflow: true).get() }
  }

  func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let expected = Double(text)
    let actual = parsed(text)
    #expect(
      actual?.bitPattern == expected?.bitPattern || (expected?.isInfinite == true && actual == nil),
      "\(text): \(String(describing: actual)) vs Double(text) \(String(describing: expected))",
      sourceLocation: sourceLocation)
  }

  @Test func edgeCasesMatchDoubleFromText() {
    for text in [
      "0", "-0", "0.0", "-0.0", "0e500", "-0e-500", "1", "-1", "1e22", "1e23", "9007199254740993",
      "9007199254740992", "18446744073709551615", "1.7976931348623157e308",
      "1.7976931348623158e308", "2.2250738585072014e-308", "2.2250738585072011e-308",
      "4.9406564584124654e-324", "1e-324", "5e-324", "1e308", "1e309", "0.1", "0.2", "0.3",
      "-65.613616999999977", "44.1234567890123456", "123456789012345678e-20",
      "7.3177701707893310e+15",
      "2.4703282292062327e-324", "2.4703282292062328e-324", "9.999999999999999e22",
      "1.00000000000000011102230246251565404236316680908203125", "0.000000000000000000001234",
      "8.98846567431158e307", "4.35679508e-09", "1448997445600000000000000000000",
    ] {
      expectSame(text)
    }
  }

  @Test func randomLexemesMatchDoubleFromText() {
    var random = SeededGenerator(state: 0xE17E_10FE)
    for round in 0..<200_000 {
      let digits = Int.random(in: 1...19, using: &random)
      var mantissa = String(UInt64.random(in: 1...UInt64.max, using: &random))
      mantissa = String(mantissa.prefix(digits))
      let text: String
      switch round % 4 {
      case 0:
        // Coordinates: an integer part and a long fraction, like canada.json.
        let split = Int.random(in: 0...mantissa.count, using: &random)
        let integer = split == 0 ? "0" : String(mantissa.prefix(split))
        let fraction = String(mantissa.dropFirst(split))
        text = fraction.isEmpty ? integer : integer + "." + fraction
      case 1:
        text = mantissa + "e" + String(Int.random(in: -340...310, using: &random))
      case 2:
        text = "0." + mantissa + "e-" + String(Int.random(in: 0...330, using: &random))
      default:
        text = "-" + mantissa + "E+" + String(Int.random(in: 0...40, using: &random))
      }
      expectSame(text)
    }
  }
}
