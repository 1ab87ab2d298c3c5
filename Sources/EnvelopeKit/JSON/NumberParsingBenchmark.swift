import Foundation

/// The number lexemes of a payload, for timing the number conversions alone in the benchmark
/// executable (`EnvelopeBenchmarks --numbers`); not API.
package struct NumberParsingBenchmark {
  private let bytes: [UInt8]
  private let doubles: [Range<Int>]
  private let integers: [Range<Int>]

  /// Scans `data` and keeps where its numbers are: those with a fraction or exponent, and
  /// integers.
  package init(_ data: Data) throws {
    (doubles, integers) = try JSONDocument.scanning(data, maxDepth: 512) { document in
      var doubles: [Range<Int>] = []
      var integers: [Range<Int>] = []
      for token in document.tokens where token.kind == .number {
        let range = Int(token.start)..<Int(token.end)
        if token.flags.contains(.isInteger) {
          integers.append(range)
        } else {
          doubles.append(range)
        }
      }
      return (doubles, integers)
    }
    bytes = Array(data)
  }

  /// How many non-integer and integer lexemes there are.
  package var counts: (doubles: Int, integers: Int) { (doubles.count, integers.count) }

  /// The sum of every non-integer lexeme read as the decoder reads a `Double`.
  package func sumOfDoubles() -> Double {
    bytes.withUnsafeBufferPointer { all in
      doubles.reduce(0) { sum, range in
        sum + ((try? NumberParsing.double(UnsafeBufferPointer(rebasing: all[range])).get()) ?? 0)
      }
    }
  }

  /// The same sum through `Double(String)`, the oracle the fast paths must equal.
  package func sumOfDoublesFromText() -> Double {
    bytes.withUnsafeBufferPointer { all in
      doubles.reduce(0) { sum, range in
        sum
          + (Double(String(decoding: UnsafeBufferPointer(rebasing: all[range]), as: UTF8.self)) ?? 0)
      }
    }
  }

  /// The sum of every non-integer lexeme read as the decoder reads a `Float`.
  package func sumOfFloats() -> Float {
    bytes.withUnsafeBufferPointer { all in
      doubles.reduce(0) { sum, range in
        sum + ((try? NumberParsing.float(UnsafeBufferPointer(rebasing: all[range])).get()) ?? 0)
      }
    }
  }

  /// The same sum through `Float(String)`, the oracle the `Float` conversion must equal.
  package func sumOfFloatsFromText() -> Float {
    bytes.withUnsafeBufferPointer { all in
      doubles.reduce(0) { sum, range in
        sum
          + (Float(String(decoding: UnsafeBufferPointer(rebasing: all[range]), as: UTF8.self)) ?? 0)
      }
    }
  }

  /// The non-integer lexemes as one JSON array.
  package func nonIntegerArray() -> Data {
    var text: [UInt8] = [ASCII.openBracket]
    for (k, range) in doubles.enumerated() {
      if k > 0 { text.append(ASCII.comma) }
      text += bytes[range]
    }
    text.append(ASCII.closeBracket)
    return Data(text)
  }

  /// A JSON array of `count` short decimals, 1 to 4 fraction digits (`12.5`, `3.14`,
  /// `-0.0625`, `1999.99`): prices, ratings, coordinates with few digits. The same text for a
  /// given `seed`.
  package static func shortDecimals(count: Int, seed: UInt64) -> Data {
    var state = seed
    func next() -> UInt64 {
      // SplitMix64.
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    var text = "["
    for k in 0..<count {
      if k > 0 { text += "," }
      if next() % 8 == 0 { text += "-" }
      let magnitude = [10, 100, 1_000, 10_000][Int(next() % 4)]
      text += String(next() % UInt64(magnitude))
      let fraction = Int(next() % 4) + 1
      text +=
        "."
        + String(
          String(next() % 10_000 + 10_000).suffix(fraction))
    }
    return Data((text + "]").utf8)
  }

  /// The wrapping sum of every integer lexeme read as the decoder reads an `Int`.
  package func sumOfIntegers() -> Int {
    bytes.withUnsafeBufferPointer { all in
      integers.reduce(0) { sum, range in
        let value: Int? = try? NumberParsing.plainInteger(UnsafeBufferPointer(rebasing: all[range]))
          .get()
        return sum &+ (value ?? 0)
      }
    }
  }
}
