import Foundation
import Testing

@testable import EnvelopeKit

// Regression tests for the defects of "Never silently wrong": each is named after what it
// protects, and each failed before its fix.

private struct Comment: Decodable, Equatable {
  var replies: [Comment]
}

private struct DeclaredHolder: LenientDecodable {
  var comment = Comment(replies: [])
}

/// A class decoding its superclass through `superDecoder()`.
private class ReplyBase: Decodable {
  let replies: [Comment]
  required init(from decoder: any Decoder) throws {
    replies = try Comment(from: decoder).replies
  }
}

private final class Reply: ReplyBase {
  let text: String
  enum Keys: String, CodingKey { case text }
  required init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    text = try container.decode(String.self, forKey: .text)
    try super.init(from: container.superDecoder())
  }
}

/// A model that forgives one field itself.
private struct Forgiving: Decodable {
  var comment: Comment?
  var count: Int
  var tags: [Int]
  enum CodingKeys: String, CodingKey { case comment, count, tags }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    comment = try? container.decode(Comment.self, forKey: .comment)
    count = try container.decode(Int.self, forKey: .count)
    tags = try container.decode([Int].self, forKey: .tags)
  }
}

private struct Post: Decodable, Equatable {
  var tags: OneOrMany<String>
}

private struct Link: Decodable, Equatable {
  var urls: OneOrMany<URL>
}

private struct Line: Decodable, Equatable {
  var name: String
  var cents: Int
}

private struct Basket: Decodable, Equatable {
  var items: [Line]
}

private struct Stamp: LenientDecodable {
  var at = Date(timeIntervalSince1970: 0)
  var since = Date(timeIntervalSince1970: 86_400)
}

private struct TransformedRoot: Decodable {
  var value: Int
}

/// Whether `body` threw a depth error (the `maxDepth` limit or the stack guard).
private func throwsDepthError(_ body: () throws -> Void) -> String {
  do {
    try body()
    return "returned"
  } catch let error as DecodingError {
    guard case .dataCorrupted(let context) = error else { return "other: \(error)" }
    let text = context.debugDescription
    return text.contains("deep") ? "depth" : "dataCorrupted: \(text)"
  } catch let error as JSONReaderError {
    return "\(error)".contains("deep") ? "depth" : "other: \(error)"
  } catch {
    return "other: \(error)"
  }
}

