import Foundation
import Testing

@testable import EnvelopeKit

/// A plan whose unknown raw values are kept in `other`, so that encoding writes them back.
enum Plan: Codable, Hashable, Sendable, CaseDefaultable {
  case free, pro, other(String)

  init?(rawValue: String) {
    switch rawValue {
    case "free": self = .free
    case "pro": self = .pro
    default: return nil
    }
  }

  var rawValue: String {
    switch self {
    case .free: "free"
    case .pro: "pro"
    case .other(let raw): raw
    }
  }

  static let defaultCase = Plan.other("")
  static func defaultCase(for rawValue: String) -> Plan { .other(rawValue) }
}

struct Account: Codable, Hashable, Sendable {
  var id: Int
  var plan: Plan
}

struct MaybeAccount: Codable, Hashable, Sendable {
  var plan: Plan?
}

struct Accounts: Codable, Hashable, Sendable {
  var plans: [Plan]
}

@Suite struct CaseDefaultableTests {
  /// JSON for `plan`, the value a lenient decode gives, and its report (path kind found).
  static let cases: [(json: String, plan: Plan, report: [String])] = [
    (#""pro""#, .pro, []),
    (#""team""#, .other("team"), [#"plan defaulted string "team""#]),
    // A raw value read with a coercion is kept as coerced; only the replacement is reported.
    ("3", .other("3"), ["plan defaulted number 3"]),
    // No raw value can be read from an object: the default case.
    (#"{"x":1}"#, .other(""), ["plan defaulted object"]),
  ]

  @Test(arguments: cases)
  func anUnknownRawValueIsKeptByDefaultCaseForRawValue(
    json: String, plan: Plan, report: [String]
  ) throws {
    let data = Data(#"{"id":1,"plan":\#(json)}"#.utf8)
    let decoded = try LenientDecoder().decodeWithReport(Account.self, from: data)
    #expect(decoded.value == Account(id: 1, plan: plan))
    let entries = decoded.report.entries.map { "\($0.path) \($0.kind) \($0.found)" }
    #expect(entries.count == report.count)
    for (entry, prefix) in zip(entries, report) { #expect(entry.hasPrefix(prefix), "\(entry)") }
    if !report.isEmpty {
      #expect(throws: DecodingError.self) {
        try LenientDecoder(policy: .strict).decode(Account.self, from: data)
      }
    }
  }

  @Test func aKeptRawValueIsWrittenBackByBothEncoders() throws {
    let data = Data(#"{"id":7,"plan":"enterprise"}"#.utf8)
    let account = try LenientDecoder().decode(Account.self, from: data)
    #expect(account.plan == .other("enterprise"))
    var encoder = ModelEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys]
    for written in [try encoder.encode(account), try foundation.encode(account)] {
      #expect(String(decoding: written, as: UTF8.self) == #"{"id":7,"plan":"enterprise"}"#)
      #expect(try LenientDecoder().decode(Account.self, from: written) == account)
    }
  }

  @Test func elementsKeepTheirRawValuesWithTheirIndexes() throws {
    let data = Data(#"{"plans":["free","team","pro","solo"]}"#.utf8)
    let decoded = try LenientDecoder().decodeWithReport(Accounts.self, from: data)
    #expect(decoded.value.plans == [.free, .other("team"), .pro, .other("solo")])
    #expect(decoded.report.entries.map(\.path) == ["plans[1]", "plans[3]"])
  }

  /// A type without `defaultCase(for:)` keeps today's behaviour: its `defaultCase`.
  @Test func withoutDefaultCaseForRawValueTheDefaultCaseIsTaken() throws {
    let data = Data(#"{"v":7}"#.utf8)
    let decoded = try LenientDecoder().decodeWithReport(Box<Tier>.self, from: data)
    #expect(decoded.value.v == .unknown)
    #expect(decoded.report.entries.map(\.kind) == [.defaulted])
  }

  /// The type says what stands for an unknown raw value, so an Optional gets it, not nil; null
  /// and a missing key stay nil.
  @Test func anOptionalTakesTheKeptRawValueAndNullStaysNil() throws {
    let cases: [(String, Plan?)] = [
      (#"{"plan":"team"}"#, .other("team")), (#"{"plan":null}"#, nil), ("{}", nil),
    ]
    for (json, plan) in cases {
      #expect(try LenientDecoder().decode(MaybeAccount.self, from: Data(json.utf8)).plan == plan)
    }
  }
}
