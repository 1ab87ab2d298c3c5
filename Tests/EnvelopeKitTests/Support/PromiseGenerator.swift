import Foundation

// The generator behind the promise "never silently wrong": JSON for every shape the public API
// offers, mostly valid, often drifting in every way the lenient rules know, with numbers drawn
// from the whole JSON grammar. Shared by `PromiseInvariantTests` (seeded) and the libFuzzer
// target `Fuzz/PromiseFuzzTarget.swift` (driven by the fuzzer's bytes), so both check the same
// oracle over the same inputs.

/// Where the generator's choices come from: a seeded generator, or a fuzzer's bytes.
protocol EntropySource {
  /// A number in `0..<bound` (`bound` > 0).
  mutating func next(_ bound: Int) -> Int
}

/// Choices from a seeded SplitMix64: the same sequence on every platform.
struct SeededSource: EntropySource {
  var random: SeededGenerator

  init(seed: UInt64) { random = SeededGenerator(state: seed) }

  mutating func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
}

/// Choices read from a fuzzer's input, byte by byte; a seeded sequence once the bytes run out.
struct ByteSource: EntropySource {
  let bytes: [UInt8]
  var position = 0
  var rest: SeededGenerator

  init(_ bytes: [UInt8]) {
    self.bytes = bytes
    rest = SeededGenerator(state: UInt64(bytes.count))
  }

  mutating func next(_ bound: Int) -> Int {
    guard bound > 1 else { return 0 }
    if position + 1 < bytes.count {
      let value = Int(bytes[position]) << 8 | Int(bytes[position + 1])
      position += 2
      return value % bound
    }
    return Int(rest.next() % UInt64(bound))
  }
}

/// A Swift type the generator writes JSON for.
indirect enum Shape: Sendable {
  case int(IntKind)
  case double, float, decimal, string, bool, url, date, data
  /// A `CaseDefaultable` enum (`Tone`) or a plain one (`Flavor`).
  case tone, flavor
  case optional(Shape)
  case array(Shape)
  /// `[String: T]`, `[Int: T]` and `[Slot: T]` (a `CodingKeyRepresentable` enum).
  case dictionary(Shape), intDictionary(Shape), slotDictionary(Shape)
  case oneOrMany(Shape)
  case object([(String, Shape)])
  /// The recursive `Node` (`{"children": [Node]}`), for depth near the limit.
  case node

  enum IntKind: CaseIterable, Sendable {
    case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64

    var range: ClosedRange<Double> {
      switch self {
      case .int, .int64: return -9.3e18...9.3e18
      case .int8: return -128...127
      case .int16: return -32768...32767
      case .int32: return -2_147_483_648...2_147_483_647
      case .uint, .uint64: return 0...1.9e19
      case .uint8: return 0...255
      case .uint16: return 0...65535
      case .uint32: return 0...4_294_967_295
      }
    }
  }
}

/// Fixed literals the generator draws from.
enum PromiseValues {
  static let edgeNumbers = [
    "0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "1e22", "1e23", "1E2", "1e+2", "2.5e-3",
    "9007199254740993", "9007199254740992.0", "1.7976931348623157e308", "1.7976931348623159e308",
    "2.2250738585072011e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
    "3.4028235e38", "3.4028236e38", "1.4e-45", "7e-46", "1e-400", "1e400", "-1e400",
    "7538207106762121.49", "18446744073709551615", "18446744073709551616",
    "-9223372036854775808", "-9223372036854775809", "9223372036854775807", "255", "256", "-129",
    "127.0", "1.5", "100e-2", "0.000001e6",
  ]

  /// Values of the wrong kind for most shapes, and strings that hold numbers or words.
  static let foreignValues = [
    "null", #""18""#, #""x""#, "1.5", "true", "false", "0", "1", "[]", "{}", "-1", #""NaN""#,
    #""[1,2]""#, #""{\"id\":1}""#, "3.0", #"" 7 ""#, #""calm""#, #""gamma""#, "1e2", #""""#,
    #""yes""#, #""1e-400""#, #""18446744073709551616""#, "[1]", #"["a"]"#,
  ]

}