/// A comment tree whose `replies` are stringified JSON `levels` times, each level `perLevel`
/// comments deep (so `2 * perLevel` levels of nesting per string).
private func stringifiedComments(levels: Int, perLevel: Int) -> String {
  var inner = #"{"replies":[]}"#
  for _ in 0..<levels {
    var text = inner
    for _ in 0..<perLevel { text = #"{"replies":["# + text + "]}" }
    var quoted = ""
    quoted = JSON.string(text).rawText
    inner = #"{"replies":"# + quoted + "}"
  }
  return inner
}

@Suite struct NeverSilentlyWrongTests {
  static let wrappingLiterals = [
    "18446744073709551616", "36893488147419103232", "-18446744073709551616",
    "18446744073709551616.0", "18446744073709551616e0", "340282366920938463463374607431768211456",
    "1844674407370955161600000", "0.18446744073709551616e20",
  ]

  @Test(arguments: wrappingLiterals, [DecodingPolicy.lenient, .strict])
  func numberLiteralsBeyondUInt64DecodeAsDoubleStringDoes(_ literal: String, policy: DecodingPolicy)
    throws
  {
    let data = Data("[\(literal)]".utf8)
    let decoder = LenientDecoder(policy: policy)
    #expect(try decoder.decode([Double].self, from: data) == [Double(literal)])
    if let float = Float(literal), float.isFinite {
      #expect(try decoder.decode([Float].self, from: data) == [float])
    }
    #expect(try decoder.decode(Double.self, from: Data(literal.utf8)) == Double(literal))
    #expect(try JSONDecoder().decode([Double].self, from: data) == [Double(literal)])
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func depthLimitInStringifiedJSONIsNeverALenientFallback(_ policy: DecodingPolicy) {
    let json = Data(stringifiedComments(levels: 12, perLevel: 100).utf8)
    let outcome = throwsDepthError {
      _ = try LenientDecoder(policy: policy).decode(Comment.self, from: json)
    }
    if policy == .lenient {
      #expect(outcome == "depth")
    } else {
      #expect(outcome != "returned")
    }
    // Within the limit it decodes (lenient: coerced).
    let shallow = Data(stringifiedComments(levels: 2, perLevel: 20).utf8)
    #expect(throws: Never.self) { try LenientDecoder().decode(Comment.self, from: shallow) }
  }

  /// Every container kind that recovers leniently lets a depth error through.
  @Test func depthErrorsPassThroughEveryLenientContainer() async {
    await oneHeavyAtATime { depthErrorsPassThroughEveryLenientContainerBody() }
  }

  func depthErrorsPassThroughEveryLenientContainerBody() {
    let deep = stringifiedComments(levels: 12, perLevel: 100)
    struct Holder<T: Decodable>: Decodable { var value: T }
    func outcome<T: Decodable>(_ type: T.Type, _ json: String, at path: JSONPath? = nil) -> String {
      throwsDepthError {
        _ = try LenientDecoder().decodeWithReport(type, from: Data(json.utf8), at: path)
      }
    }
    #expect(outcome([Comment].self, "[\(deep)]") == "depth")
    #expect(outcome([String: Comment].self, #"{"a":\#(deep)}"#) == "depth")
    #expect(outcome(Holder<Comment?>.self, #"{"value":\#(deep)}"#) == "depth")
    #expect(outcome(Holder<OneOrMany<Comment>>.self, #"{"value":\#(deep)}"#) == "depth")
    #expect(outcome(Comment.self, deep) == "depth")
    #expect(outcome(Comment.self, #"{"data":\#(deep)}"#, at: "data") == "depth")
    let envelope = Data(#"{"code":0,"data":\#(deep)}"#.utf8)
    #expect(
      throwsDepthError { _ = try LenientDecoder().decodeEnvelope(Comment.self, from: envelope) }
        == "depth")
    var mapped = LenientDecoder()
    mapped.map(Holder<Comment>.self, key: "value", to: "other", "value")
    #expect(
      throwsDepthError {
        _ = try mapped.decode(Holder<Comment>.self, from: Data(#"{"value":\#(deep)}"#.utf8))
      } == "depth")
    // A declared value, Int keys, a superDecoder inside an array, a transform.
    #expect(outcome(DeclaredHolder.self, #"{"comment":\#(deep)}"#) == "depth")
    #expect(outcome([Int: Comment].self, #"{"1":\#(deep)}"#) == "depth")
    #expect(outcome([Reply].self, #"[{"super":\#(deep),"text":"a"}]"#) == "depth")
    var transformed = LenientDecoder()
    transformed.transform(
      Holder<Int>.self, key: "value", ValueTransform<Int> { json in json.arrayValue?.count ?? 0 })
    let deepArray = String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000)
    transformed.maxDepth = 3_000
    #expect(
      throwsDepthError {
        _ = try transformed.decode(
          [Holder<Int>].self, from: Data(#"[{"value":\#(deepArray)}]"#.utf8))
      } == "depth")
  }

  /// A depth error caught by a model's own `try?` does not turn the rest of the decode strict.
  @Test func aCaughtDepthErrorLeavesTheRestLenient() throws {
    let deep = stringifiedComments(levels: 12, perLevel: 100)
    let json = Data(#"{"comment":\#(deep),"count":"7","tags":[1,"x"]}"#.utf8)
    let result = try LenientDecoder().decodeWithReport(Forgiving.self, from: json)
    #expect(result.value.comment == nil)
    #expect(result.value.count == 7)
    #expect(result.value.tags == [1])
    let rest = result.report.entries.filter { !$0.path.hasPrefix("comment") }
    #expect(rest.map { "\($0.path) \($0.kind)" } == ["count coerced", "tags[1] dropped"])
  }

  @Test(arguments: [10_000, 100_000])
  func largeMaxDepthNeverCrashesOnASmallThread(_ maxDepth: Int) {
    let depth = maxDepth
    let result = onThread(stackSize: 512 * 1024) {
      let data = Data(
        (String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
      let envelope = Data(
        (#"{"code":"# + String(repeating: "[", count: depth - 1)
          + String(repeating: "]", count: depth - 1) + "}").utf8)
      var decoder = LenientDecoder()
      decoder.maxDepth = maxDepth
      var outcomes: [String] = []
      outcomes.append((try? JSON(data: data, maxDepth: maxDepth)) == nil ? "threw" : "value")
      outcomes.append((try? decoder.envelopeStatus(from: envelope)) == nil ? "threw" : "value")
      outcomes.append((try? decoder.decode(JSON.self, from: data)) == nil ? "threw" : "value")
      outcomes.append((try? decoder.text(at: "0", from: data)) == nil ? "threw" : "value")
      outcomes.append(
        (try? decoder.decodeEnvelope(JSON.self, from: envelope)) == nil ? "threw" : "value")
      var transformed = decoder
      transformed.transform(
        TransformedRoot.self, key: "value", ValueTransform<Int> { _ in 1 })
      let wrapped = Data(#"{"value":"#.utf8) + data + Data("}".utf8)
      outcomes.append(
        (try? transformed.decode(TransformedRoot.self, from: wrapped)) == nil ? "threw" : "value")
      return outcomes.joined(separator: ",")
    }
    // Every entry point returned (no crash) and threw: no JSON value that deep is built.
    #expect(result == "threw,threw,threw,threw,threw,threw")
  }

  /// The deepest `JSON` value can be compared, hashed, written and freed on a 512 KB thread.
  @Test func theDeepestJSONValueIsSafeOnASmallThread() throws {
    let depth = JSON.deepestValue
    let text =
      String(repeating: #"{"a":["#, count: depth / 2) + String(repeating: "]}", count: depth / 2)
    let result = onThread(stackSize: 512 * 1024) {
      guard var value = try? JSON(data: Data(text.utf8), maxDepth: .max) else { return "threw" }
      let copy = value
      var hasher = Hasher()
      value.hash(into: &hasher)
      let written = value.rawText
      let equal = copy == value
      value = .null
      return equal && written == text ? "ok" : "differs"
    }
    #expect(result == "ok")
    let tooDeep = "[" + text + "]"
    #expect(throws: JSONReaderError.self) { try JSON(data: Data(tooDeep.utf8), maxDepth: .max) }
  }

  @Test func largeMaxDepthNeverCrashesInATask() async {
    let depth = 100_000
    let outcome = await Task.detached { () -> Bool in
      let data = Data(
        (String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
      return (try? JSON(data: data, maxDepth: depth)) != nil
    }.value
    _ = outcome
  }

  @Test func oneOrManyOfAStringIsNotDrift() throws {
    let result = try LenientDecoder().decodeWithReport(
      Post.self, from: Data(#"{"tags":"swift"}"#.utf8))
    #expect(result.value.tags.values == ["swift"])
    #expect(result.report.isEmpty, "\(result.report)")
    let many = try LenientDecoder().decodeWithReport(
      Post.self, from: Data(#"{"tags":["a","b"]}"#.utf8))
    #expect(many.value.tags.values == ["a", "b"])
    #expect(many.report.isEmpty)
  }

  @Test func oneOrManyOfAURLDecodesInBothPolicies() throws {
    let json = Data(#"{"urls":"https://example.com/a"}"#.utf8)
    let strict = try LenientDecoder(policy: .strict).decode(Link.self, from: json)
    let lenient = try LenientDecoder().decodeWithReport(Link.self, from: json)
    #expect(lenient.value == strict)
    #expect(lenient.report.isEmpty)
  }

  @Test func nullDictionaryValuesFollowOneRuleWhateverTheKeyType() throws {
    let json = Data(#"{"1":"one","3":null}"#.utf8)
    let byInt = try LenientDecoder().decodeWithReport([Int: String].self, from: json)
    let byString = try LenientDecoder().decodeWithReport([String: String].self, from: json)
    #expect(byInt.value == [1: "one"])
    #expect(byString.value == ["1": "one"])
    #expect(byInt.report.entries.map(\.kind) == [.dropped])
    #expect(byString.report.entries.map(\.kind) == [.dropped])
    #expect(byInt.report.entries.map(\.path) == byString.report.entries.map(\.path))
  }

  @Test func aThrowingTransformFallsBackAsAnUnusableValueDoes() throws {
    var decoder = LenientDecoder()
    decoder.transform(
      Line.self, key: "cents",
      .integerText(expected: "cents"))
    let json = Data(#"{"items":[{"name":"a","cents":"5"},{"name":"b","cents":"x"}]}"#.utf8)
    let transformed = try decoder.decodeWithReport(Basket.self, from: json)
    let plain = try LenientDecoder().decodeWithReport(Basket.self, from: json)
    #expect(transformed.value.items.map(\.name) == ["a", "b"])
    #expect(transformed.value == plain.value)
    #expect(transformed.report.entries.map(\.kind) == [.defaulted])
    let plainDefaults = plain.report.entries.filter { $0.kind == .defaulted }
    #expect(transformed.report.entries.map(\.path) == plainDefaults.map(\.path))
    #expect(transformed.report.entries.map(\.expected) == plainDefaults.map(\.expected))
  }

  /// A throwing `Date` transform falls back as an unusable `Date` does (the 1970 epoch under
  /// `.secondsSince1970`), and a declared value wins over the empty one.
  @Test func aThrowingDateTransformFallsBackAndKeepsDeclaredValues() throws {
    var decoder = LenientDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    var transformed = decoder
    transformed.transform(Stamp.self, key: "at", .iso8601)
    transformed.transform(Stamp.self, key: "since", .iso8601)
    let json = Data(#"{"at":"soon","since":"later"}"#.utf8)
    let plain = try decoder.decodeWithReport(Stamp.self, from: json)
    let result = try transformed.decodeWithReport(Stamp.self, from: json)
    #expect(result.value.at == plain.value.at)
    #expect(result.value.at == Date(timeIntervalSince1970: 0))
    #expect(result.value.since == Stamp().since)
    #expect(result.report.entries.map(\.kind) == [.defaulted, .defaulted])
    #expect(result.report.entries.map(\.path) == plain.report.entries.map(\.path))
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func utf32LittleEndianWithAByteOrderMarkDecodes(_ policy: DecodingPolicy) throws {
    var data = Data([0xFF, 0xFE, 0x00, 0x00])
    data.append(#""hello""#.data(using: .utf32LittleEndian) ?? Data())
    #expect(try LenientDecoder(policy: policy).decode(String.self, from: data) == "hello")
    var big = Data([0x00, 0x00, 0xFE, 0xFF])
    big.append(#"[1]"#.data(using: .utf32BigEndian) ?? Data())
    #expect(try LenientDecoder(policy: policy).decode([Int].self, from: big) == [1])
  }

  /// Every UTF encoding Foundation detects, with and without a byte order mark, against
  /// Foundation's decoder: a top-level string, number, array and object.
  @Test(arguments: [
    String.Encoding.utf8, .utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian,
    .utf32BigEndian,
  ])
  func everyUTFEncodingDecodesAsFoundationDecodes(_ encoding: String.Encoding) throws {
    let boms: [String.Encoding: [UInt8]] = [
      .utf8: [0xEF, 0xBB, 0xBF], .utf16LittleEndian: [0xFF, 0xFE], .utf16BigEndian: [0xFE, 0xFF],
      .utf32LittleEndian: [0xFF, 0xFE, 0x00, 0x00], .utf32BigEndian: [0x00, 0x00, 0xFE, 0xFF],
    ]
    let documents = [#""a""#, #""hello""#, #""""#, "7", "[1]", #"{"a":"é"}"#, #" "x" "#]
    for document in documents {
      for bom in [[], boms[encoding] ?? []] {
        let data = Data(bom) + (document.data(using: encoding) ?? Data())
        let expected = try LenientDecoder(policy: .strict).decode(
          JSON.self, from: Data(document.utf8))
        let ours = try? LenientDecoder(policy: .strict).decode(JSON.self, from: data)
        #expect(ours == expected, "\(encoding) bom \(bom) \(document)")
        // Where Foundation decodes, it agrees. (It fails on a top-level string in UTF-16 without a
        // byte order mark, and on Linux on UTF-32LE with one; both documented differences.)
        if let foundation = try? JSONDecoder().decode(JSON.self, from: data) {
          #expect(foundation == expected, "\(encoding) bom \(bom) \(document)")
        }
      }
    }
  }

  /// swift-foundation's own test: a UTF-32LE top-level string after the bytes FE FF 00 00
  /// decodes; mismatched marks throw.
  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func utf32LittleEndianAfterSwiftFoundationsMarkDecodes(_ policy: DecodingPolicy) throws {
    let json = #""👍🏻""#
    let decoder = LenientDecoder(policy: policy)
    let mark = Data([0xFE, 0xFF, 0, 0])
    #expect(
      try decoder.decode(String.self, from: mark + (json.data(using: .utf32LittleEndian) ?? Data()))
        == "👍🏻")
    #expect(throws: (any Error).self) {
      try decoder.decode(String.self, from: mark + (json.data(using: .utf32BigEndian) ?? Data()))
    }
    #expect(throws: (any Error).self) {
      try decoder.decode(
        String.self, from: Data([0xFE, 0xFF]) + (json.data(using: .utf32LittleEndian) ?? Data()))
    }
  }

  @Test func decodableWrapperOfAnOptionalReportsOnlyWhatStrictRejects() throws {
    let json = Data(#"{"data":[1]}"#.utf8)
    var decoder = LenientDecoder()
    decoder.userInfo[.decodingPath] = JSONPath("data.0")
    let lenient = try decoder.decodeWithReport(DecodableWrapper<Int?>.self, from: json)
    #expect(lenient.value.value == 1)
    #expect(lenient.report.isEmpty, "\(lenient.report)")
    decoder.userInfo[.decodingPath] = JSONPath("data")
    var strictDecoder = decoder
    strictDecoder.policy = .strict
    let strict = try? strictDecoder.decode(DecodableWrapper<Int?>.self, from: json)
    let whole = try decoder.decodeWithReport(DecodableWrapper<Int?>.self, from: json)
    #expect((strict == nil) == !whole.report.isEmpty, "\(whole.report)")
  }

  @Test func anEmptyEnvelopePayloadIsOneRuleInBothPolicies() throws {
    let json = Data(#"{"code":0,"data":null}"#.utf8)
    let strict = try LenientDecoder(policy: .strict).decodeEnvelopeWithReport(
      [Int].self, from: json)
    let lenient = try LenientDecoder().decodeEnvelopeWithReport([Int].self, from: json)
    #expect(strict.value == [])
    #expect(lenient.value == [])
    #expect(lenient.report.isEmpty == strict.report.isEmpty)
  }
}
