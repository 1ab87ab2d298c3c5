import Foundation
import Testing

@testable import EnvelopeKit

@Suite struct JSONReaderTests {
  func parse(_ text: String, maxDepth: Int = 512) throws -> JSON {
    try JSON(data: Data(text.utf8), maxDepth: maxDepth)
  }

  @Test func deepNestingFailsFastWithoutRecursion() throws {
    let deep = String(repeating: "[", count: 100_000)
    let error = try #require(throws: JSONReaderError.self) { try parse(deep) }
    #expect(error.reason == .tooDeep(limit: 512))
    #expect(error.offset == 512)
    #expect(throws: JSONReaderError.self) { try parse("[[[1]]]", maxDepth: 2) }
    #expect(try parse("[[1]]", maxDepth: 2) == .array([.array([.number(JSONNumber(1))])]))
    // Deeper than the scanner's first stack allocation (64), and back out.
    let nested = String(repeating: "[", count: 300) + "7" + String(repeating: "]", count: 300)
    var json = try parse(nested + " ")
    for _ in 0..<300 { json = try #require(json.arrayValue?.first) }
    #expect(json == .number(JSONNumber(7)))
  }

  @Test(arguments: [
    (
      "{\n  \"a\": 1,\n  \"b\": }",
      "unexpected character '}', expected a value at line 3, column 8 (offset 19)"
    ),
    ("[1,]", "unexpected character ']', expected a value at line 1, column 4 (offset 3)"),
    ("[01]", "invalid number at line 1, column 2 (offset 1)"),
    ("\"a\u{01}\"", "unescaped control character 0x01 in string at line 1, column 3 (offset 2)"),
    ("[1] x", "unexpected content after the top-level value at line 1, column 5 (offset 4)"),
    ("{\"a\" 1}", "unexpected character '1', expected ':' at line 1, column 6 (offset 5)"),
    ("[NaN]", "unexpected character 'N', expected a value at line 1, column 2 (offset 1)"),
    ("\"\\x\"", "invalid escape sequence at line 1, column 2 (offset 1)"),
    ("\"\\ud800\"", "unpaired UTF-16 surrogate in \\u escape at line 1, column 2 (offset 1)"),
    ("[tru]", "invalid literal at line 1, column 2 (offset 1)"),
    ("", "unexpected end of input at line 1, column 1 (offset 0)"),
  ])
  func errorsNameThePosition(_ input: String, _ message: String) throws {
    let error = try #require(throws: JSONReaderError.self) { try parse(input) }
    #expect(error.description == message)
  }

  @Test func everyEscapeDecodes() throws {
    let json = try parse(#"["\"\\\/\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00"]"#)
    #expect(json[[0]]?.stringValue == "\"\\/\u{08}\u{0C}\n\r\tAé€😀")
    #expect(json.rawText == #"["\"\\/\b\f\n\r\tAé€😀"]"#)
  }

  @Test func numbersKeepTheirText() throws {
    let json = try parse(
      "[9223372036854775807,-9223372036854775808,18446744073709551615,-0,1e400,5e-324,12345678901234567890,0.1]"
    )
    let numbers = try #require(json.arrayValue).compactMap(\.numberValue)
    #expect(
      numbers.map(\.text) == [
        "9223372036854775807", "-9223372036854775808", "18446744073709551615", "-0", "1e400",
        "5e-324",
        "12345678901234567890", "0.1",
      ])
    #expect(numbers[0].int64Value == .max)
    #expect(numbers[1].int64Value == .min)
    #expect(numbers[2].uint64Value == .max && numbers[2].int64Value == nil)
    #expect(numbers[3].doubleValue?.sign == .minus && numbers[3].intValue == 0)
    #expect(numbers[4].doubleValue == nil)
    #expect(numbers[5].doubleValue == Double.leastNonzeroMagnitude)
    #expect(numbers[6].decimalValue == Decimal(string: "12345678901234567890"))
    #expect(numbers[7].doubleValue == Double("0.1") && numbers[7].intValue == nil)
    #expect(JSONNumber("3.0")?.integer(as: Int8.self) == 3)
    #expect(JSONNumber("300")?.integer(as: Int8.self) == nil)
    #expect(JSONNumber("1.5e1")?.intValue == 15)
    #expect(JSONNumber("1.25e1")?.intValue == nil)
    #expect(JSONNumber("01") == nil)
  }

  @Test func containersPastSixteenBitCountsCountEveryElement() throws {
    #expect(MemoryLayout<JSONToken>.stride == 16)
    let count = 70_000
    let array = "[" + (0..<count).map(String.init).joined(separator: ",") + "]"
    let object = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
    let decoded = try LenientDecoder(policy: .strict).decode([Int].self, from: Data(array.utf8))
    #expect(decoded.count == count && decoded.last == count - 1)
    let dictionary = try LenientDecoder(policy: .strict).decode(
      [String: Int].self, from: Data(object.utf8))
    #expect(dictionary.count == count && dictionary["k69999"] == 69_999)
    let document = try JSONDocument(data: Data(array.utf8), maxDepth: 8)
    #expect(document.count(0) == count)
    #expect(document.elementIndex(count - 1, inArray: 0) != nil)
    #expect(document.elementIndex(count, inArray: 0) == nil)
    #expect(try parse(object).objectValue?.count == count)
  }

  @Test func doublesEqualDoubleFromText() {
    for text in [
      "0.1", "1.7976931348623157e308", "2.2250738585072014e-308", "123456789012345678", "3.14159",
      "-1e-7", "9007199254740993",
    ] {
      #expect(JSONNumber(text)?.doubleValue == Double(text), "\(text)")
    }
  }

  @Test func pathsAddressValues() throws {
    let json = try parse(
      #"{"data":{"items":[{"name":"a"},{"name":"b"}],"a.b":1},"error":{"errMsg":"x"}}"#)
    #expect(json["data.items.1.name"]?.stringValue == "b")
    #expect(json[["data", "a.b"]]?.stringValue == "1")
    #expect(json[JSONPath("error>errMsg", separator: ">")]?.stringValue == "x")
    #expect(json["data.items.5"] == nil)
    #expect(json["data.missing"] == nil)
    #expect(JSONPath("data.items.0").components == [.key("data"), .key("items"), .index(0)])
    #expect(JSONPath("data.items.0").description == "data.items[0]")
    #expect(json["data.items"]?.rawText == #"[{"name":"a"},{"name":"b"}]"#)
  }

  @Test func duplicateKeysKeepTheFirstValueLikeFoundation() throws {
    #expect(try parse(#"{"a":1,"a":2}"#)["a"]?.stringValue == "1")
    struct A: Decodable { var a: Int }
    #expect(try LenientDecoder().decode(A.self, from: Data(#"{"a":1,"a":2}"#.utf8)).a == 1)
    #expect(try JSONDecoder().decode(A.self, from: Data(#"{"a":1,"a":2}"#.utf8)).a == 1)
  }
}

/// The decoder reads the caller's `Data` in place; whatever outlives the decode must not.
@Suite struct BorrowedInputTests {
  final class KeepsItsDecoder: Decodable {
    let decoder: any Decoder
    init(from decoder: any Decoder) throws { self.decoder = decoder }
  }

  struct Model: Decodable, Equatable {
    var name: String
    var numbers: [Int]
  }

  @Test func aDocumentThatOutlivesTheCallOwnsACopy() throws {
    let data = Data(#"{"name":"kept","numbers":[1,2,3]}"#.utf8)
    var escaped: JSONDocument?
    let borrowedDuringTheCall = try JSONDocument.scanning(data, maxDepth: 8) { document in
      escaped = document
      return !document.ownsBytes
    }
    #expect(borrowedDuringTheCall)
    let document = try #require(escaped)
    #expect(document.ownsBytes)
    let inData = data.withUnsafeBytes { $0.baseAddress }
    #expect(UnsafeRawPointer(document.bytes.baseAddress) != inData)
    #expect(try JSON(document: document, index: 0)["name"]?.stringValue == "kept")
    // A document nobody kept stays borrowed to the end, and is freed with the call.
    let unique = try JSONDocument.scanning(data, maxDepth: 8) { !$0.ownsBytes }
    #expect(unique)
  }

  @Test func aDecoderKeptByAModelStillReadsItsInputAfterTheDecode() throws {
    var data: Data? = Data(#"{"name":"kept","numbers":[1,2,3]}"#.utf8)
    let kept = try LenientDecoder().decode(KeepsItsDecoder.self, from: try #require(data))
    data = nil
    let churn = (0..<256).map { Data(repeating: UInt8($0 & 0xFF), count: 48) }
    #expect(churn.count == 256)
    #expect(try Model(from: kept.decoder) == Model(name: "kept", numbers: [1, 2, 3]))
  }
}

/// The reader's UTF-8 check against the standard library's, on random strings built mostly of
/// lead and continuation bytes (the ranges where overlong forms, surrogates and code points past
/// U+10FFFF hide), at every alignment and near the end of the input.
@Suite struct UTF8ValidationTests {
  static let pieces: [UInt8] = [
    0x41, 0x7E, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xE3,
    0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
  ]

  @Test func acceptsExactlyWhatTheStandardLibraryAccepts() throws {
    var generator = SeededGenerator(state: 0x5EED_0F_07F8)
    var accepted = 0
    for _ in 0..<20_000 {
      // Valid text of one- to four-byte scalars, then, in most cases, one byte replaced by a
      // piece from the edges of the ranges.
      var text: [UInt8] = []
      for _ in 0..<Int.random(in: 1...6, using: &generator) {
        let bounds: [UInt32] = [0x7F, 0x7FF, 0xFFFF, 0x10_FFFF]
        let bound = bounds[Int.random(in: 0..<4, using: &generator)]
        let value = UInt32.random(in: 0x20...bound, using: &generator)
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        if scalar != "\"" && scalar != "\\" { text += Array(String(scalar).utf8) }
      }
      if !text.isEmpty && Int.random(in: 0..<4, using: &generator) != 0 {
        let piece = Self.pieces.randomElement(using: &generator) ?? 0x41
        text[Int.random(in: 0..<text.count, using: &generator)] = piece
      }
      let valid = String(validating: text, as: UTF8.self) != nil
      let json = [UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")]
      let result = Result { try JSON(data: Data(json), maxDepth: 4) }
      #expect(((try? result.get()) != nil) == valid, "\(text.map { String($0, radix: 16) })")
      if valid {
        accepted += 1
        #expect(try result.get().stringValue == String(decoding: text, as: UTF8.self))
      }
    }
    // Both outcomes are exercised.
    #expect(accepted > 4_000 && accepted < 16_000)
  }
}

/// A thread's next scan reuses the tape buffer of its last freed document (see `SpareTape`);
/// a buffer is never in two live documents at once.
@Suite struct SpareTapeTests {
  static let text = #"{"name":"spare","numbers":[1,2,3],"nested":{"a":[true,false,null]}}"#

  /// Scans `text` on the current thread and returns the tape's address and token count.
  static func tapeAddress(_ text: String) throws -> (UnsafeRawPointer?, Int) {
    try JSONDocument.scanning(Data(text.utf8), maxDepth: 8) {
      (UnsafeRawPointer($0.tokens.baseAddress), $0.tokens.count)
    }
  }

  @Test func theNextScanOnAThreadReusesTheFreedTape() throws {
    let (first, count) = try Self.tapeAddress(Self.text)
    // A block of the tape's size held in between: malloc alone would have handed the freed
    // tape to it, and given the next scan another address.
    let inBetween = UnsafeMutablePointer<JSONToken>.allocate(capacity: 16)
    defer { inBetween.deallocate() }
    let (second, again) = try Self.tapeAddress(Self.text)
    #expect(first != nil && first == second)
    #expect(count == again && count == 15)
  }

  @Test func twoLiveDocumentsNeverShareATape() throws {
    let data = Data(Self.text.utf8)
    let outer = try JSONDocument.scanning(data, maxDepth: 8) { outer in
      try JSONDocument.scanning(data, maxDepth: 8) { inner in
        #expect(outer.tokens.baseAddress != inner.tokens.baseAddress)
        return outer
      }
    }
    // The escaped document kept its tape: a new scan must get another buffer.
    let (next, _) = try Self.tapeAddress(Self.text)
    #expect(next != UnsafeRawPointer(outer.tokens.baseAddress))
    #expect(try JSON(document: outer, index: 0)["nested"]?["a"]?[[1]] == .bool(false))
  }

  @Test func aTapeTooLargeToKeepIsFreedAndASmallerOneIsNotReplaced() throws {
    // Fills this thread's slot with a small tape first.
    let (small, _) = try Self.tapeAddress(Self.text)
    let large = "[" + String(repeating: "1,", count: SpareTape.largestKept * 6) + "1]"
    let (big, count) = try Self.tapeAddress(large)
    #expect(count == SpareTape.largestKept * 6 + 2)
    #expect(big != small)
    // The large tape went back to malloc; the small spare is still there.
    let taken = SpareTape.take(minimumCapacity: 1)
    #expect(UnsafeRawPointer(taken.base) == small)
    SpareTape.giveBack(taken.base, capacity: taken.capacity)
  }

  @Test func parallelDecodesEachGetTheirOwnTape() async throws {
    struct Model: Decodable, Equatable {
      var name: String
      var numbers: [Int]
    }
    let results = try await withThrowingTaskGroup(of: Model.self) { group in
      for index in 0..<64 {
        group.addTask {
          let json = #"{"name":"task \#(index)","numbers":[\#(index),\#(index * 2)]}"#
          return try LenientDecoder().decode(Model.self, from: Data(json.utf8))
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.count == 64)
    for model in results {
      let index = try #require(Int(model.name.dropFirst(5)))
      #expect(model.numbers == [index, index * 2])
    }
  }
}

/// Keyed lookups start where the last one ended; the first occurrence of a key must still win,
/// whatever order the keys are asked in. Checked against Foundation's `JSONDecoder`.
@Suite struct KeyLookupOrderTests {
  static let order: CodingUserInfoKey = {
    // `init(rawValue:)` is failable in signature only.
    guard let key = CodingUserInfoKey(rawValue: "order") else { preconditionFailure() }
    return key
  }()

  /// Reads the keys listed in `userInfo[order]`, in that order, as `Int?` each.
  struct Probe: Decodable, Equatable {
    var values: [Int?]

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      let order = decoder.userInfo[KeyLookupOrderTests.order] as? [String] ?? []
      values = try order.map {
        try container.decodeIfPresent(Int.self, forKey: AnyCodingKey(stringValue: $0))
      }
    }
  }

  func both(_ json: String, asking order: [String]) throws -> (ours: [Int?], foundation: [Int?]) {
    var lenient = LenientDecoder(policy: .strict)
    lenient.userInfo[Self.order] = order
    let foundation = JSONDecoder()
    foundation.userInfo[Self.order] = order
    return (
      try lenient.decode(Probe.self, from: Data(json.utf8)).values,
      try foundation.decode(Probe.self, from: Data(json.utf8)).values
    )
  }

  @Test func theFirstOccurrenceWinsInAnyOrder() throws {
    let cases: [(String, [String], [Int?])] = [
      (#"{"a":1,"b":2,"a":3}"#, ["b", "a"], [2, 1]),
      (#"{"a":1,"a":2}"#, ["a", "a"], [1, 1]),
      (#"{"x":1,"y":2,"x":3,"z":4}"#, ["x", "y", "z", "x"], [1, 2, 4, 1]),
      (#"{"x":1,"y":2,"x":3,"z":4}"#, ["y", "x", "z"], [2, 1, 4]),
      (#"{"ab":1,"ba":2,"ab":3}"#, ["ab", "ba", "ab"], [1, 2, 1]),
      (#"{"a":1,"b":2,"c":3}"#, ["a", "b", "c", "d"], [1, 2, 3, nil]),
    ]
    for (json, order, expected) in cases {
      let (ours, foundation) = try both(json, asking: order)
      #expect(ours == expected, "\(json) asking \(order)")
      #expect(foundation == expected, "Foundation: \(json) asking \(order)")
    }
  }

  @Test func randomObjectsAndOrdersAgreeWithFoundation() throws {
    var random = SeededGenerator(state: 0x0B1E_C7ED)
    // Keys chosen to collide in length, first and last byte, so the filter says "maybe".
    let names = ["a", "b", "ab", "ba", "aab", "abb", "id", "is", "name", "nave", ""]
    for _ in 0..<2_000 {
      let members = (0..<Int.random(in: 0...12, using: &random)).map { value in
        "\"\(names.randomElement(using: &random)!)\":\(value)"
      }
      let json = "{" + members.joined(separator: ",") + "}"
      let order = (0..<Int.random(in: 0...14, using: &random)).map { _ in
        names.randomElement(using: &random)!
      }
      let (ours, foundation) = try both(json, asking: order)
      #expect(ours == foundation, "\(json) asking \(order)")
    }
  }
}

@Suite struct EscapeTests {
  @Test func everyEscapeDecodesAsFoundationDecodesIt() throws {
    let texts = [
      #"\b\f\n\r\t\"\\\/"#, #"caf\u00e9"#, #"\ud83d\ude00 smile"#, #"nul\u0000l"#,
      #"http:\/\/example.com\/a"#, #"\u00e9\u4e2d\ud800\udc00"#, #"plain"#, #"end\\"#,
    ]
    for text in texts {
      let json = Data(#"[""#.utf8) + Data(text.utf8) + Data(#""]"#.utf8)
      let ours = try LenientDecoder(policy: .strict).decode([String].self, from: json)
      let foundation = try JSONDecoder().decode([String].self, from: json)
      #expect(ours == foundation, "\(text)")
      #expect(try JSON(data: json)["0"]?.stringValue == foundation.first)
    }
  }
}
