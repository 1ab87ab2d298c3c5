import Foundation
import Testing

@testable import EnvelopeKit

/// `SnakeCaseKeys.matches`, the byte-level fast path of `.convertFromSnakeCase`, against the
/// rule itself (`convertFromSnakeCase`), and the cursor filter's promise (a JSON key that reads
/// as a model key has the model key's bit), over generated keys of every style.
@Suite struct KeyRuleTests {
  /// Bytes keys are made of: letters of both cases, underscores (often), digits, punctuation.
  static let alphabet = Array("aAbBzZyY____09-. $".utf8)

  static func randomKey(_ random: inout SeededGenerator) -> [UInt8] {
    (0..<Int(random.next() % 9)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
  }

  /// A spelling the conversion may read as `key`: its snake case in upper, lower or mixed case,
  /// with doubled inner underscores, or as it is.
  static func respelled(_ key: String, _ random: inout SeededGenerator) -> String {
    var out = ""
    for character in key {
      if character.isUppercase {
        out += random.next() % 4 == 0 ? "__" : "_"
      }
      out += random.next() % 3 == 0 ? character.uppercased() : character.lowercased()
    }
    return random.next() % 5 == 0 ? key : out
  }

  static func check(_ json: [UInt8], _ key: [UInt8]) -> String? {
    let rule = convertFromSnakeCase(String(decoding: json, as: UTF8.self))
    let expected = Array(rule.utf8) == key
    let fast = json.withUnsafeBufferPointer { j in
      key.withUnsafeBufferPointer { k in SnakeCaseKeys.matches(j, k) }
    }
    if let fast, fast != expected {
      return
        "matches(\(String(decoding: json, as: UTF8.self)), \(String(decoding: key, as: UTF8.self))) = \(fast), the rule says \(expected)"
    }
    if expected {
      let bits = json.withUnsafeBufferPointer { j in
        key.withUnsafeBufferPointer { k in (SnakeCaseKeys.bit(of: j), SnakeCaseKeys.bit(of: k)) }
      }
      if bits.0 != bits.1 {
        return "bit of \(String(decoding: json, as: UTF8.self)) differs from its model key's"
      }
    }
    return nil
  }

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func snakeCaseFastPathAgreesWithTheRule(seed: UInt64) {
    var random = SeededGenerator(state: seed)
    var failures: [String] = []
    var matched = 0
    for _ in 0..<20_000 {
      let json = Self.randomKey(&random)
      let converted = Array(convertFromSnakeCase(String(decoding: json, as: UTF8.self)).utf8)
      // The converted key itself, a near miss, and a random key.
      var nearMiss = converted
      if !nearMiss.isEmpty {
        let at = Int(random.next() % UInt64(nearMiss.count))
        nearMiss[at] ^= 0x20
      }
      for key in [converted, nearMiss, Self.randomKey(&random)] {
        if let failure = Self.check(json, key) { failures.append(failure) }
      }
      matched += 1
      // Model keys of every style, respelled.
      let model = ["userId", "id", "URLValue", "avatarUrl", "aB", "_private", "trailing_", "x2Y"][
        Int(random.next() % 8)]
      let spelled = Array(Self.respelled(model, &random).utf8)
      if let failure = Self.check(spelled, Array(model.utf8)) { failures.append(failure) }
    }
    let agrees = failures.isEmpty
    #expect(agrees, "\(failures.count) failures: \(failures.prefix(5))")
    #expect(matched == 20_000)
  }

  @Test(arguments: [
    ("user_id", "userId", true), ("USER_ID", "userId", true), ("user__id", "userId", true),
    ("_user_id_", "_userId_", true), ("userId", "userId", true), ("user_id", "user_id", false),
    ("uSeR_iD", "userId", true), ("a_b_c", "aBC", true), ("___", "___", true),
    ("user_id_", "userId", false), ("", "", true), ("", "a", false), ("a", "", false),
  ])
  func snakeCaseExamples(json: String, key: String, reads: Bool) {
    #expect(convertFromSnakeCase(json) == key ? reads : !reads)
    #expect(Self.check(Array(json.utf8), Array(key.utf8)) == nil)
  }

  /// The decoder with `.convertFromSnakeCase` against Foundation's on objects whose keys are
  /// respelled, duplicated, and written with escapes and non-ASCII bytes.
  @Test(arguments: [UInt64(7), 8])
  func snakeCaseDecodingMatchesFoundation(seed: UInt64) throws {
    struct Model: Codable, Equatable {
      var userId: Int?
      var avatarUrl: String?
      var aB: Int?
      var x: Int?
      var line1: Int?
      var _private: Int?
    }
    var random = SeededGenerator(state: seed)
    let names = ["userId", "avatarUrl", "aB", "x", "line1", "_private", "line_1", "zéta"]
    let ours = LenientDecoder(policy: .strict)
    var decoder = ours
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let foundation = JSONDecoder()
    foundation.keyDecodingStrategy = .convertFromSnakeCase
    var agreed = 0
    for _ in 0..<2_000 {
      var members: [String] = []
      for _ in 0..<Int(random.next() % 7) {
        var name = Self.respelled(names[Int(random.next() % UInt64(names.count))], &random)
        if random.next() % 10 == 0, let first = name.unicodeScalars.first {
          name =
            String(format: "\\u%04X", first.value)
            + name.unicodeScalars.dropFirst().map(String.init).joined()
        }
        let value =
          name.lowercased().contains("avatar") ? "\"v\(members.count)\"" : "\(members.count)"
        members.append("\"\(name)\":\(value)")
      }
      let json = Data(("{" + members.joined(separator: ",") + "}").utf8)
      let theirs = try? foundation.decode(Model.self, from: json)
      let mine = try? decoder.decode(Model.self, from: json)
      if theirs == mine {
        agreed += 1
      } else if agreed >= 0 {
        Issue.record(
          "Foundation \(String(describing: theirs)), ours \(String(describing: mine)): \(String(decoding: json, as: UTF8.self))"
        )
        agreed = -1_000_000  // one report is enough
      }
    }
    #expect(agreed == 2_000)
  }
}
