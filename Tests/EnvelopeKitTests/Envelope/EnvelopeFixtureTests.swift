import Foundation
import Testing

@testable import EnvelopeKit

/// Runs every fixture in `Fixtures/envelopes/` through `decodeEnvelope` and compares with the
/// manifest. Adding a fixture file and a manifest line adds a test case.
@Suite struct EnvelopeFixtureTests {
  struct User: Codable, Sendable { var id: Int; var name: String; var email: String? }
  struct Stats: Codable, Sendable { var total: Int; var price: Double; var ids: [Int] }

  struct Entry: Decodable, Sendable, CustomTestStringConvertible {
    var fixture: String
    var format: String
    var type: String
    /// A path inside data (`decodeEnvelope(_:from:format:at:)`).
    var at: String?
    var value: AnyCodableJSON?
    var error: String?
    var report: [String]?
    var testDescription: String { fixture }
  }

  static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/envelopes")

  static let entries: [Entry] = {
    do {
      let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
      return try JSONDecoder().decode([Entry].self, from: data)
    } catch {
      return [Entry(fixture: "manifest.json unreadable: \(error)", format: "", type: "")]
    }
  }()

  static let formats: [String: EnvelopeFormat] = [
    "default": .default,
    "code200": EnvelopeFormat(code: "code", message: "message", data: "data", success: [200]),
    "retStatus": EnvelopeFormat(
      code: "retStatus", message: "retMsg", data: "retBody", success: ["000"]),
    "errorFlag": EnvelopeFormat(
      code: "error", message: "errMsg", data: "results", success: [false]),
    "nestedError": EnvelopeFormat(
      code: JSONPath("error>errorStatus", separator: ">"),
      message: JSONPath("error>errMsg", separator: ">"), data: "data", success: [false]),
    "errno": EnvelopeFormat(code: "errno", message: "errmsg", data: "data", success: [0]),
    "success": EnvelopeFormat(code: "success", message: "message", data: "data", success: [true]),
  ]

  /// Decodes as the manifest's type; returns the value re-encoded and the report paths.
  static func decode(_ entry: Entry, _ data: Data, _ format: EnvelopeFormat) throws -> (
    Data, [String]
  ) {
    func run<T: Codable>(_ type: T.Type) throws -> (Data, [String]) {
      let decoder = LenientDecoder()
      let result =
        try entry.at.map {
          try decoder.decodeEnvelopeWithReport(T.self, from: data, format: format, at: JSONPath($0))
        } ?? decoder.decodeEnvelopeWithReport(T.self, from: data, format: format)
      let encoder = JSONEncoder()
      return (
        try encoder.encode(result.value),
        result.report.entries.map { "\($0.path) \($0.kind)" }
      )
    }
    switch entry.type {
    case "User": return try run(User.self)
    case "User?": return try run(User?.self)
    case "[User]": return try run([User].self)
    case "Stats": return try run(Stats.self)
    case "Int": return try run(Int.self)
    case "String": return try run(String.self)
    case "Empty": return try run(Empty.self)
    default: throw CocoaError(.featureUnsupported)
    }
  }

  static func describe(_ error: any Error) -> String {
    switch error {
    case EnvelopeError.business(let code, let message): return "business \(code) \(message ?? "")"
    case EnvelopeError.missingCode: return "missingCode"
    case EnvelopeError.missingData: return "missingData"
    case EnvelopeError.invalidCode: return "\(error)"
    case DecodingError.dataCorrupted: return "dataCorrupted"
    case DecodingError.keyNotFound(let key, let context):
      return "keyNotFound " + (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
    default: return "\(error)"
    }
  }

  @Test func manifestCoversAtLeastThirtyFixtures() throws {
    #expect(Self.entries.count >= 30)
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
      .filter { $0 != "manifest.json" && $0.hasSuffix(".json") }
    #expect(Set(files) == Set(Self.entries.map(\.fixture)), "every fixture has a manifest line")
  }

  @Test(arguments: entries)
  func fixtureMatchesManifest(_ entry: Entry) throws {
    let data = try Data(contentsOf: Self.folder.appendingPathComponent(entry.fixture))
    let format = try #require(Self.formats[entry.format], "unknown format \(entry.format)")
    do {
      let (encoded, report) = try Self.decode(entry, data, format)
      #expect(entry.error == nil, "expected error \(entry.error ?? "")")
      let actual = try JSONSerialization.jsonObject(with: encoded, options: .fragmentsAllowed)
      let expected = entry.value?.foundationObject ?? NSNull()
      #expect((actual as? NSObject)?.isEqual(expected) == true, "\(actual) != \(expected)")
      #expect(report == (entry.report ?? []))
    } catch {
      #expect(Self.describe(error) == entry.error)
    }
  }
}

/// `RootModel` decoded by Foundation's `JSONDecoder` agrees with our strict policy on every
/// fixture: the same value, or the same error at the same path.
@Suite struct RootModelFoundationAgreementTests {
  typealias User = EnvelopeFixtureTests.User
  typealias Stats = EnvelopeFixtureTests.Stats

