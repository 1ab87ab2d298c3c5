import Foundation
import Testing

@testable import EnvelopeKit

// What the decoding tests of swift-foundation's JSONEncoderTests.swift and swift-corelibs'
// TestJSONEncoder.swift check, written as our own cases: every case runs through Foundation's
// JSONDecoder and our strict policy with the same options, and the outcomes (the value, or the
// error case and coding path) must agree. Documented differences are listed at the end.

/// Decoder options both decoders get.
struct ParityOptions: Sendable {
  enum Dates: Sendable { case deferred, seconds, milliseconds, iso8601, formatted }
  enum Keys: Sendable { case plain, snake, upperFirst }
  var dates = Dates.deferred
  var keys = Keys.plain
  var base64 = true
  var nonConforming = false

  var ours: LenientDecoder {
    var decoder = LenientDecoder(policy: .strict)
    switch dates {
    case .deferred: decoder.dateDecodingStrategy = .deferredToDate
    case .seconds: decoder.dateDecodingStrategy = .secondsSince1970
    case .milliseconds: decoder.dateDecodingStrategy = .millisecondsSince1970
    case .iso8601: decoder.dateDecodingStrategy = .iso8601
    case .formatted: decoder.dateDecodingStrategy = .formatted(Self.formatter)
    }
    switch keys {
    case .plain: break
    case .snake: decoder.keyDecodingStrategy = .convertFromSnakeCase
    case .upperFirst: decoder.keyDecodingStrategy = .custom { Self.upperFirst($0) }
    }
    decoder.dataDecodingStrategy = base64 ? .base64 : .deferredToData
    if nonConforming {
      decoder.nonConformingFloatDecodingStrategy = .convertFromString(
        positiveInfinity: "INF", negativeInfinity: "-INF", nan: "NaN")
    }
    return decoder
  }

  var foundation: JSONDecoder {
    let decoder = JSONDecoder()
    switch dates {
    case .deferred: decoder.dateDecodingStrategy = .deferredToDate
    case .seconds: decoder.dateDecodingStrategy = .secondsSince1970
    case .milliseconds: decoder.dateDecodingStrategy = .millisecondsSince1970
    case .iso8601: decoder.dateDecodingStrategy = .iso8601
    case .formatted: decoder.dateDecodingStrategy = .formatted(Self.formatter)
    }
    switch keys {
    case .plain: break
    case .snake: decoder.keyDecodingStrategy = .convertFromSnakeCase
    case .upperFirst: decoder.keyDecodingStrategy = .custom { Self.upperFirst($0) }
    }
    decoder.dataDecodingStrategy = base64 ? .base64 : .deferredToData
    if nonConforming {
      decoder.nonConformingFloatDecodingStrategy = .convertFromString(
        positiveInfinity: "INF", negativeInfinity: "-INF", nan: "NaN")
    }
    return decoder
  }

  static var formatter: DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter
  }

  static func upperFirst(_ path: [any CodingKey]) -> any CodingKey {
    let name = path.last?.stringValue ?? ""
    return AnyCodingKey(stringValue: name.prefix(1).lowercased() + name.dropFirst())
  }
}

/// One case: a name, the input and how to decode it with both decoders.
struct ParityCase: Sendable, CustomTestStringConvertible {
  var name: String
  var run: @Sendable () -> (ours: String, foundation: String)
  var testDescription: String { name }

  static func decode<T: Decodable & Equatable & SendableMetatype>(
    _ name: String, _ type: T.Type, _ json: String, _ options: ParityOptions = ParityOptions()
  ) -> ParityCase {
    bytes(name, type, Data(json.utf8), options)
  }

  static func bytes<T: Decodable & Equatable & SendableMetatype>(
    _ name: String, _ type: T.Type, _ data: Data, _ options: ParityOptions = ParityOptions()
  ) -> ParityCase {
    ParityCase(name: name) {
      (
        StrictDifferentialTests.outcome { try options.ours.decode(type, from: data) },
        StrictDifferentialTests.outcome { try options.foundation.decode(type, from: data) }
      )
    }
  }
}

// MARK: - Models

private struct Empty: Codable, Equatable {}
private struct Address: Codable, Equatable {
  var street: String
  var city: String
  var zip: Int?
}
private struct Company: Codable, Equatable {
  var name: String
  var address: Address
  var employees: [Address]
}
private struct Flat: Codable, Equatable {
  var intValue: Int
  var stringValue: String
  var doubleValue: Double
}
private struct Dated: Codable, Equatable { var at: Date }
private struct Blob: Codable, Equatable { var bytes: Data }
private struct Link: Codable, Equatable { var url: URL }
private struct Money: Codable, Equatable { var amount: Decimal }
private struct Scalars: Codable, Equatable {
  var int8: Int8
  var uint16: UInt16
  var int64: Int64
  var uint64: UInt64
  var float: Float
}
private struct SnakeModel: Codable, Equatable {
  var camelCaseKey: String
  var aBCD: String?
  var leading: String?
  var values: [String: Int]
}