/// Writes JSON for shapes. `documentedDifference` is set when a value it wrote is one of the
/// documented differences from Foundation (see `PromiseOracle.documentedDifferences`).
struct PromiseGenerator<Source: EntropySource> {
  var source: Source
  /// Keys written in snake case (`user_id` for `userId`), for `.convertFromSnakeCase` models.
  var snakeCaseKeys = false
  /// How dates are written: the decoder's strategy decides what is valid.
  var dates = DateStyle.seconds
  /// Set when an integer slot got a literal Foundation reads differently on purpose.
  var documentedDifference = false
  /// Set when a value drifted other than by being stringified (then lenient may not read all of
  /// the input, and the input's depth says nothing about the depth lenient reaches).
  var driftedBeyondStrings = false

  enum DateStyle { case seconds, milliseconds, iso8601, deferred }

  init(_ source: Source) { self.source = source }

  mutating func chance(_ percent: Int) -> Bool { source.next(100) < percent }

  mutating func pick<T>(_ choices: [T]) -> T { choices[source.next(choices.count)] }

  // MARK: - Numbers across the JSON grammar

  /// 2^k as decimal digits (k up to a few hundred).
  static func powerOfTwo(_ k: Int) -> [UInt8] {
    var digits: [UInt8] = [1]  // little-endian decimal digits
    for _ in 0..<k {
      var carry: UInt8 = 0
      for i in digits.indices {
        let doubled = digits[i] * 2 + carry
        digits[i] = doubled % 10
        carry = doubled / 10
      }
      if carry > 0 { digits.append(carry) }
    }
    return digits
  }

  /// Adds `delta` (-1, 0 or 1) to little-endian decimal digits of a positive number.
  static func adding(_ delta: Int, to digits: [UInt8]) -> String {
    var digits = digits
    if delta == 1 {
      var i = 0
      while true {
        if i == digits.count {
          digits.append(1)
          break
        }
        if digits[i] == 9 {
          digits[i] = 0
          i += 1
        } else {
          digits[i] += 1
          break
        }
      }
    } else if delta == -1 {
      var i = 0
      while i < digits.count {
        if digits[i] == 0 {
          digits[i] = 9
          i += 1
        } else {
          digits[i] -= 1
          break
        }
      }
      while digits.count > 1, digits.last == 0 { digits.removeLast() }
    }
    return String(digits.reversed().map { Character(String($0)) })
  }

  /// A JSON number literal from anywhere in the grammar.
  mutating func numberLiteral() -> String {
    switch source.next(5) {
    case 0:
      return String(source.next(2001) - 1000)
    case 1:
      // A power of two from 2^53 to 2^128, or a neighbour, in several spellings.
      let digits = Self.powerOfTwo(53 + source.next(76))
      var text = Self.adding(source.next(3) - 1, to: digits)
      if chance(30) { text = "-" + text }
      switch source.next(4) {
      case 0: text += ".0"
      case 1: text += "e0"
      case 2: text += "0e-1"
      default: break
      }
      return text
    case 2:
      // A 17-40 digit mantissa, a fraction point anywhere, an exponent to ±400.
      let count = 17 + source.next(24)
      var digits = String(1 + source.next(9))
      for _ in 1..<count { digits += String(source.next(10)) }
      if chance(50) {
        let point = 1 + source.next(count - 1)
        let index = digits.index(digits.startIndex, offsetBy: point)
        digits.insert(".", at: index)
      }
      if chance(60) {
        digits += pick(["e", "E"]) + pick(["", "+", "-"]) + String(source.next(401))
      }
      return (chance(30) ? "-" : "") + digits
    case 3:
      return pick(PromiseValues.edgeNumbers)
    default:
      let whole = String(source.next(100_000))
      return chance(50) ? whole : whole + "." + String(source.next(1000))
    }
  }

  // MARK: - Values