  static func outcome(_ body: () throws -> any Encodable) -> String {
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      return String(decoding: try encoder.encode(body()), as: UTF8.self)
    } catch let error as DecodingError {
      switch error {
      case .typeMismatch(_, let context), .valueNotFound(_, let context),
        .dataCorrupted(let context):
        return "\(Mirror(reflecting: error).children.first?.label ?? "?") "
          + context.codingPath.map(\.stringValue).joined(separator: ".")
      case .keyNotFound(let key, let context):
        return "keyNotFound "
          + (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
      @unknown default: return "\(error)"
      }
    } catch {
      return EnvelopeFixtureTests.describe(error)
    }
  }

  static func both<T: Codable>(_ type: T.Type, _ data: Data, _ format: EnvelopeFormat) -> (
    String, String
  ) {
    let foundation = JSONDecoder()
    foundation.userInfo[.envelopeFormat] = format
    var ours = LenientDecoder()
    ours.policy = .strict
    ours.envelope = format
    return (
      outcome { try foundation.decode(RootModel<T>.self, from: data).validate() },
      outcome { try ours.decode(RootModel<T>.self, from: data).validate() }
    )
  }

  @Test(arguments: EnvelopeFixtureTests.entries.filter { $0.at == nil })
  func foundationAgreesWithTheStrictPolicy(_ entry: EnvelopeFixtureTests.Entry) throws {
    let data = try Data(
      contentsOf: EnvelopeFixtureTests.folder.appendingPathComponent(entry.fixture))
    let format = try #require(EnvelopeFixtureTests.formats[entry.format])
    let (foundation, ours): (String, String)
    switch entry.type {
    case "User": (foundation, ours) = Self.both(User.self, data, format)
    case "User?": (foundation, ours) = Self.both(User?.self, data, format)
    case "[User]": (foundation, ours) = Self.both([User].self, data, format)
    case "Stats": (foundation, ours) = Self.both(Stats.self, data, format)
    case "Int": (foundation, ours) = Self.both(Int.self, data, format)
    case "String": (foundation, ours) = Self.both(String.self, data, format)
    case "Empty": (foundation, ours) = Self.both(Empty.self, data, format)
    default: throw CocoaError(.featureUnsupported)
    }
    #expect(foundation == ours)
  }
}

/// Any JSON value from the manifest, kept to compare with Foundation objects.
struct AnyCodableJSON: Decodable, Sendable {
  let text: String

  init(from decoder: any Decoder) throws {
    let value = try AnyJSON(from: decoder)
    text = value.jsonText
  }

  var foundationObject: NSObject {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
      as? NSObject)
      ?? NSNull()
  }
}

extension AnyJSON {
  var jsonText: String {
    switch self {
    case .null: return "null"
    case .bool(let value): return value ? "true" : "false"
    case .number(let value): return "\(value)"
    case .string(let value):
      var text = ""
      text = JSON.string(value).rawText
      return text
    case .array(let values): return "[" + values.map(\.jsonText).joined(separator: ",") + "]"
    case .object(let members):
      return "{"
        + members.map { key, value in
          var text = ""
          text = JSON.string(key).rawText
          return text + ":" + value.jsonText
        }.joined(separator: ",") + "}"
    }
  }
}