/// The keys the keyed container reports after the key strategy, sorted.
private struct KeyList: Decodable, Equatable {
  var keys: [String]
  init(from decoder: any Decoder) throws {
    keys = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue).sorted()
  }
}

/// A class hierarchy decoded through `superDecoder()`.
private class Animal: Decodable, Equatable {
  var legs: Int
  static func == (lhs: Animal, rhs: Animal) -> Bool { lhs.legs == rhs.legs }
}
private final class Dog: Animal {
  var name: String = ""
  private enum CodingKeys: String, CodingKey { case name }
  required init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    try super.init(from: container.superDecoder())
  }
}

@Suite struct FoundationParityTests {
  static let snake = ParityOptions(keys: .snake)

  static let cases: [ParityCase] = [
    // Top-level values and fragments.
    .decode("top-level int", Int.self, "42"),
    .decode("top-level string", String.self, #""hello""#),
    .decode("top-level double", Double.self, "-1.5e3"),
    .decode("top-level bool", Bool.self, "false"),
    .decode("top-level null into optional", Int?.self, "null"),
    .decode("top-level null into int", Int.self, "null"),
    .decode("empty struct", Empty.self, "{}"),
    .decode("empty struct from array", Empty.self, "[]"),
    .decode("empty input", Int.self, ""),
    .decode("only whitespace", Int.self, "  \n"),
    .decode("trailing garbage", [Int].self, "[1] x"),
    .decode("utf8 byte order mark", [Int].self, "\u{FEFF}[1]"),
    .decode("trailing comma in array", [Int].self, "[1,2,]"),
    .decode(
      "trailing comma in object", Flat.self, #"{"intValue":1,"stringValue":"a","doubleValue":2,}"#),
    .decode("two trailing commas", [Int].self, "[1,,]"),
    .bytes(
      "utf-16 big endian", [String].self,
      Data(#"["é😀"]"#.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })),
    // Nested structures and errors with their paths.
    .decode(
      "nested", Company.self,
      #"{"name":"A","address":{"street":"S","city":"C"},"employees":[{"street":"x","city":"y","zip":1}]}"#
    ),
    .decode(
      "type mismatch deep", Company.self,
      #"{"name":"A","address":{"street":"S","city":"C"},"employees":[{"street":1,"city":"y"}]}"#),
    .decode(
      "key not found deep", Company.self, #"{"name":"A","address":{"street":"S"},"employees":[]}"#),
    .decode("null element", [Address].self, #"[{"street":"s","city":"c"},null]"#),
    .decode("optional present wrong kind", Address.self, #"{"street":"s","city":"c","zip":"9"}"#),
    .decode("array where object", Company.self, #"[]"#),
    .decode("object where array", [Int].self, #"{}"#),
    .decode(
      "duplicate keys keep the first", Flat.self,
      #"{"intValue":1,"stringValue":"a","doubleValue":2,"intValue":5}"#),
    .decode("escaped key", Flat.self, #"{"int\u0056alue":1,"stringValue":"a","doubleValue":2}"#),
    .decode("superDecoder", Dog.self, #"{"name":"Rex","super":{"legs":4}}"#),
    .decode("superDecoder missing", Dog.self, #"{"name":"Rex"}"#),
    // Numbers.
    .decode("int from integral double", [Int].self, "[1.0, 1e2, -0.0]"),
    .decode("int from fraction", [Int].self, "[1.5]"),
    .decode(
      "int8 overflow", Scalars.self, #"{"int8":300,"uint16":1,"int64":1,"uint64":1,"float":1}"#),
    .decode(
      "uint16 negative", Scalars.self, #"{"int8":1,"uint16":-1,"int64":1,"uint64":1,"float":1}"#),
    .decode(
      "extremes", Scalars.self,
      #"{"int8":-128,"uint16":65535,"int64":-9223372036854775808,"uint64":18446744073709551615,"float":3.4028235e38}"#
    ),
    .decode("float overflow", [Float].self, "[3.5e38]"),
    .decode("double overflow", [Double].self, "[1.8e308]"),
    .decode("double underflow", [Double].self, "[1e-400]"),
    .decode("smallest subnormal", [Double].self, "[5e-324]"),
    .decode("int from string", [Int].self, #"["1"]"#),
    .decode("decimal exact", Money.self, #"{"amount":0.1}"#),
    .decode("decimal from string", Money.self, #"{"amount":"0.1"}"#),
    .decode("decimal out of range", Money.self, #"{"amount":1e300}"#),
    .decode(
      "non-conforming floats", [Double].self, #"["INF","-INF","NaN"]"#,
      ParityOptions(nonConforming: true)),
    .decode("non-conforming without strategy", [Double].self, #"["INF"]"#),
    // Strings.
    .decode("escapes", [String].self, #"["\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]"#),
    .decode("lone surrogate", [String].self, #"["\ud800"]"#),
    .bytes("invalid utf-8", [String].self, Data([0x5B, 0x22, 0xFF, 0x22, 0x5D])),
    .decode("control character", [String].self, "[\"a\u{01}\"]"),
    // Dates.
    .decode("date deferred", Dated.self, #"{"at":1000.5}"#),
    .decode("date seconds", Dated.self, #"{"at":1000}"#, ParityOptions(dates: .seconds)),
    .decode(
      "date milliseconds", Dated.self, #"{"at":1000000}"#, ParityOptions(dates: .milliseconds)),
    .decode(
      "date iso8601", Dated.self, #"{"at":"1970-01-01T00:16:40Z"}"#, ParityOptions(dates: .iso8601)),
    .decode(
      "date iso8601 invalid", Dated.self, #"{"at":"yesterday"}"#, ParityOptions(dates: .iso8601)),
    .decode("date iso8601 from number", Dated.self, #"{"at":5}"#, ParityOptions(dates: .iso8601)),
    .decode(
      "date formatted", Dated.self, #"{"at":"2024-05-01 12:30"}"#, ParityOptions(dates: .formatted)),
    .decode(
      "date formatted invalid", Dated.self, #"{"at":"May 1"}"#, ParityOptions(dates: .formatted)),
    .decode(
      "date seconds from string", Dated.self, #"{"at":"1000"}"#, ParityOptions(dates: .seconds)),
    // Data and URL.
    .decode("data base64", Blob.self, #"{"bytes":"AQID"}"#),
    .decode("data base64 invalid", Blob.self, #"{"bytes":"!!"}"#),
    .decode("data deferred", Blob.self, #"{"bytes":[1,2,3]}"#, ParityOptions(base64: false)),
    .decode("data deferred overflow", Blob.self, #"{"bytes":[256]}"#, ParityOptions(base64: false)),
    .decode("url", Link.self, #"{"url":"https://swift.org/a?b=c"}"#),
    .decode("url relative", Link.self, #"{"url":"/path"}"#),
    .decode("url from number", Link.self, #"{"url":5}"#),
    // Key strategies.
    .decode(
      "snake case", SnakeModel.self,
      #"{"camel_case_key":"a","a_b_c_d":"b","_leading":"c","values":{"snake_key":1}}"#, snake),
    .decode(
      "snake case keys as the container sees them", KeyList.self,
      #"{"snake_case":1,"_leading":1,"trailing_":1,"__both__":1,"ALL_CAPS":1,"a__b":1,"single":1,"":1,"_":1,"mIxEd_Case":1}"#,
      snake),
    .decode("snake case missing key", SnakeModel.self, #"{"camelCaseKey":"a","values":{}}"#, snake),
    .decode(
      "custom key strategy", Flat.self, #"{"IntValue":1,"StringValue":"a","DoubleValue":2}"#,
      ParityOptions(keys: .upperFirst)),
    .decode(
      "dictionary keys untouched by custom strategy", [String: Int].self, #"{"Key":1}"#,
      ParityOptions(keys: .upperFirst)),
    // Depth.
    .decode(
      "512 levels", [[[[Int]]]].self,
      String(repeating: "[", count: 512) + String(repeating: "]", count: 512)),
    .decode(
      "513 levels", [Int].self,
      String(repeating: "[", count: 513) + String(repeating: "]", count: 513)),
  ]

  @Test(arguments: cases)
  func strictAgreesWithFoundation(_ parity: ParityCase) {
    let (ours, foundation) = parity.run()
    #expect(ours == foundation)
  }

  /// The documented differences (EnvelopeKit.docc, "Lenient decoding"): where Foundation loses
  /// or rejects what the text says exactly, we decode it.
  @Test func documentedDifferences() throws {
    let strict = LenientDecoder(policy: .strict)
    // An integral number written with a fraction above 2^53: Foundation goes through Double.
    let big = Data("[9223372036854775807.0]".utf8)
    #expect(try strict.decode([Int64].self, from: big) == [Int64.max])
    #expect(throws: DecodingError.self) { try JSONDecoder().decode([Int64].self, from: big) }
    // UTF-32LE after its byte order mark (FF FE 00 00): we decode it in both policies, as
    // swift-foundation's own tests expect; the Linux toolchain's JSONDecoder throws.
    let utf32 = Data([0xFF, 0xFE, 0, 0]) + (try #require("[1]".data(using: .utf32LittleEndian)))
    #expect(try strict.decode([Int].self, from: utf32) == [1])
    #expect(try LenientDecoder().decode([Int].self, from: utf32) == [1])
    #if os(Linux)
      #expect(throws: (any Error).self) { try JSONDecoder().decode([Int].self, from: utf32) }
    #endif
    // A zero with an exponent: the literal is zero; the Linux toolchain's JSONDecoder throws
    // for these spellings (not for 0e-5 or 0E0).
    let zeros = Data("[0e5,-0.0e-5]".utf8)
    let decoded = try strict.decode([Double].self, from: zeros)
    #expect(decoded == [0, 0] && decoded[1].sign == .minus)
    #if os(Linux)
      #expect(throws: (any Error).self) { try JSONDecoder().decode([Double].self, from: zeros) }
    #endif
  }
}