  /// JSON for `shape`, drifting now and then.
  mutating func value(_ shape: Shape, depth: Int = 0) -> String {
    if chance(10) { return drift(shape, depth: depth) }
    return valid(shape, depth: depth)
  }

  /// A value of another kind, a stringified or wrapped form of a valid one, or a number.
  mutating func drift(_ shape: Shape, depth: Int) -> String {
    let kind = source.next(6)
    if kind != 2 { driftedBeyondStrings = true }
    switch kind {
    case 0, 1: return pick(PromiseValues.foreignValues)
    case 2:
      // Stringified: JSON held in a string, as sloppy APIs send nested objects.
      var quoted = ""
      for scalar in valid(shape, depth: depth).unicodeScalars {
        switch scalar {
        case "\"": quoted += "\\\""
        case "\\": quoted += "\\\\"
        default: quoted.unicodeScalars.append(scalar)
        }
      }
      return "\"" + quoted + "\""
    case 3: return "[" + valid(shape, depth: depth + 1) + "]"
    case 4: return "\"" + numberLiteral() + "\""
    default:
      let literal = numberLiteral()
      // The slot an Optional wraps reads the literal as that type (`Int??` as `Int`).
      var slot = shape
      while case .optional(let wrapped) = slot { slot = wrapped }
      switch slot {
      case .int: noteDifference(literal)
      case .float: noteFloatDifference(literal)
      default: break
      }
      return literal
    }
  }

