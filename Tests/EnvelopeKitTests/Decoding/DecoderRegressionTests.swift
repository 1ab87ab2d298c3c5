import Foundation
import Testing

@testable import EnvelopeKit

// One test per defect of the decoder-core issue: wrong values, lenient gaps, input Foundation
// accepts, and input that must never crash.

private let lenient = LenientDecoder()
private let strict = LenientDecoder(policy: .strict)

private func data(_ json: String) -> Data { Data(json.utf8) }

private func rows(_ report: DecodingReport) -> [String] {
  report.entries.map { "\($0.path) \($0.kind) \($0.expected)" }
}

// MARK: - Models

/// Reads its count through a single-value container; its declared count is 99.
private struct Counter: Decodable, LenientDecodable, Equatable {
  var count = 99
  init() {}
  init(from decoder: any Decoder) throws {
    count = try decoder.singleValueContainer().decode(Int.self)
  }
}
private struct Inner: Decodable, Equatable { var count: Int }
private struct CounterThenInner: Decodable, Equatable {
  var counter: Counter
  var inner: Inner
}

private class Person: Decodable {
  var name: String
}
private final class Employee: Person {
  var role: String
  private enum CodingKeys: String, CodingKey { case role }
  required init(from decoder: any Decoder) throws {
    role = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .role)
    try super.init(from: decoder)
  }
}

private struct Directory: Decodable, Equatable {
  var userNames: [String: Int]
}

private struct Defaults: Decodable, LenientDecodable, Equatable {
  var nickname: String? = "declared"
  var joined = Date(timeIntervalSince1970: 86_400)
  var balance = Decimal(string: "12.5") ?? 0
  var avatar = Data([1, 2, 3])
  var site = URL(fileURLWithPath: "/declared")
}

private struct Special: Decodable {
  var site: URL
  var blob: Data
  var when: Date
}

private struct Kelvin: Decodable, Equatable {
  var kelvin: Int
  private enum CodingKeys: String, CodingKey { case kelvin = "K" }
}
private struct Accented: Decodable, Equatable { var café: Int }

/// Decodes nested arrays through `unkeyedContainer()`, so each level goes through `init(from:)`.
private struct Nest: Decodable {
  var children: [Nest]
  var depth: Int { 1 + (children.map(\.depth).max() ?? 0) }
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    var children: [Nest] = []
    while !container.isAtEnd { children.append(try container.decode(Nest.self)) }
    self.children = children
  }
}

/// Asks its unkeyed container for nested containers explicitly.
private struct Pairs: Decodable, Equatable {
  var keyed: [String]
  var unkeyed: [Int]
  private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    keyed = try container.nestedContainer(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    var inner = try container.nestedUnkeyedContainer()
    var values: [Int] = []
    while !inner.isAtEnd { values.append(try inner.decode(Int.self)) }
    unkeyed = values
  }
}

/// The first choice of `Choice`: reads `n` as an Int, then throws unless `kind` is "a".
private struct ChoiceA: Decodable {
  var n: Int
  struct NotA: Error {}
  private enum CodingKeys: String, CodingKey { case n, kind }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    n = try container.decode(Int.self, forKey: .n)
    guard try container.decode(String.self, forKey: .kind) == "a" else { throw NotA() }
  }
}
private struct ChoiceB: Decodable, Equatable { var n: String }

/// `ChoiceA` if it decodes, else `ChoiceB`: tried with `try?` through a single-value container.
private enum Choice: Decodable, Equatable {
  case a(Int), b(String)
  init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if let a = try? single.decode(ChoiceA.self) {
      self = .a(a.n)
    } else {
      self = .b(try single.decode(ChoiceB.self).n)
    }
  }
}

/// The same choice made through a keyed container.
private struct ChoiceAtKey: Decodable, Equatable {
  var choice: Choice
  private enum CodingKeys: String, CodingKey { case item }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if let a = try? container.decode(ChoiceA.self, forKey: .item) {
      choice = .a(a.n)
    } else {
      choice = .b(try container.decode(ChoiceB.self, forKey: .item).n)
    }
  }
}

// MARK: - Wrong values

