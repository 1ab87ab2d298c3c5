import Foundation
import Testing

@testable import EnvelopeKit

// Input up to `JSONDocument.copiedInputLimit` bytes is scanned from a copy in the thread's spare
// input buffer (`JSONDocument.copying`), which the next small decode on that thread reuses.
// These hold what that may not change: reader errors, UTF-16 and UTF-32 input, the limit's
// two sides, a decode made from inside a model's `init(from:)` (it must not get the outer
// decode's buffer), and decodes on many threads at once (run them under `--sanitize=thread`
// too). Containers and decoders a model keeps past the decode are `EscapedContainerTests`'.

/// The decoder the model below decodes with from inside its own `init(from:)`.
private let nestedDecoder = LenientDecoder()

/// Decodes an inner document with `nestedDecoder` between two reads of its own, on the same
/// thread as the outer decode.
private struct Nesting: Decodable, Equatable {
  struct Inner: Decodable, Equatable {
    var id: Int
    var name: String
  }
  var before: String
  var inner: Inner
  var after: String

  enum CodingKeys: String, CodingKey {
    case before, raw, after
  }

  init(before: String, inner: Inner, after: String) {
    self.before = before
    self.inner = inner
    self.after = after
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    before = try container.decode(String.self, forKey: .before)
    let raw = try container.decode(String.self, forKey: .raw)
    inner = try nestedDecoder.decode(Inner.self, from: Data(raw.utf8))
    after = try container.decode(String.self, forKey: .after)
  }
}

private struct Row: Codable, Equatable {
  var id: Int
  var name: String
  var score: Double?
}

/// The reader error a `DecodingError.dataCorrupted` carries, if any.
private func readerError(of error: any Error) -> JSONReaderError? {
  guard case DecodingError.dataCorrupted(let context) = error else { return nil }
  return context.underlyingError as? JSONReaderError
}

