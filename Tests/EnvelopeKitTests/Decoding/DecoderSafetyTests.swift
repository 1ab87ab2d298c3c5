import Foundation
import Testing

@testable import EnvelopeKit

// Input that must never crash the process or grow without bound, on any thread.

/// Decodes nested arrays through `unkeyedContainer()`, so every level recurses through
/// `init(from:)` as a user's model would.
private struct Nested: Decodable {
  var depth: Int
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    var deepest = 0
    while !container.isAtEnd { deepest = max(deepest, try container.decode(Nested.self).depth) }
    depth = deepest + 1
  }
}

private func nestedArrays(_ depth: Int) -> Data {
  Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
}

/// A recursive keyed model, as a user writes one (synthesised `init(from:)`, an Optional child).
private final class Chain: Decodable {
  let child: Chain?
  var depth: Int { 1 + (child?.depth ?? 0) }
}

/// A recursive model through an array (`{"replies":[...]}`): two nesting levels per model.
private struct Thread: Decodable {
  let replies: [Thread]
  var depth: Int { 1 + (replies.map(\.depth).max() ?? 0) }
}

private func chain(_ depth: Int) -> Data {
  Data(
    (String(repeating: #"{"child":"#, count: depth) + "null" + String(repeating: "}", count: depth))
      .utf8)
}

private func thread(_ depth: Int) -> Data {
  Data(
    (String(repeating: #"{"replies":["#, count: depth) + String(repeating: "]}", count: depth))
      .utf8)
}

/// What a decode ended with, as text a test can compare across threads.
private func outcome(_ decode: () throws -> Int) -> String {
  do {
    return "depth \(try decode())"
  } catch DecodingError.dataCorrupted(let context) {
    return "dataCorrupted: \(context.debugDescription)"
  } catch {
    return "other: \(error)"
  }
}

@Suite struct DecoderSafetyTests {
  static let smallStack = 512 * 1024

  /// A `maxDepth` below 1 reads as 1 everywhere: a string holding JSON inside the document
  /// (which lenient reads as that JSON) is then too deep, never an arithmetic trap.
  @Test(arguments: [Int.min, -1, 0])
  func aMaxDepthBelowOneReadsAsOne(_ maxDepth: Int) throws {
    var decoder = LenientDecoder()
    decoder.maxDepth = maxDepth
    let error = try #require(throws: DecodingError.self) {
      try decoder.decode([String: [Int]].self, from: Data(#"{"a": "[1]"}"#.utf8))
    }
    #expect("\(error)".contains("nested too deeply"))
    #expect(try decoder.decode([String: Int].self, from: Data(#"{"a": "1"}"#.utf8)) == ["a": 1])
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func deepInputOnASmallStackThrowsInsteadOfCrashing(_ policy: DecodingPolicy) {
    let result = onThread(stackSize: Self.smallStack) {
      var decoder = LenientDecoder(policy: policy)
      decoder.maxDepth = 10_000
      return outcome { try decoder.decode(Nested.self, from: nestedArrays(10_000)).depth }
    }
    #expect(result.hasPrefix("dataCorrupted: The JSON is nested too deeply"), "\(result)")
  }

  /// The stack budget per nesting level (see `StackGuard`): 200 levels of arrays and of keyed
  /// models decode on a 512 KB thread, the size of a secondary thread on Apple platforms, in
  /// debug builds too (release builds take about 600 and 330); models nested through arrays of
  /// models, two levels each and the largest frames, 60 (release about 140).
  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func twoHundredLevelsDecodeOnASmallStack(_ policy: DecodingPolicy) {
    let result = onThread(stackSize: Self.smallStack) {
      let decoder = LenientDecoder(policy: policy)
      return [
        outcome { try decoder.decode(Nested.self, from: nestedArrays(200)).depth },
        outcome { try decoder.decode(Chain.self, from: chain(200)).depth },
        outcome { try decoder.decode(Thread.self, from: thread(60)).depth },
      ].joined(separator: ", ")
    }
    #expect(result == "depth 200, depth 200, depth 60")
  }

  /// Past the budget, each shape throws the depth error instead of overflowing the stack.
  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func farDeeperModelsThrowTheDepthErrorOnASmallStack(_ policy: DecodingPolicy) {
    let result = onThread(stackSize: Self.smallStack) {
      var decoder = LenientDecoder(policy: policy)
      decoder.maxDepth = 100_000
      return [
        outcome { try decoder.decode(Chain.self, from: chain(20_000)).depth },
        outcome { try decoder.decode(Thread.self, from: thread(10_000)).depth },
      ].joined(separator: "\n")
    }
    let outcomes = result.split(separator: "\n")
    #expect(outcomes.count == 2)
    for outcome in outcomes {
      #expect(
        outcome.hasPrefix(
          "dataCorrupted: The JSON is nested too deeply to decode on this thread's stack"),
        "\(outcome)")
    }
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func defaultMaxDepthOnASmallStackDecodesOrThrows(_ policy: DecodingPolicy) {
    let result = onThread(stackSize: Self.smallStack) {
      outcome {
        try LenientDecoder(policy: policy).decode(Nested.self, from: nestedArrays(512)).depth
      }
    }
    #expect(result == "depth 512" || result.hasPrefix("dataCorrupted"), "\(result)")
    // Moderate nesting decodes on the same small stack (even in a debug build, where frames
    // are several times larger than in release).
    let moderate = onThread(stackSize: Self.smallStack) {
      outcome {
        try LenientDecoder(policy: policy).decode(Nested.self, from: nestedArrays(64)).depth
      }
    }
    #expect(moderate == "depth 64")
  }

  @Test func stringifiedJSONSharesTheDepthBudget() {
    // Layers of 400 arrays, each layer a string inside the previous one: 2,400 levels in all,
    // which a fresh budget per layer would let through to the stack.
    var text = "[]"
    for _ in 0..<6 {
      var quoted = ""
      quoted = JSON.string(text).rawText
      text = String(repeating: "[", count: 400) + quoted + String(repeating: "]", count: 400)
    }
    let input = Data(text.utf8)
    let result = onThread(stackSize: 8 << 20) {
      outcome { try LenientDecoder().decode(Nested.self, from: input).depth }
    }
    #expect(result.hasPrefix("dataCorrupted") || result.hasPrefix("other"), "\(result)")
    #expect(!result.hasPrefix("depth"))
    // Within the budget, stringified layers decode (and are reported as coerced).
    var small = "[]"
    for _ in 0..<2 {
      var quoted = ""
      quoted = JSON.string(small).rawText
      small = "[[" + quoted + "]]"
    }
    let decoded = try? LenientDecoder().decodeWithReport(Nested.self, from: Data(small.utf8))
    #expect(decoded?.value.depth == 5)
    #expect(decoded?.report.entries.map(\.kind) == [.coerced, .coerced])
  }

  @Test func hugeObjectsDecodeAndKeepTheFirstDuplicate() async throws {
    try await oneHeavyAtATime { try hugeObjectsDecodeAndKeepTheFirstDuplicateBody() }
  }

  func hugeObjectsDecodeAndKeepTheFirstDuplicateBody() throws {
    let count = 80_000
    var json = "{"
    for index in 0..<count { json += "\"key_\(index)\": \(index)," }
    json += "\"key_7\": -1}"
    let input = Data(json.utf8)
    let dictionary = try LenientDecoder(policy: .strict).decode([String: Int].self, from: input)
    #expect(dictionary.count == count)
    #expect(dictionary["key_7"] == 7)
    // Through a keyed container (allKeys, then a lookup per key).
    let generic = try LenientDecoder(policy: .strict).decode(AnyJSON.self, from: input)
    guard case .object(let object) = generic else {
      Issue.record("not an object")
      return
    }
    #expect(object.count == count)
    #expect(object["key_7"] == .number(7))
    // With converted keys.
    var snake = LenientDecoder(policy: .strict)
    snake.keyDecodingStrategy = .convertFromSnakeCase
    #expect(try snake.decode([String: Int].self, from: input)["key_79999"] == 79_999)
    let tree = try JSON(data: input)
    #expect(tree["key_7"]?.numberValue?.text == "7")
  }

  @Test func theReportIsCappedWithAnExactCount() throws {
    let nulls = Data(
      ("[" + Array(repeating: "null", count: 5_000).joined(separator: ",") + "]").utf8)
    let result = try LenientDecoder().decodeWithReport([Int].self, from: nulls)
    #expect(result.value.isEmpty)
    #expect(result.report.entries.count == 1_000)
    #expect(result.report.omittedCount == 4_000)
    #expect(result.report.totalCount == 5_000)
    #expect(result.report.description.hasSuffix("… and 4000 more entries not stored"))
    var capped = LenientDecoder()
    capped.maxReportEntries = 10
    let small = try capped.decodeWithReport([Int].self, from: nulls)
    #expect(small.report.entries.count == 10)
    #expect(small.report.omittedCount == 4_990)
    #expect(!small.report.isEmpty)
  }
}
