import Foundation
import Testing

@testable import EnvelopeKit

/// One row of the status table: a body and what every entry point must answer.
struct StatusRow: Sendable, CustomTestStringConvertible {
  var body: String
  /// `ok`, `business(...)`, `missingCode` or `invalidCode(found: ...)`.
  var outcome: String
  var code: EnvelopeCode?
  var message: String?
  var testDescription: String { body }
}

/// What one entry point answered.
struct StatusAnswer: Equatable, CustomStringConvertible {
  var outcome: String
  var code: EnvelopeCode?
  var message: String?
  var description: String {
    "\(outcome) code: \(code.map { "\($0)" } ?? "nil") message: \(message ?? "nil")"
  }
}

@Suite struct EnvelopeStatusTableTests {
  static let rows: [StatusRow] = [
    StatusRow(body: #"{"code":0,"msg":"ok","data":1}"#, outcome: "ok", code: 0, message: "ok"),
    StatusRow(
      body: #"{"code":"0","message":"fine","data":1}"#, outcome: "ok", code: "0", message: "fine"),
    StatusRow(body: #"{"code":0.0,"data":1}"#, outcome: "ok", code: 0),
    StatusRow(
      body: #"{"code":1e3,"msg":"k"}"#, outcome: "business(code: 1000, message: \"k\")", code: 1000,
      message: "k"),
    StatusRow(
      body: #"{"code":1001,"msg":["a"]}"#, outcome: "business(code: 1001, message: nil)", code: 1001
    ),
    StatusRow(
      body: #"{"code":1001,"msg":null,"message":"second"}"#,
      outcome: "business(code: 1001, message: \"second\")", code: 1001, message: "second"),
    StatusRow(
      body: #"{"code":1001,"msg":7}"#, outcome: "business(code: 1001, message: \"7\")", code: 1001,
      message: "7"),
    StatusRow(body: #"{"code":true}"#, outcome: "business(code: true, message: nil)", code: true),
    StatusRow(
      body: #"{"code":[1],"msg":"m"}"#, outcome: "invalidCode(found: array [1])", message: "m"),
    StatusRow(body: #"{"code":{"a":1}}"#, outcome: #"invalidCode(found: object {"a":1})"#),
    StatusRow(body: #"{"code":null,"data":1}"#, outcome: "invalidCode(found: null)"),
    StatusRow(body: #"{"code":1.5}"#, outcome: "invalidCode(found: number 1.5)"),
    // An integer past Int, however written, is that integer (a business failure), as its literal.
    StatusRow(
      body: #"{"code":9223372036854775808.0,"msg":"k"}"#,
      outcome: "business(code: 9223372036854775808, message: \"k\")",
      code: EnvelopeCode(storage: .number("9223372036854775808")), message: "k"),
    StatusRow(
      body: #"{"code":1e30}"#,
      outcome: "business(code: 1000000000000000000000000000000, message: nil)",
      code: EnvelopeCode(storage: .number("1000000000000000000000000000000"))),
    StatusRow(body: #"{"msg":"no code","data":1}"#, outcome: "missingCode", message: "no code"),
    StatusRow(body: #"[1,2]"#, outcome: "missingCode"),
    StatusRow(body: #"{"code":"x"}"#, outcome: "business(code: \"x\", message: nil)", code: "x"),
  ]

  static func decoder(_ policy: DecodingPolicy) -> LenientDecoder {
    var decoder = LenientDecoder()
    decoder.policy = policy
    return decoder
  }

  static func answer(_ body: () throws -> (EnvelopeCode?, String?)) -> StatusAnswer {
    do {
      let (code, message) = try body()
      return StatusAnswer(outcome: "ok", code: code, message: message)
    } catch let error as EnvelopeError {
      if case .business(let code, let message) = error {
        return StatusAnswer(outcome: "\(error)", code: code, message: message)
      }
      // A missing code's description goes on to name the ways out; the table compares the case.
      return StatusAnswer(
        outcome: error == .missingCode ? "missingCode" : "\(error)", code: nil, message: nil)
    } catch {
      return StatusAnswer(outcome: "other: \(error)", code: nil, message: nil)
    }
  }

  /// The answers of every entry point, each with both policies, plus Foundation's decoder.
  static func answers(_ body: Data) -> [String: StatusAnswer] {
    var answers: [String: StatusAnswer] = [:]
    for policy in [DecodingPolicy.lenient, .strict] {
      let decoder = decoder(policy)
      answers["decodeEnvelope \(policy)"] = answer {
        _ = try decoder.decodeEnvelope(JSON?.self, from: body)
        let status = try decoder.envelopeStatus(from: body)
        return (status.code, status.message)
      }
      answers["envelopeStatus \(policy)"] = answer {
        let status = try decoder.envelopeStatus(from: body)
        if !status.isSuccess {
          throw EnvelopeError.business(code: status.code ?? "", message: status.message)
        }
        return (status.code, status.message)
      }
      answers["decodeEnvelopeResult \(policy)"] = answer {
        let result = try decoder.decodeEnvelopeResult(JSON?.self, from: body)
        if !result.status.isSuccess {
          throw EnvelopeError.business(
            code: result.status.code ?? "", message: result.status.message)
        }
        return (result.status.code, result.status.message)
      }
      answers["RootModel \(policy)"] = answer {
        let model = try decoder.decode(RootModel<JSON?>.self, from: body)
        _ = try model.validate()
        return (model.code, model.message)
      }
    }
    answers["RootModel JSONDecoder"] = answer {
      let model = try JSONDecoder().decode(RootModel<JSON?>.self, from: body)
      _ = try model.validate()
      return (model.code, model.message)
    }
    return answers
  }

  @Test(arguments: rows)
  func everyEntryPointGivesTheSameStatus(_ row: StatusRow) {
    let expected: StatusAnswer
    if row.outcome == "ok" || row.outcome.hasPrefix("business") {
      expected = StatusAnswer(outcome: row.outcome, code: row.code, message: row.message)
    } else {
      expected = StatusAnswer(outcome: row.outcome, code: nil, message: nil)
    }
    for (entry, answer) in Self.answers(Data(row.body.utf8)).sorted(by: { $0.key < $1.key }) {
      #expect(answer == expected, "\(entry)")
    }
  }

  /// Every way JSON can write an integer (`-0`, `1.0`, `1e3`, `0.1e1`, `10E-1`) is a code equal
  /// to that integer, under every entry point and Foundation's decoder alike: `-0` is the code
  /// 0 (a success), as `-0.0` and `0e0` are, not a code `-0` that no success set holds.
  @Test func everySpellingOfAnIntegerCodeIsThatInteger() {
    var random = SeededGenerator(state: 44)
    var integers: [Int] = [0, 1, -1, 10, 200, 1001, -40_001]
    for _ in 0..<40 { integers.append(Int.random(in: -999_999_999...999_999_999, using: &random)) }
    for integer in integers {
      let digits = String(integer.magnitude)
      let sign = integer < 0 ? "-" : ""
      var spellings = [
        "\(integer)", "\(integer).0", "\(integer).000", "\(integer)e0", "\(integer)E+0",
      ]
      if integer == 0 {
        spellings += ["-0", "-0.0", "-0e5", "-0E-3", "0e-3", "-0.000e+7"]
      } else {
        spellings += [
          "\(sign)0.\(digits)e\(digits.count)", "\(sign)\(digits)0e-1", "\(sign)\(digits)00E-2",
        ]
      }
      let code = EnvelopeCode(integerLiteral: integer)
      let expected = StatusAnswer(
        outcome: integer == 0 ? "ok" : "\(EnvelopeError.business(code: code, message: nil))",
        code: code, message: nil)
      for spelling in spellings {
        let body = Data(#"{"code":\#(spelling),"data":1}"#.utf8)
        for (entry, answer) in Self.answers(body).sorted(by: { $0.key < $1.key }) {
          #expect(answer == expected, "\(entry): code \(spelling)")
        }
      }
    }
  }

  /// A code written by `JSONEncoder` or `ModelEncoder` (a model that keeps an ``EnvelopeCode``)
  /// reads back as the same code, with either decoder: a number past `Int`
  /// (`9223372036854775808`) was written through `Double` (`9.223372036854776e+18`), which
  /// reads back as an invalid code.
  @Test func everyCodeEncodesToTheSameCode() throws {
    struct Kept: Codable { var code: EnvelopeCode }
    var random = SeededGenerator(state: 45)
    var texts = [
      "0", "-1", "1001", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
      "-9223372036854775809", "18446744073709551615", "18446744073709551616",
      "123456789012345678901234567890", #""000""#, #""x""#, "true", "false", "1e3", "-0",
    ]
    for _ in 0..<200 {
      let digits = (0..<Int.random(in: 1...30, using: &random)).map { _ in
        String(Int.random(in: 0...9, using: &random))
      }.joined()
      texts.append((Bool.random(using: &random) ? "-" : "") + "1" + digits)
    }
    for text in texts {
      let code = try #require(
        try LenientDecoder().envelopeStatus(from: Data(#"{"code":\#(text)}"#.utf8)).code)
      let written = [
        ("JSONEncoder", try JSONEncoder().encode(Kept(code: code))),
        ("ModelEncoder", try ModelEncoder().encode(Kept(code: code))),
      ]
      for (encoder, data) in written {
        let ours = try LenientDecoder(policy: .strict).decode(Kept.self, from: data).code
        let foundation = try JSONDecoder().decode(Kept.self, from: data).code
        #expect(ours == code && ours.description == code.description, "\(encoder): \(text)")
        #expect(foundation == code, "\(encoder), read by JSONDecoder: \(text)")
      }
    }
  }

  @Test func rootModelKeepsTheMessageOfAnInvalidCode() throws {
    let body = Data(#"{"code":[1],"msg":"m"}"#.utf8)
    for model in [
      try LenientDecoder().decode(RootModel<Int>.self, from: body),
      try JSONDecoder().decode(RootModel<Int>.self, from: body),
    ] {
      #expect(model.code == nil)
      #expect(model.message == "m")
      #expect(throws: EnvelopeError.invalidCode(found: "array [1]")) { try model.validate() }
    }
  }

  @Test func anEnvelopeCodePropertyRejectsInvalidCodesAsDataCorrupted() throws {
    struct Status: Decodable { var code: EnvelopeCode }
    for decode in [
      { try LenientDecoder().decode(Status.self, from: $0) },
      { try JSONDecoder().decode(Status.self, from: $0) },
    ] as [(Data) throws -> Status] {
      #expect(try decode(Data(#"{"code":"0001"}"#.utf8)).code == "0001")
      #expect(try decode(Data(#"{"code":2.0}"#.utf8)).code == 2)
      do {
        _ = try decode(Data(#"{"code":[1]}"#.utf8))
        Issue.record("an array code decoded")
      } catch DecodingError.dataCorrupted(let context) {
        #expect(context.underlyingError as? EnvelopeError == .invalidCode(found: "array [1]"))
        #expect(context.codingPath.map(\.stringValue) == ["code"])
      }
    }
  }

  @Test func optionalCodeFormatsStillRejectInvalidCodes() {
    let format = EnvelopeFormat.default.codeOptional()
    #expect(throws: EnvelopeError.invalidCode(found: "null")) {
      try LenientDecoder().envelopeStatus(from: Data(#"{"code":null}"#.utf8), format: format)
    }
    #expect(
      (try? LenientDecoder().envelopeStatus(from: Data(#"{"data":1}"#.utf8), format: format))?
        .isSuccess
        == true)
  }
}

@Suite struct JSONCodableTests {
  struct Flexible: Codable, Equatable { var id: JSON; var tags: JSON? }

  @Test func jsonDecodesTheSameWithEitherDecoder() throws {
    let body = Data(
      #"{"id":"18","tags":[1,2.50,"x",null,{"a":true}],"big":12345678901234567890}"#.utf8)
    let ours = try LenientDecoder().decode(Flexible.self, from: body)
    let foundation = try JSONDecoder().decode(Flexible.self, from: body)
    #expect(ours.id == .string("18"))
    #expect(foundation.id == .string("18"))
    #expect(ours.tags?[[1]] == .number(JSONNumber("2.50") ?? JSONNumber(0)))
    #expect(foundation.tags?[[1]]?.numberValue?.decimalValue == Decimal(string: "2.5"))
    #expect(ours.tags?[[4, "a"]] == .bool(true) && foundation.tags?[[4, "a"]] == .bool(true))
    let whole = try JSONDecoder().decode(JSON.self, from: body)
    #expect(whole["big"]?.numberValue?.text == "12345678901234567890")
  }

  @Test func lenientDecodingOfJSONMakesNoReport() throws {
    let result = try LenientDecoder().decodeWithReport(
      Flexible.self, from: Data(#"{"id":1,"tags":"[1]"}"#.utf8))
    #expect(result.value.tags == .string("[1]"))
    #expect(result.report.isEmpty)
  }

  /// A `JSON` property's number is written as its exact text by `ModelEncoder` (a PUT keeps a
  /// 45-digit id or 50 digits of pi as the server sent them; they were rounded to 38 digits
  /// through `Decimal`), and an encoder that cannot hold it (`JSONEncoder` with `1e400` or
  /// `1e-400`) throws rather than write `0`.
  @Test(arguments: [
    "123456789012345678901234567890123456789012345", "1.00000000000000000000000000000000000000001",
    "3.14159265358979323846264338327950288419716939937510", "1e400", "-1e400", "1e-400", "-0",
    "1.0", "0.1", "1e200", "18446744073709551616", "2.5e-7",
  ])
  func jsonNumbersEncodeExactlyOrThrow(_ text: String) throws {
    struct Holder: Codable { var value: JSON }
    let value = try JSON(data: Data("[\(text)]".utf8))
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(try encoder.encodeString(Holder(value: value)) == #"{"value":[\#(text)]}"#)
    // Foundation's encoder holds what Decimal or Double holds, and writes no other number.
    guard let data = try? JSONEncoder().encode(value) else {
      #expect(Self.asDouble(text) == nil, "JSONEncoder threw for \(text)")
      return
    }
    let written = try #require(JSON(data: data)[[0]]?.numberValue)
    #expect(Self.asDouble(written.text) == Self.asDouble(text), "JSONEncoder wrote \(written.text)")
  }

  /// The number as `Double`; nil when it overflows or underflows (`1e-400` is not 0).
  static func asDouble(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite else { return nil }
    let mantissa = text.prefix { $0 != "e" && $0 != "E" }
    return value == 0 && mantissa.contains(where: { ("1"..."9").contains($0) }) ? nil : value
  }

  @Test func jsonEncodesBackToTheSameValue() throws {
    let value = try JSON(
      data: Data(#"{"a":[1,-2,3.25,"s",null,true],"b":{"c":18446744073709551615}}"#.utf8))
    let encoded = try JSONEncoder().encode(value)
    // JSONEncoder does not keep key order; compare with keys sorted.
    #expect(
      try JSON(data: encoded).prettyText(sortedKeys: true) == value.prettyText(sortedKeys: true))
  }
}
