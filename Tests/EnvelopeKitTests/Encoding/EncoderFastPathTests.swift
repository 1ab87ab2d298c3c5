import Foundation
import Testing

@testable import EnvelopeKit

/// Keys given as a list, encoded in that order (a key listed twice is encoded twice).
private struct Listed: Encodable {
  let keys: [String]

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: AnyCodingKey.self)
    for (index, key) in keys.enumerated() {
      try container.encode(index + 1, forKey: AnyCodingKey(stringValue: key))
    }
  }
}

/// What the encoder's fast paths must not change: the writer arranges each object shape once
/// (signature: key count, lengths, first and last bytes) and integers are written digit pairs
/// at a time.
@Suite struct EncoderFastPathTests {
  /// Objects whose keys share the writer's shape signature but not their keys, in one encode:
  /// each is arranged by its own keys.
  @Test(arguments: [
    (
      [["ayb", "axb"], ["ayb", "azb"], ["ayb", "axb"], ["ayb", "azb"]],
      true,
      #"[{"axb":2,"ayb":1},{"ayb":1,"azb":2},{"axb":2,"ayb":1},{"ayb":1,"azb":2}]"#
    ),
    (
      [["axb", "b", "ayb"], ["axb", "b", "axb"], ["axb", "b", "ayb"], ["axb", "b", "axb"]], false,
      #"[{"axb":1,"b":2,"ayb":3},{"axb":3,"b":2},{"axb":1,"b":2,"ayb":3},{"axb":3,"b":2}]"#
    ),
    (
      [["axb", "b", "axb"], ["axb", "b", "ayb"], ["axb", "b", "axb"]], true,
      #"[{"axb":3,"b":2},{"axb":1,"ayb":3,"b":2},{"axb":3,"b":2}]"#
    ),
  ])
  func objectsThatLookAlikeAreEachArrangedByTheirOwnKeys(
    objects: [[String]], sorted: Bool, expected: String
  ) throws {
    var encoder = ModelEncoder()
    encoder.outputFormatting = sorted ? .sortedKeys : []
    #expect(try encoder.encodeString(objects.map(Listed.init)) == expected)
  }

  /// Every digit count, at both of its ends, signed and unsigned, as `description` writes it.
  @Test(arguments: [false, true])
  func integersOfEveryLengthAreWrittenAsTheirDescription(negative: Bool) throws {
    var signed: [Int64] = [0, Int64.max, Int64.min]
    var unsigned: [UInt64] = [0, UInt64.max]
    var power: UInt64 = 1
    for _ in 0..<20 {
      for value in [power &- 1, power, power &+ 1] {
        unsigned.append(value)
        if value <= UInt64(Int64.max) { signed.append(Int64(value) * (negative ? -1 : 1)) }
      }
      power = power.multipliedReportingOverflow(by: 10).partialValue
    }
    let encoder = ModelEncoder()
    #expect(
      try encoder.encodeString(signed) == "[" + signed.map { String($0) }.joined(separator: ",")
        + "]"
    )
    #expect(
      try encoder.encodeString(unsigned)
        == "[" + unsigned.map { String($0) }.joined(separator: ",") + "]")
    let objects = signed.map { ["n": $0] }
    #expect(
      try encoder.encodeString(objects)
        == "[" + signed.map { #"{"n":\#($0)}"# }.joined(separator: ",") + "]")
  }
}
