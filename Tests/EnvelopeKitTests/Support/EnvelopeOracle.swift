import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

// The oracle of the envelope promise: every entry point that reads an envelope gives one answer.
// Over generated envelopes (codes of every JSON kind and spelling, messages, payloads of every
// kind, both policies, several success configurations):
//
// - `decodeEnvelopeWithReport` and `RootModel` decoded by `LenientDecoder` then `validate()`
//   give the same answer: the same value and report, or the same envelope error (business with
//   the same code and message, missingCode, invalidCode with the same snippet, missingData), or
//   a `DecodingError` of the same kind at the same path;
// - `RootModel` decoded by Foundation's `JSONDecoder` then `validate()` gives the strict
//   policy's answer, except for the documented differences (`documentedDifferences`, the DocC
//   sections "Differences" of "Envelopes" and "Lenient decoding"): Foundation has no number's
//   text, so a number message is `Decimal`'s text of it, and a number code past `Decimal`'s 38
//   digits or `Double`'s range is rounded or unreadable;
// - lenient reports exactly what strict rejects, and a status error is the same in both.
//
// Shared by `EnvelopeDifferentialTests` (seeded) and `Fuzz/PromiseFuzzTarget.swift`.

/// The payload model of the generated envelopes.
struct EItem: Codable, Equatable, Sendable {
  var id: Int
  var name: String?
}

/// One entry point's answer, comparable.
enum EnvelopeAnswer: Equatable, CustomStringConvertible {
  /// The payload (as sorted JSON) and the report's entries.
  case value(String, report: [String])
  /// A non-success code: the code as `description` gives it (`"0"` for a string), the message.
  case business(code: String, message: String?)
  case missingCode
  case invalidCode(found: String)
  case missingData(code: String?)
  /// A `DecodingError`: its case and coding path.
  case decoding(kind: String, path: String)
  /// Anything else.
  case other(String)

  var description: String {
    switch self {
    case .value(let value, let report): return "value \(value) report \(report)"
    case .business(let code, let message): return "business(\(code), \(message ?? "nil"))"
    case .missingCode: return "missingCode"
    case .invalidCode(let found): return "invalidCode(\(found))"
    case .missingData(let code): return "missingData(\(code ?? "nil"))"
    case .decoding(let kind, let path): return "decoding \(kind) at \(path)"
    case .other(let text): return "other \(text)"
    }
  }

  /// The kind alone: `value`, `business`, ...
  var kind: String {
    switch self {
    case .value: return "value"
    case .business: return "business"
    case .missingCode: return "missingCode"
    case .invalidCode: return "invalidCode"
    case .missingData: return "missingData"
    case .decoding: return "decoding"
    case .other: return "other"
    }
  }

  /// The answer with the report left out (Foundation's decoder makes none).
  var withoutReport: EnvelopeAnswer {
    if case .value(let value, _) = self { return .value(value, report: []) }
    return self
  }

  /// The answer of `body`: a decoded payload and its report, or the error it threw.
  static func of<T: Encodable>(_ body: () throws -> (T, DecodingReport)) -> EnvelopeAnswer {
    do {
      let (value, report) = try body()
      let text = PromiseOracle.canonical(value).map { String(decoding: $0, as: UTF8.self) }
      return .value(text ?? "unencodable", report: report.entries.map { "\($0)" })
    } catch let error as EnvelopeError {
      switch error {
      case .business(let code, let message): return .business(code: "\(code)", message: message)
      case .missingCode: return .missingCode
      case .invalidCode(let found): return .invalidCode(found: found)
      case .missingData(let code): return .missingData(code: code.map { "\($0)" })
      }
    } catch let error as EnvelopeOracle.Refused {
      return .business(code: error.code, message: error.message)
    } catch let error as DecodingError {
      return decoding(error)
    } catch {
      return .other("\(error)")
    }
  }

