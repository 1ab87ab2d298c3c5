import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeCommand

/// The type `envelope models` gives a key's scalar samples, checked against the decoder it is
/// written for, over generated samples: the lenient policy reads every sample as that type with
/// coercions only; where the samples agree in kind (no comment) the strict policy reads them
/// all, and where they disagree it rejects one; `JSON` only when no scalar type reads them all.
@Suite struct ScalarTypeTests {
  static let pool: [JSON] = [
    .number(JSONNumber(18)), .number(JSONNumber(0)), .number(JSONNumber(1)),
    .number(JSONNumber("2.5") ?? JSONNumber(0)), .number(JSONNumber("1e3") ?? JSONNumber(0)),
    .number(JSONNumber("18446744073709551615") ?? JSONNumber(0)),
    .number(JSONNumber(1_763_626_500)), .number(JSONNumber(1_763_626_500_000)),
    .string("18"), .string(" 7"), .string("1.5"), .string("abc"), .string("true"), .string("yes"),
    .string(""), .string("1763626500"), .string("2026-11-20T08:15:00Z"),
    .string("https://a.example/x"), .string("ftp://a.example"), .bool(true), .bool(false),
  ]
  static let keys = ["count", "created_at", "name", "updateTime", "ts", "flag"]

  @Test func theChosenTypeIsWhatTheDecoderReadsForGeneratedSamples() throws {
    var random = SeededRandom(seed: 0x5CA1A2)
    for _ in 0..<1500 {
      let values = (0..<Int.random(in: 1...4, using: &random)).map { _ in
        Self.pool.randomElement(using: &random) ?? .null
      }
      let key = Self.keys.randomElement(using: &random) ?? "k"
      let choice = ScalarType.choose(for: values, key: key, direct: true)
      let kinds = Set(values.map(\.kindName))
      let context = "\(values.map(\.rawText)) at \(key) → \(choice.name)"
      switch choice.name {
      case "Int": try expectRead(Int.self, values, choice, kinds, context)
      case "UInt64": try expectRead(UInt64.self, values, choice, kinds, context)
      case "Double": try expectRead(Double.self, values, choice, kinds, context)
      case "Bool": try expectRead(Bool.self, values, choice, kinds, context)
      case "String": try expectRead(String.self, values, choice, kinds, context)
      case "URL": try expectRead(URL.self, values, choice, kinds, context)
      case "Date":
        let transform: ValueTransform<Date> =
          switch choice.transform {
          case ".iso8601": .iso8601
          case ".secondsSince1970": .secondsSince1970
          default: .millisecondsSince1970
          }
        for value in values {
          #expect(throws: Never.self, "\(context)") { try transform.read(value) }
        }
        #expect(choice.disagreement == nil, "\(context)")
      default:
        #expect(choice.name == "JSON", "\(context)")
        #expect(choice.disagreement != nil && kinds.count > 1, "\(context)")
        #expect(!reads(Int.self, values) && !reads(Double.self, values), "\(context)")
        #expect(!reads(Bool.self, values) && !reads(String.self, values), "\(context)")
      }
    }
  }

  /// Lenient reads each with coercions only; strict reads all exactly when the kinds agree.
  private func expectRead<T: Decodable>(
    _ type: T.Type, _ values: [JSON], _ choice: ScalarType, _ kinds: Set<String>,
    _ context: String
  ) throws {
    #expect(reads(T.self, values), "\(context)")
    let strict = LenientDecoder(policy: .strict)
    let strictReadsAll = values.allSatisfy { (try? strict.decode(T.self, from: $0)) != nil }
    #expect((choice.disagreement == nil) == (kinds.count == 1), "\(context)")
    #expect(strictReadsAll == (kinds.count == 1), "\(context)")
  }

  private func reads<T: Decodable>(_ type: T.Type, _ values: [JSON]) -> Bool {
    values.allSatisfy { value in
      guard let decoded = try? LenientDecoder().decodeWithReport(T.self, from: value) else {
        return false
      }
      return decoded.report.entries.allSatisfy { $0.kind == .coerced }
    }
  }
}

/// SplitMix64, seeded: the same samples on every run.
struct SeededRandom: RandomNumberGenerator {
  var seed: UInt64
  mutating func next() -> UInt64 {
    seed &+= 0x9E37_79B9_7F4A_7C15
    var z = seed
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