  mutating func valid(_ shape: Shape, depth: Int) -> String {
    switch shape {
    case .int(let kind): return integer(kind)
    case .double, .decimal: return numberLiteral()
    case .float:
      let literal = numberLiteral()
      noteFloatDifference(literal)
      return literal
    case .string:
      return pick([
        #""a""#, #""""#, #""Ada \u00e9""#, #""18""#, #""line\nbreak""#, #""\ud83d\ude00""#,
        #""caf\u0065\u0301""#, #""tab\t""#,
      ])
    case .bool: return chance(50) ? "true" : "false"
    case .url:
      return pick([
        #""https://example.com/a?b=1""#, #""/relative/path""#, #""mailto:a@b.c""#, #""""#,
      ])
    case .date:
      switch dates {
      case .seconds, .deferred, .milliseconds:
        return chance(80) ? numberLiteral() : pick(["0", "1700000000"])
      case .iso8601:
        return pick([
          #""2024-05-01T12:00:00Z""#, #""2024-05-01T12:00:00+02:00""#, #""2024-05-01""#,
          #""yesterday""#,
        ])
      }
    case .data: return pick([#""AQID""#, #""""#, #""not base64!""#, #""SGVsbG8=""#])
    case .tone: return pick([#""calm""#, #""loud""#, #""unknown""#, #""shouting""#])
    case .flavor: return pick([#""sweet""#, #""sour""#, #""bitter""#])
    case .optional(let wrapped): return chance(25) ? "null" : value(wrapped, depth: depth)
    case .array(let element):
      let count = depth > 3 ? 0 : source.next(4)
      return "[" + (0..<count).map { _ in value(element, depth: depth + 1) }.joined(separator: ",")
        + "]"
    case .dictionary(let element):
      return object(keys: ["k0", "k1", "k0"], element, depth: depth)
    case .intDictionary(let element):
      return object(keys: ["1", "-2", "x", "3", "+4", "05"], element, depth: depth)
    case .slotDictionary(let element):
      return object(keys: ["am", "pm", "noon"], element, depth: depth)
    case .oneOrMany(let element):
      return chance(50) ? value(element, depth: depth) : valid(.array(element), depth: depth)
    case .object(let members):
      var parts: [String] = []
      for (key, member) in members where !chance(5) {
        parts.append(
          Self.quoted(snakeCaseKeys ? snakeCase(key) : key) + ":"
            + value(member, depth: depth + 1))
      }
      // A duplicate key now and then: the first wins, in both policies and in Foundation.
      if chance(3), let (key, member) = members.first {
        parts.append(
          Self.quoted(snakeCaseKeys ? snakeCase(key) : key) + ":"
            + value(member, depth: depth + 1))
      }
      return "{" + parts.joined(separator: ",") + "}"
    case .node:
      let count = depth > 6 ? 0 : source.next(3)
      let children = (0..<count).map { _ in value(.node, depth: depth + 1) }
      return #"{"children":["# + children.joined(separator: ",") + "]}"
    }
  }

  mutating func object(keys: [String], _ element: Shape, depth: Int) -> String {
    let count = depth > 3 ? 0 : source.next(3)
    let members = (0..<count).map { _ in
      Self.quoted(pick(keys)) + ":" + value(element, depth: depth + 1)
    }
    return "{" + members.joined(separator: ",") + "}"
  }

  /// An integer literal: mostly in range, sometimes at or past its edges, sometimes written
  /// with a fraction or an exponent.
  mutating func integer(_ kind: Shape.IntKind) -> String {
    let range = kind.range
    switch source.next(8) {
    case 0:
      let literal = numberLiteral()
      noteDifference(literal)
      return literal
    case 1: return pick(["3.0", "1e2", "-0", "0.0", "1E1", "25e-1", "100e-2"])
    case 2:
      // The edges and one past them.
      let edges: [String]
      switch kind {
      case .int8: edges = ["-128", "127", "-129", "128"]
      case .uint8: edges = ["0", "255", "256", "-1"]
      case .int16: edges = ["-32768", "32767", "32768"]
      case .uint16: edges = ["65535", "65536"]
      case .int32: edges = ["-2147483648", "2147483647", "2147483648"]
      case .uint32: edges = ["4294967295", "4294967296"]
      case .int, .int64:
        edges = ["-9223372036854775808", "9223372036854775807", "9223372036854775808"]
      case .uint, .uint64: edges = ["18446744073709551615", "18446744073709551616", "-1"]
      }
      return pick(edges)
    default:
      let low = max(range.lowerBound, -100_000)
      let high = min(range.upperBound, 100_000)
      return String(Int(low) + source.next(Int(high - low) + 1))
    }
  }

  /// Marks the literals Foundation reads differently on purpose when they land in an integer
  /// slot: a literal written with a fraction or exponent whose nearest `Double` is integral
  /// while the literal is not exactly that integer (Foundation reads integers through `Double`:
  /// `1e-400` gives 0, `7538207106762121.49` gives 7538207106762121, `9007199254740993.0`
  /// gives 9007199254740992; we throw, or are exact).
  mutating func noteDifference(_ literal: String) {
    let isPlainInteger = literal.allSatisfy { $0 == "-" || $0.isNumber }
    guard !isPlainInteger, let value = Double(literal), value == value.rounded() else { return }
    documentedDifference = true
  }

  /// Marks a literal whose `Float` is not the `Float` of its `Double`: we round once from the
  /// text (`Float(String)`); Foundation rounds through `Double` (twice).
  mutating func noteFloatDifference(_ literal: String) {
    guard let double = Double(literal) else { return }
    let once = Float(literal)
    let twice = abs(double) <= Double(Float.greatestFiniteMagnitude) ? Float(double) : nil
    if once != twice { documentedDifference = true }
  }

  static func quoted(_ key: String) -> String { "\"" + key + "\"" }

  /// `userId` → `user_id`.
  /// `key` in snake case, spelled as APIs do and as `.convertFromSnakeCase` reads (or, now and
  /// then, does not read): `user_id`, `USER_ID`, `User__Id`, `user_id_`, or `userId` as it is.
  mutating func snakeCase(_ key: String) -> String {
    let style = source.next(8)
    if style == 0 { return key }
    var result = ""
    for character in key {
      if character.isUppercase { result += style == 1 ? "__" : "_" }
      switch style {
      case 2: result += character.uppercased()
      case 3: result += chance(50) ? character.uppercased() : character.lowercased()
      default: result += character.lowercased()
      }
    }
    return style == 4 ? result + "_" : result
  }
}