  static func decoding(_ error: DecodingError) -> EnvelopeAnswer {
    let (kind, context): (String, DecodingError.Context?) =
      switch error {
      case .typeMismatch(_, let context): ("typeMismatch", context)
      case .valueNotFound(_, let context): ("valueNotFound", context)
      case .keyNotFound(let key, let context): ("keyNotFound \(key.stringValue)", context)
      case .dataCorrupted(let context): ("dataCorrupted", context)
      @unknown default: ("unknown", nil)
      }
    let path = context?.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } ?? []
    return .decoding(kind: kind, path: path.joined(separator: "."))
  }
}

enum EnvelopeOracle {
  /// Where Foundation's `JSONDecoder` cannot agree, as the DocC "Differences" sections list them.
  /// A generated case that meets one is compared without the part it names.
  static var documentedDifferences: [String] {
    [
      "A number message under JSONDecoder is Decimal's text of it (1.50 gives \"1.5\", 1E2 \"100\"); ours is the literal text. Past Double's range JSONDecoder cannot read it and RootModel throws dataCorrupted.",
      "A number code past Decimal's 38 digits under JSONDecoder is rounded (1234567890123456789012345678901234567891 is another code, 1.0000000000000000000000000000000000000001 the code 1); past Double's range (5e308, 1e400) JSONDecoder cannot read it and RootModel throws dataCorrupted; ours reads the exact integer (5e308) or, past 309 digits, invalidCode (1e400).",
      "An invalid code's snippet under JSONDecoder is written from Foundation's reading: a number as Decimal writes it (number 1.5 for 1.50), an object's members in its keyed container's order (never generated: generated object codes have one member).",
    ]
  }

  /// The error of a mapped format: a failure status, as text.
  struct Refused: Error {
    var code: String
    var message: String?
  }

  /// What one case found.
  struct Outcome {
    var violations: [String] = []
    /// How many answers of each kind (strict `decodeEnvelope`), to see the generator reach them.
    var kinds: [String: Int] = [:]
    var lenientReported = 0
    var comparedWithFoundation = 0
    var documentedDifferences = 0
  }

  /// The codes Foundation reads as they are written: every kind, and integers written every way,
  /// past `Int` too. (Computed, as the lists below: a stored static would be a one-time
  /// allocation LeakSanitizer reports in the fuzz target.)
  static var codes: [String] {
    [
      "0", "1", "-1", "1001", #""0""#, #""ok""#, #""000""#, #""""#, "0.0", "1e0", "1.0", "-0",
      "-0.0", "0e5", "0.0e1", "10e-1", "1E+0", "1e3", "-5.000", "1.5", "-0.5", "0.1",
      "9223372036854775807", "9223372036854775807.0", "9223372036854775808",
      "9223372036854775808.0", "-9223372036854775809.0", "18446744073709551616e0", "1e30",
      "1.2e19", "null", "true", "false", "[]", "[0]", "{}", #"{"a":0}"#, #"[0,"x"]"#,
    ]
  }

  /// The codes Foundation cannot read as written: past `Decimal`'s digits or `Double`'s range
  /// (documented difference 2), or invalid and not written as `Decimal` writes them (3).
  static var differingCodes: [String] {
    [
      "1e-1", "2.5e0", "1.50", "1234567890123456789012345678901234567891",
      "1.0000000000000000000000000000000000000001",
      "1234567890123456789012345678901234567891.0", "1e400", "-1e400", "1e309", "1e310", "5e308",
    ]
  }

  /// The messages Foundation reads as written: every kind.
  static var messages: [String] {
    [
      #""ok""#, #""""#, #""token expired""#, "7", "-12", "null", "true", "false", #"{"a":1}"#,
      "[1]",
    ]
  }

  /// The number messages Foundation writes otherwise (documented difference 1).
  static var differingMessages: [String] { ["1.50", "1E2", "-0", "2.50e1", "1e400"] }