@Suite struct SmallInputCopyTests {
  /// A decode inside `init(from:)` reads its own input, not the outer decode's copy, and the
  /// outer decode reads on as before it, with its own report; on the thread's first call and
  /// on the calls that reuse its buffers. (`after` comes first in the text and is read last:
  /// an inner copy written over the outer's bytes would change it.)
  @Test func aDecodeInsideInitFromLeavesTheOuterInputAlone() throws {
    let body = Data(
      #"{"after":"outer-2","before":"outer-1","raw":"{\"id\":\"7\",\"name\":\"inner\"}"}"#
        .utf8)
    for _ in 0..<4 {
      let decoded = try nestedDecoder.decodeWithReport(Nesting.self, from: body)
      #expect(
        decoded.value
          == Nesting(before: "outer-1", inner: .init(id: 7, name: "inner"), after: "outer-2"))
      // The inner `id` coercion is the inner decode's, not this one's.
      #expect(decoded.report.entries.isEmpty)
    }
  }

  /// The same through `decodeEnvelope`, between a business failure (read from the status
  /// alone) and malformed input, which throws the reader's error.
  @Test func envelopeDecodesOfSmallInputReadTheirOwnBytes() throws {
    let body = Data(
      #"{"code":0,"msg":"ok","data":{"after":"outer-2","before":"outer-1","raw":"{\"id\":7,\"name\":\"inner\"}"}}"#
        .utf8)
    let expected = Nesting(before: "outer-1", inner: .init(id: 7, name: "inner"), after: "outer-2")
    let failure = Data(#"{"code":401,"msg":"denied","data":{"after":1}}"#.utf8)
    let malformed = Data(#"{"code":0,"data":{"after":}}"#.utf8)
    #expect((try? JSONDocument(data: malformed, maxDepth: 512, allowsTrailingCommas: true)) == nil)
    for _ in 0..<3 {
      #expect(try nestedDecoder.decodeEnvelope(Nesting.self, from: body) == expected)
      #expect(throws: EnvelopeError.self) {
        try nestedDecoder.decodeEnvelope(Nesting.self, from: failure)
      }
      #expect(throws: DecodingError.self) {
        try nestedDecoder.decodeEnvelope(Nesting.self, from: malformed)
      }
      #expect(try nestedDecoder.decodeEnvelopeResult(Nesting.self, from: body).value == expected)
    }
  }

  /// Malformed small input throws the reader error `JSONDocument` finds in the same bytes,
  /// with its offset, line and column, as before the copy (and as larger input does).
  @Test(arguments: [
    "", " ", "{", "[1,", #"{"a":}"#, #"{"a" 1}"#, "[1 2]", #"{"a":tru}"#, "\u{FEFF}{}",
    #"["\u{1}"]"#, "[01]", "{}x", #"{"a":"\ud800"}"#, String(repeating: "[", count: 600),
    "[" + String(repeating: "1,", count: 1_100) + "]",
  ])
  func malformedSmallInputThrowsTheReadersError(text: String) throws {
    let data = Data(text.utf8)
    var expected: JSONReaderError?
    do {
      _ = try JSONDocument(data: data, maxDepth: 512, allowsTrailingCommas: true)
    } catch {
      expected = error
    }
    do {
      _ = try LenientDecoder().decode(JSON.self, from: data)
      #expect(expected == nil, "decoded what the reader rejects")
    } catch {
      #expect(
        readerError(of: error).map(String.init(describing:))
          == expected.map(String.init(describing:)))
    }
  }

  /// Small UTF-16 and UTF-32 input decodes as the same text past the limit does (both are
  /// transcoded on `scanning`'s path), in both policies.
  @Test(arguments: [
    String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian, .utf32BigEndian,
    .utf16, .utf32,
  ])
  func smallUTF16AndUTF32InputDecodesAsLargerInput(encoding: String.Encoding) throws {
    let text = #"[{"id":1,"name":"Zoë ☃","score":2.5},{"id":2,"name":"b"}]"#
    let small = try #require(text.data(using: encoding))
    let padded = text + String(repeating: " ", count: JSONDocument.copiedInputLimit)
    let large = try #require(padded.data(using: encoding))
    #expect(small.count <= JSONDocument.copiedInputLimit)
    #expect(large.count > JSONDocument.copiedInputLimit)
    for policy in [DecodingPolicy.lenient, .strict] {
      let decoder = LenientDecoder(policy: policy)
      let expected = try decoder.decode([Row].self, from: large)
      #expect(try decoder.decode([Row].self, from: small) == expected)
      #expect(expected.map(\.name) == ["Zoë ☃", "b"])
    }
  }

  /// Input at the limit and just past it (the other path) decodes alike, values and report.
  @Test(arguments: [-1, 0, 1])
  func inputAtTheLimitDecodesAsLargerInput(offset: Int) throws {
    let size = JSONDocument.copiedInputLimit + offset
    let head = #"[{"id":"1","name":"a"},{"id":2,"name":""#
    let tail = #""}]"#
    let text = head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail
    let data = Data(text.utf8)
    #expect(data.count == size)
    let decoded = try LenientDecoder().decodeWithReport([Row].self, from: data)
    #expect(decoded.value.map(\.id) == [1, 2])
    #expect(decoded.value[1].name.count == size - head.utf8.count - tail.utf8.count)
    #expect(decoded.report.entries.map(\.path) == ["[0].id"])
  }

  /// Many threads decode small input at once through one decoder, lenient and strict, each
  /// thread reusing its own buffers: every value, report and error is the one of its input.
  @Test func smallDecodesOnManyThreadsAtOnceReadTheirOwnInput() throws {
    let lenient = LenientDecoder()
    let strict = LenientDecoder(policy: .strict)
    let bodies = (0..<64).map { index in
      Data(
        #"[{"id":"\#(index)","name":"n\#(index)"},{"id":\#(index),"name":"m","score":1.5}]"#.utf8)
    }
    let failures = Failures()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for round in 0..<50 {
        let index = (thread * 50 + round) % bodies.count
        do {
          let decoded = try lenient.decodeWithReport([Row].self, from: bodies[index])
          let expected = [
            Row(id: index, name: "n\(index)", score: nil), Row(id: index, name: "m", score: 1.5),
          ]
          if decoded.value != expected || decoded.report.entries.map(\.path) != ["[0].id"] {
            failures.add("lenient \(index): \(decoded.value) \(decoded.report)")
          }
          do {
            _ = try strict.decode([Row].self, from: bodies[index])
            failures.add("strict \(index) did not throw")
          } catch DecodingError.typeMismatch(_, let context) {
            if formatCodingPath(context.codingPath) != "[0].id" {
              failures.add("strict \(index): \(context.codingPath)")
            }
          }
        } catch {
          failures.add("\(index): \(error)")
        }
      }
    }
    #expect(failures.all.isEmpty)
  }
}

/// Failures collected from many threads.
private final class Failures: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []

  func add(_ message: String) {
    lock.lock()
    defer { lock.unlock() }
    messages.append(message)
  }

  var all: [String] {
    lock.lock()
    defer { lock.unlock() }
    return messages
  }
}
