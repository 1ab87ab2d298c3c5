import Foundation
import Testing

@testable import EnvelopeKit

// Regression tests for the decoder items of "Trust, round two": an Optional at a path, a null
// Optional with a declared value, and a depth error in OneOrMany's many form held in a string.
// Each is named after what it protects.

/// The reference for `DecodableWrapper<T?>` at `data`: a model with an Optional property there.
private struct Holder<T: Decodable>: Decodable { var data: T? }

private struct Small: Codable, Equatable {
  var id: Int
  var name: String?
}

private struct Comment: Decodable, Equatable { var replies: [Comment] }
private struct Tagged: Decodable { var tags: OneOrMany<Comment> }

/// Optional properties with declared values, of the special types and plain ones.
private struct DeclaredOptionals: LenientDecodable, Decodable, Equatable {
  var blob: Data? = Data([1, 2])
  var at: Date? = Date(timeIntervalSince1970: 5)
  var link: URL? = URL(string: "https://example.com")
  var amount: Decimal? = 2
  var count: Int? = 4
  var text: String? = "declared"
  var list: [Int]? = [1]
  var nested: Int?? = 5
}

/// A comment tree whose `replies` are stringified JSON `levels` times, each level `perLevel`
/// comments deep (so `2 * perLevel` levels of nesting per string).
private func stringifiedComments(levels: Int, perLevel: Int) -> String {
  var inner = #"{"replies":[]}"#
  for _ in 0..<levels {
    var text = inner
    for _ in 0..<perLevel { text = #"{"replies":["# + text + "]}" }
    inner = #"{"replies":"# + JSON.string(text).rawText + "}"
  }
  return inner
}

/// A decode's outcome, comparable across decoders: the value, or that it threw.
private func outcome<T: Equatable>(_ body: () throws -> T) -> String {
  do {
    return "value \(try body())"
  } catch {
    return "threw"
  }
}

@Suite struct OptionalAtPathTests {
  /// The seeds of the generated comparison: `ENVELOPEKIT_SEED` (see `GeneratedRuns`) or 1...4.
  static let seeds = GeneratedRuns.seeds(default: Array(1...4))
  static let casesPerSeed = GeneratedRuns.cases(default: 400)

  /// The issue's inputs: a present value that is not a `T` throws in strict (as JSONDecoder
  /// throws for a model with a `T?` property at `data`), with JSONDecoder too, and is a reported
  /// fallback in lenient.
  @Test(arguments: ["true", "[]", #"{"data":[1]}"#, #""NaN""#, "3", #"{"data":{}}"#])
  func decodableWrapperOfAnOptionalThrowsForAValueOfAnotherKind(_ json: String) throws {
    let data = Data(json.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Holder<Int>.self, from: data) }
    let foundation = JSONDecoder()
    foundation.userInfo[.decodingPath] = JSONPath("data")
    #expect(throws: DecodingError.self) {
      try foundation.decode(DecodableWrapper<Int?>.self, from: data)
    }
    var strict = LenientDecoder(policy: .strict)
    strict.userInfo[.decodingPath] = JSONPath("data")
    #expect(throws: DecodingError.self) {
      try strict.decode(DecodableWrapper<Int?>.self, from: data)
    }
    var lenient = strict
    lenient.policy = .lenient
    let fallback = try lenient.decodeWithReport(DecodableWrapper<Int?>.self, from: data)
    #expect(fallback.value.value == nil)
    #expect(!fallback.report.isEmpty)
  }

  /// A missing key or null is nil in every decoder and policy, with no report entry.
  @Test(arguments: ["{}", #"{"data":null}"#, #"{"other":true}"#])
  func decodableWrapperOfAnOptionalIsNilOnlyForMissingOrNull(_ json: String) throws {
    let data = Data(json.utf8)
    let foundation = JSONDecoder()
    foundation.userInfo[.decodingPath] = JSONPath("data")
    #expect(try foundation.decode(DecodableWrapper<Int?>.self, from: data).value == nil)
    for policy in [DecodingPolicy.strict, .lenient] {
      var decoder = LenientDecoder(policy: policy)
      decoder.userInfo[.decodingPath] = JSONPath("data")
      let decoded = try decoder.decodeWithReport(DecodableWrapper<Int?>.self, from: data)
      #expect(decoded.value.value == nil)
      #expect(decoded.report.isEmpty)
    }
  }

  /// Differential, by generation: over values of every kind at `data` (and documents that are
  /// not objects), `DecodableWrapper<T?>` at `data` decodes what JSONDecoder decodes for a model
  /// with a `T?` property there (with JSONDecoder and with strict), to the same value, and
  /// throws where it throws; lenient's report is empty exactly when strict decodes, to the same
  /// value.
  @Test(arguments: seeds)
  func decodableWrapperOfAnOptionalAgreesWithJSONDecoder(seed: UInt64) {
    var generator = PromiseGenerator(SeededSource(seed: seed))
    var violations: [String] = []
    var threw = 0
    var decoded = 0
    for _ in 0..<Self.casesPerSeed {
      generator.documentedDifference = false
      let shapes: [Shape] = [
        .int(.int), .double, .string, .bool, .array(.int(.int)),
        .object([("id", .int(.int)), ("name", .optional(.string))]),
      ]
      let shapeIndex = generator.source.next(shapes.count)
      let value = generator.value(shapes[shapeIndex], depth: 1)
      let json: String
      switch generator.source.next(6) {
      case 0: json = value
      case 1: json = #"{"other":"# + value + "}"
      default: json = #"{"data":"# + value + "}"
      }
      if generator.documentedDifference { continue }
      func compare<T: Decodable & Equatable>(_ type: T.Type) {
        let data = Data(json.utf8)
        let reference = outcome { try JSONDecoder().decode(Holder<T>.self, from: data).data }
        let foundation = JSONDecoder()
        foundation.userInfo[.decodingPath] = JSONPath("data")
        let wrapped = outcome {
          try foundation.decode(DecodableWrapper<T?>.self, from: data).value
        }
        var strict = LenientDecoder(policy: .strict)
        strict.userInfo[.decodingPath] = JSONPath("data")
        let ours = outcome { try strict.decode(DecodableWrapper<T?>.self, from: data).value }
        var lenient = strict
        lenient.policy = .lenient
        let lenientResult = Result {
          try lenient.decodeWithReport(DecodableWrapper<T?>.self, from: data)
        }
        if reference == "threw" { threw += 1 } else { decoded += 1 }
        if wrapped != reference {
          violations.append("\(T.self) JSONDecoder wrapper \(wrapped), model \(reference): \(json)")
        }
        if ours != reference {
          violations.append("\(T.self) strict wrapper \(ours), model \(reference): \(json)")
        }
        switch lenientResult {
        case .success(let result):
          if result.report.isEmpty, ours != "value \(String(describing: result.value.value))" {
            violations.append("\(T.self) lenient empty report but strict \(ours): \(json)")
          }
          if !result.report.isEmpty, ours != "threw" {
            violations.append("\(T.self) lenient reported where strict decoded: \(json)")
          }
        case .failure:
          if ours != "threw" { violations.append("\(T.self) lenient threw: \(json)") }
        }
      }
      switch shapeIndex {
      case 0: compare(Int.self)
      case 1: compare(Double.self)
      case 2: compare(String.self)
      case 3: compare(Bool.self)
      case 4: compare([Int].self)
      default: compare(Small.self)
      }
    }
    #expect(
      violations.isEmpty,
      "seed \(seed): \(violations.count)\n\(violations.prefix(8).joined(separator: "\n"))")
    #expect(threw > Self.casesPerSeed / 20, "seed \(seed): threw \(threw)")
    #expect(decoded > Self.casesPerSeed / 4, "seed \(seed): decoded \(decoded)")
  }

  /// Null for an Optional property with a declared value is nil in both policies, with no
  /// report entry, whatever the strategies (missing too); a value of another kind is a `nulled`
  /// nil in lenient, never the declared value.
  @Test(arguments: [LenientDecoder.DataDecodingStrategy.base64, .deferredToData])
  func nullForAnOptionalWithADeclaredValueIsNilInBothPolicies(
    _ data: LenientDecoder.DataDecodingStrategy
  ) throws {
    let null =
      #"{"blob":null,"at":null,"link":null,"amount":null,"count":null,"text":null,"list":null,"nested":null}"#
    let none = DeclaredOptionals(
      blob: nil, at: nil, link: nil, amount: nil, count: nil, text: nil, list: nil, nested: nil)
    for date in [LenientDecoder.DateDecodingStrategy.deferredToDate, .iso8601, .secondsSince1970] {
      for policy in [DecodingPolicy.strict, .lenient] {
        var decoder = LenientDecoder(policy: policy)
        decoder.dataDecodingStrategy = data
        decoder.dateDecodingStrategy = date
        for json in [null, "{}"] {
          let decoded = try decoder.decodeWithReport(DeclaredOptionals.self, from: Data(json.utf8))
          #expect(decoded.value == none, "\(policy) \(json)")
          #expect(decoded.report.isEmpty, "\(policy) \(json): \(decoded.report)")
        }
      }
      var lenient = LenientDecoder()
      lenient.dataDecodingStrategy = data
      lenient.dateDecodingStrategy = date
      let other =
        #"{"blob":{},"at":{},"link":{},"amount":{},"count":{},"text":{},"list":{},"nested":{}}"#
      let decoded = try lenient.decodeWithReport(DeclaredOptionals.self, from: Data(other.utf8))
      let value = decoded.value
      #expect(value.blob == nil && value.at == nil && value.link == nil && value.amount == nil)
      #expect(value.count == nil && value.text == nil)
      #expect(!decoded.report.entries.contains { $0.kind == .defaulted }, "\(decoded.report)")
    }
  }

  /// A 600-level stringified chain as OneOrMany's many form held in a string (in a property,
  /// an Optional and an array): the depth error stops the decode instead of the string
  /// falling back to a `defaulted` single value.
  @Test func aDepthErrorInOneOrManysManyFormHeldInAStringStopsTheDecode() {
    let deep = stringifiedComments(levels: 3, perLevel: 100)
    let many = JSON.string("[" + deep + "]").rawText
    struct Holder<T: Decodable>: Decodable { var value: T }
    func isDepthError(_ body: () throws -> Void) -> Bool {
      do {
        try body()
        return false
      } catch {
        return "\(error)".contains("nested too deeply")
      }
    }
    let lenient = LenientDecoder()
    #expect(
      isDepthError { _ = try lenient.decode(Tagged.self, from: Data(#"{"tags":\#(many)}"#.utf8)) })
    #expect(
      isDepthError {
        _ = try lenient.decode(
          Holder<OneOrMany<Comment>?>.self, from: Data(#"{"value":\#(many)}"#.utf8))
      })
    #expect(
      isDepthError {
        _ = try lenient.decode([OneOrMany<Comment>].self, from: Data("[\(many)]".utf8))
      })
    // The same chain as a plain many form.
    #expect(
      isDepthError { _ = try lenient.decode(Tagged.self, from: Data(#"{"tags":[\#(deep)]}"#.utf8)) }
    )
    // Shallow, the string still falls back as before (reported).
    let shallow = JSON.string("[" + stringifiedComments(levels: 1, perLevel: 2) + "]").rawText
    let decoded = try? lenient.decodeWithReport(
      Tagged.self, from: Data(#"{"tags":\#(shallow)}"#.utf8))
    #expect(decoded?.report.isEmpty == false)
  }
}