  /// The payloads: right, drifting and of every other kind.
  static var payloads: [String] {
    [
      #"{"id":1,"name":"a"}"#, #"{"id":2}"#, #"{"id":"3","name":4}"#, #"{"name":"no id"}"#, "{}",
      "[]", #"[{"id":5}]"#, #"[{"id":6},{"id":"7"}]"#, "null", #""x""#, #""{\"id\":8}""#,
      #""[{\"id\":9}]""#, #""null""#, "5", "true", "[1]", #"{"id":1.5}"#,
    ]
  }

  /// The success configurations: the default, a string success code, a mapped format with
  /// codes of both kinds, an optional code, a predicate, and other paths.
  static func format(_ pick: Int) -> (String, EnvelopeFormat) {
    switch pick {
    case 0: return ("default", .default)
    case 1: return ("success \"0\"", EnvelopeFormat(success: ["0"]))
    case 2:
      return (
        "mapped [0, \"ok\", true]",
        EnvelopeFormat(code: "code", messages: ["msg"], data: "data", success: [0, "ok", true])
          .mappingErrors { Refused(code: $0.code.map { "\($0)" } ?? "none", message: $0.message) }
      )
    case 3: return ("optional code", EnvelopeFormat.default.codeOptional())
    case 4:
      return (
        "predicate 0..<100",
        EnvelopeFormat(code: "code", message: "msg", data: "data") { code in
          code.intValue.map { (0..<100).contains($0) } ?? false
        }
      )
    default:
      return (
        "nested paths",
        EnvelopeFormat(
          code: "status.code", messages: ["status.msg", "msg"], data: "result", success: [0])
      )
    }
  }

  static func pick<S: EntropySource>(_ choices: [String], _ source: inout S) -> String {
    choices[source.next(choices.count)]
  }