@Suite struct DecoderWrongValueTests {
  @Test func lenientDecodableFallbacksDoNotLeakIntoTheNextSibling() throws {
    let result = try lenient.decodeWithReport(
      CounterThenInner.self, from: data(#"{"counter": 5, "inner": {}}"#))
    #expect(result.value.counter.count == 5)
    #expect(result.value.inner.count == 0)
    #expect(rows(result.report) == ["inner.count defaulted Int"])
  }

  /// A value the model catches (`try?`) and replaces leaves no entries: `ChoiceA` coerced `n`
  /// before it threw, and strict, which reads `ChoiceB` too, reports nothing.
  @Test func aValueThatThrowsLeavesNoReportEntries() throws {
    let body = #"{"n": "5", "kind": "b"}"#
    let single = try lenient.decodeWithReport(Choice.self, from: data(body))
    #expect(single.value == .b("5"))
    #expect(rows(single.report) == [])
    let keyed = try lenient.decodeWithReport(ChoiceAtKey.self, from: data(#"{"item": \#(body)}"#))
    #expect(keyed.value.choice == .b("5"))
    #expect(rows(keyed.report) == [])
    let list = try lenient.decodeWithReport([Choice].self, from: data("[\(body), \(body)]"))
    #expect(list.value == [.b("5"), .b("5")])
    #expect(rows(list.report) == [])
    #expect(try strict.decode([Choice].self, from: data("[\(body)]")) == [.b("5")])
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func snakeCaseLeavesDictionaryKeysAlone(_ policy: DecodingPolicy) throws {
    var decoder = LenientDecoder(policy: policy)
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let json = data(#"{"user_names": {"first_name": 1, "ada_lovelace": 2}}"#)
    let value = try decoder.decode(Directory.self, from: json)
    #expect(value.userNames == ["first_name": 1, "ada_lovelace": 2])
    let foundation = JSONDecoder()
    foundation.keyDecodingStrategy = .convertFromSnakeCase
    #expect(try foundation.decode(Directory.self, from: json) == value)
    // A top-level dictionary too.
    #expect(try decoder.decode([String: Int].self, from: data(#"{"a_b":1}"#)) == ["a_b": 1])
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func theDynamicTypeIsDecoded(_ policy: DecodingPolicy) throws {
    let type: Person.Type = Employee.self
    let value = try LenientDecoder(policy: policy).decode(
      type, from: data(#"{"name": "Ada", "role": "engineer"}"#))
    let employee = try #require(value as? Employee)
    #expect(employee.role == "engineer")
    #expect(employee.name == "Ada")
  }

  @Test func optionalScalarsAtAPathHoldingAnObjectAreNil() throws {
    let json = data(#"{"data": {}}"#)
    let number = try lenient.decodeWithReport(Int?.self, from: json, at: "data")
    #expect(number.value == nil)
    #expect(rows(number.report) == ["data nulled Int"])
    let text = try lenient.decodeWithReport(String?.self, from: json, at: "data")
    #expect(text.value == nil)
    #expect(rows(text.report) == ["data nulled String"])
    #expect(throws: DecodingError.self) { try strict.decode(Int?.self, from: json, at: "data") }
  }

  @Test func nullInAnOptionalIsNotDrift() throws {
    let elements = try lenient.decodeWithReport([Int?].self, from: data("[1, null, 3]"))
    #expect(elements.value == [1, nil, 3])
    #expect(elements.report.isEmpty)
    let root = try lenient.decodeWithReport(Int?.self, from: data("null"))
    #expect(root.value == nil)
    #expect(root.report.isEmpty)
    for json in [#"{"nickname": null}"#, "{}"] {
      let declared = try lenient.decodeWithReport(Defaults.self, from: data(json))
      #expect(declared.value.nickname == nil, "\(json)")
      #expect(!rows(declared.report).contains { $0.hasPrefix("nickname") }, "\(json)")
    }
  }

  @Test func underflowIsNotSilentlyZero() throws {
    for (json, type) in [(#"[1e-400]"#, "Double"), (#"[-2e-324]"#, "Double")] {
      #expect(throws: DecodingError.self) { try strict.decode([Double].self, from: data(json)) }
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode([Double].self, from: data(json))
      }
      let result = try lenient.decodeWithReport([Double].self, from: data(json))
      #expect(result.value.isEmpty)
      #expect(rows(result.report) == ["[0] dropped \(type)"])
    }
    #expect(throws: DecodingError.self) { try strict.decode(Float.self, from: data("1e-46")) }
    let float = try lenient.decodeWithReport(Float.self, from: data("1e-46"))
    #expect(float.value == 0)
    #expect(rows(float.report) == [" defaulted Float"])
    // The smallest subnormal and an exact zero are values, not underflow.
    #expect(try strict.decode(Double.self, from: data("5e-324")) == Double.leastNonzeroMagnitude)
    #expect(try strict.decode(Double.self, from: data("0e-999")) == 0)
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func keysMatchByCanonicalEquivalence(_ policy: DecodingPolicy) throws {
    let decoder = LenientDecoder(policy: policy)
    // The JSON key is the Kelvin sign U+212A; the Swift key is the Latin capital K.
    let kelvin = try decoder.decodeWithReport(Kelvin.self, from: data("{\"\u{212A}\": 1}"))
    #expect(kelvin.value.kelvin == 1)
    #expect(kelvin.report.isEmpty)
    // A decomposed é in the JSON, a precomposed é in Swift.
    let accented = try decoder.decodeWithReport(Accented.self, from: data("{\"cafe\u{301}\": 2}"))
    #expect(accented.value.café == 2)
    // Byte-equal keys still win in order: the first occurrence.
    #expect(
      try decoder.decode(Accented.self, from: data("{\"caf\\u00e9\": 3, \"café\": 4}")).café == 3)
  }
}

// MARK: - Lenient gaps

@Suite struct DecoderLenientGapTests {
  @Test(arguments: [
    #"{"site": null, "blob": null, "when": null}"#,
    #"{}"#,
    #"{"site": 5, "blob": [1], "when": {"a": 1}}"#,
    #"{"site": "", "blob": "not base64!", "when": "yesterday"}"#,
  ])
  func specialScalarsFallBackAndReport(_ json: String) throws {
    var decoder = lenient
    decoder.dateDecodingStrategy = .iso8601
    let result = try decoder.decodeWithReport(Special.self, from: data(json))
    #expect(result.value.blob == Data())
    #expect(result.value.when == Date(timeIntervalSince1970: 0))
    #expect(rows(result.report).contains("blob defaulted Data"))
    #expect(rows(result.report).contains("when defaulted Date"))
    #expect(rows(result.report).contains("site defaulted URL"))
    var strictDecoder = strict
    strictDecoder.dateDecodingStrategy = .iso8601
    #expect(throws: DecodingError.self) {
      try strictDecoder.decode(Special.self, from: data(json))
    }
  }

  @Test func declaredValuesOfDateDecimalAndDataAreHonoured() throws {
    let json = #"{"joined": "soon", "balance": [], "avatar": 7, "site": 1}"#
    let result = try lenient.decodeWithReport(Defaults.self, from: data(json))
    var expected = Defaults()
    expected.nickname = nil  // missing Optional: nil, as strict decodes it
    #expect(result.value == expected)
    #expect(
      rows(result.report) == [
        "joined defaulted Date", "balance defaulted Decimal", "avatar defaulted Data",
        "site defaulted URL",
      ])
  }

  @Test func secondsSince1970FromAStringIsReportedAsADate() throws {
    var decoder = lenient
    decoder.dateDecodingStrategy = .secondsSince1970
    let result = try decoder.decodeWithReport([Date].self, from: data(#"["60"]"#))
    #expect(result.value == [Date(timeIntervalSince1970: 60)])
    #expect(rows(result.report) == ["[0] coerced Date"])
  }

  @Test func nullDictionaryValuesAreDroppedNotInvented() throws {
    let result = try lenient.decodeWithReport(
      [String: Int].self, from: data(#"{"a": 1, "b": null, "c": "x", "d": "4"}"#))
    #expect(result.value == ["a": 1, "d": 4])
    #expect(rows(result.report) == ["b dropped Int", "c dropped Int", "d coerced Int"])
    #expect(throws: DecodingError.self) {
      try strict.decode([String: Int].self, from: data(#"{"b": null}"#))
    }
    // Optional values keep their nulls, as strict does.
    let optional = try lenient.decodeWithReport([String: Int?].self, from: data(#"{"b": null}"#))
    #expect(optional.value.count == 1)
    #expect(optional.value["b"] == .some(nil))
    #expect(optional.report.isEmpty)
  }

  @Test(arguments: ["NaN", "nan", "inf", "+Infinity", "-Infinity", "-inf"])
  func nonFiniteWordsCoerceLeniently(_ word: String) throws {
    let json = data("[\"\(word)\"]")
    let double = try lenient.decodeWithReport([Double].self, from: json)
    let float = try lenient.decodeWithReport([Float].self, from: json)
    let expected = Coercion.nonFiniteWords[word.lowercased()] ?? 0
    #expect(double.value.count == 1)
    #expect(double.value.first.map { $0.isNaN ? expected.isNaN : $0 == expected } == true)
    #expect(float.value.first.map { $0.isNaN ? expected.isNaN : Double($0) == expected } == true)
    #expect(rows(double.report) == ["[0] coerced Double"])
    #expect(throws: DecodingError.self) { try strict.decode([Double].self, from: json) }
  }

  @Test func explicitNestedContainersOverNullOrStringsFallBack() throws {
    let result = try lenient.decodeWithReport(Pairs.self, from: data(#"["x", null]"#))
    #expect(result.value == Pairs(keyed: [], unkeyed: []))
    #expect(
      rows(result.report) == ["[0] defaulted Dictionary<String, Any>", "[1] defaulted Array<Any>"])
    #expect(throws: DecodingError.self) {
      try strict.decode(Pairs.self, from: data(#"["x", null]"#))
    }
  }
}

extension Pairs {
  fileprivate init(keyed: [String], unkeyed: [Int]) {
    self.keyed = keyed
    self.unkeyed = unkeyed
  }
}

// MARK: - What Foundation accepts

@Suite struct DecoderFoundationInputTests {
  struct Box: Codable, Equatable { var v: Int }

  @Test(arguments: [
    String.Encoding.utf16BigEndian, .utf16LittleEndian, .utf16, .utf32BigEndian, .utf32LittleEndian,
    .utf32,
  ])
  func utf16AndUTF32InputDecodes(_ encoding: String.Encoding) throws {
    let input = try #require(#"{"v": 7, "s": "é😀"}"#.data(using: encoding))
    for decoder in [lenient, strict] {
      #expect(try decoder.decode(Box.self, from: input) == Box(v: 7))
    }
    // Foundation reads a UTF-32LE byte order mark as UTF-16LE and fails: a documented
    // difference (we accept more). Every other encoding decodes the same in both.
    if encoding != .utf32 {
      #expect(try JSONDecoder().decode(Box.self, from: input) == Box(v: 7))
    }
  }

  @Test func trailingCommasDecodeButJSONStaysStrict() throws {
    for decoder in [lenient, strict] {
      #expect(try decoder.decode([Int].self, from: data("[1,2,]")) == [1, 2])
      #expect(try decoder.decode(Box.self, from: data(#"{"v":1,}"#)) == Box(v: 1))
      #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: data("[,]")) }
      #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: data("[1,,]")) }
    }
    #expect(throws: JSONReaderError.self) { try JSON(data: data("[1,]")) }
  }

  @Test func int128AndUInt128Decode() throws {
    guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
    let big = "170141183460469231731687303715884105727"
    #expect(try strict.decode([Int128].self, from: data("[\(big)]")) == [Int128.max])
    #expect(try strict.decode([UInt128].self, from: data("[\(UInt128.max)]")) == [UInt128.max])
    #expect(throws: DecodingError.self) {
      try strict.decode([Int128].self, from: data("[\(big)0]"))
    }
    let coerced = try lenient.decodeWithReport([Int128].self, from: data("[\"\(big)\"]"))
    #expect(coerced.value == [Int128.max])
    #expect(rows(coerced.report) == ["[0] coerced Int128"])
  }

  @Test func decimalOutOfRangeIsDataCorrupted() throws {
    for json in ["[1e300]", "[-1e-300]"] {
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode([Decimal].self, from: data(json))
      }
      do {
        _ = try strict.decode([Decimal].self, from: data(json))
        Issue.record("\(json) decoded")
      } catch DecodingError.dataCorrupted {
      } catch {
        Issue.record("\(json): \(error)")
      }
    }
    #expect(
      try strict.decode([Decimal].self, from: data("[1e100]")).first == Decimal(string: "1e100"))
  }
}
