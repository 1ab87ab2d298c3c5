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