  /// Generates one envelope and checks every entry point on it.
  static func runOne<S: EntropySource>(_ source: inout S, into outcome: inout Outcome) {
    let (formatName, format) = format(source.next(6))
    let nested = formatName == "nested paths"
    var members: [String] = []
    var foundationDiffers = false
    var messageIsNumber = false
    // The code: missing one time in twelve; a random integer spelled any way, a fixed choice,
    // or (one time in twenty) one that Foundation cannot read as written.
    if source.next(12) != 0 {
      let code: String
      switch source.next(20) {
      case 0:
        foundationDiffers = true
        code = pick(differingCodes, &source)
      case 1...5:
        let integer = Int64(source.next(2_000_001)) - 1_000_000
        let spellings = [
          "\(integer)", "\(integer).0", "\(integer)e0", "\(integer).5",
          integer == 0 ? "0.00e2" : "\(integer)00e-2",
        ]
        code = pick(spellings, &source)
      default:
        code = pick(codes, &source)
      }
      members.append(nested ? #""status":{"code":"# + code + "}" : #""code":"# + code)
    }
    for key in ["msg", "message"] where source.next(3) != 0 {
      let message: String
      if source.next(10) == 0 {
        messageIsNumber = true
        message = pick(differingMessages, &source)
      } else {
        message = pick(messages, &source)
      }
      members.append("\"" + key + "\":" + message)
    }
    if source.next(8) != 0 {
      members.append((nested ? #""result":"# : #""data":"#) + pick(payloads, &source))
    }
    // Keys in any order: the code is read first whatever its place.
    for i in stride(from: members.count - 1, to: 0, by: -1) {
      members.swapAt(i, source.next(i + 1))
    }
    let json = "{" + members.joined(separator: ",") + "}"
    let documented = (code: foundationDiffers, message: messageIsNumber)
    switch source.next(3) {
    case 0: check(EItem.self, json, format, formatName, documented, into: &outcome)
    case 1: check([EItem].self, json, format, formatName, documented, into: &outcome)
    default: check(EItem?.self, json, format, formatName, documented, into: &outcome)
    }
  }

  /// The answers of every entry point for one body and payload type, compared.
  static func check<T: Codable>(
    _ type: T.Type, _ json: String, _ format: EnvelopeFormat, _ formatName: String,
    _ documented: (code: Bool, message: Bool), into outcome: inout Outcome
  ) {
    let data = Data(json.utf8)
    func fail(_ rule: String) {
      outcome.violations.append("\(T.self), \(formatName): \(rule): \(json)")
    }
    var answers: [DecodingPolicy: EnvelopeAnswer] = [:]
    for policy in [DecodingPolicy.strict, .lenient] {
      var decoder = LenientDecoder(policy: policy)
      decoder.envelope = format
      let envelope = EnvelopeAnswer.of {
        let decoded = try decoder.decodeEnvelopeWithReport(T.self, from: data)
        return (decoded.value, decoded.report)
      }
      let root = EnvelopeAnswer.of {
        let decoded = try decoder.decodeWithReport(RootModel<T>.self, from: data)
        return (try decoded.value.validate(), decoded.report)
      }
      if envelope != root {
        fail("\(policy): decodeEnvelope \(envelope) but RootModel \(root)")
      }
      // RootModel's code and message are the status `envelopeStatus` reads.
      if let model = try? decoder.decode(RootModel<T>.self, from: data),
        let status = try? decoder.envelopeStatus(from: data),
        model.code != status.code || model.code?.description != status.code?.description
          || model.message != status.message
      {
        fail(
          "\(policy): RootModel read \(String(describing: model.code)) \(String(describing: model.message)), envelopeStatus \(status)"
        )
      }
      answers[policy] = envelope
    }
    guard let strict = answers[.strict], let lenient = answers[.lenient] else { return }
    outcome.kinds[strict.kind, default: 0] += 1
    // Lenient reports exactly what strict rejects; a status error is one answer in both.
    switch (strict, lenient) {
    case (.value(let value, let report), .value(let lenientValue, let lenientReport)):
      if !report.isEmpty { fail("strict made a report \(report)") }
      if !lenientReport.isEmpty { fail("strict decoded but lenient reported \(lenientReport)") }
      if value != lenientValue { fail("strict \(value) but lenient \(lenientValue)") }
    case (.decoding, .value(_, let report)):
      if report.isEmpty { fail("strict threw \(strict) but lenient's report is empty") }
      outcome.lenientReported += 1
    case (.decoding, .decoding):
      break
    default:
      if strict != lenient { fail("strict \(strict) but lenient \(lenient)") }
    }
    // Foundation's decoder, then validate(): the strict answer, minus the documented differences.
    let foundation = JSONDecoder()
    foundation.userInfo[.envelopeFormat] = format
    let theirs = EnvelopeAnswer.of {
      (try foundation.decode(RootModel<T>.self, from: data).validate(), DecodingReport())
    }
    outcome.comparedWithFoundation += 1
    if documented.code || documented.message { outcome.documentedDifferences += 1 }
    if !agrees(theirs, strict.withoutReport, documented) {
      fail("JSONDecoder \(theirs) but strict \(strict)")
    }
  }

  /// Whether Foundation's answer is ours, leaving out what `documented` names.
  static func agrees(
    _ theirs: EnvelopeAnswer, _ ours: EnvelopeAnswer, _ documented: (code: Bool, message: Bool)
  ) -> Bool {
    switch (theirs, ours) {
    case (.decoding, .decoding):
      // Both reject the payload; paths and wording are each decoder's own.
      return true
    case (.decoding(let kind, _), _) where kind == "dataCorrupted":
      // A number past Double's range at the code or message path: Foundation cannot read it.
      return documented.code || documented.message
    case (.business(let code, let message), .business(let ourCode, let ourMessage)):
      return (documented.code || code == ourCode) && (documented.message || message == ourMessage)
    case (.invalidCode, .invalidCode):
      return documented.code || theirs == ours
    default:
      // A rounded code past Decimal's digits can be another kind of answer (0.1 digits lost).
      return documented.code ? true : theirs == ours
    }
  }
}
