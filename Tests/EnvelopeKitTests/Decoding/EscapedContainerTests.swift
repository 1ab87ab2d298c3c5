import Foundation
import Testing

@testable import EnvelopeKit

// Containers and decoders that a model keeps past its `init(from:)` (Foundation allows it): they
// read the document they were made in, after the decode and after another decode by the same
// decoder, exactly as Foundation's read it, and never crash.

/// A model that keeps its containers and its decoder.
private struct Keeper: Decodable {
  enum Keys: String, CodingKey {
    case name, inner, list, number
  }
  enum InnerKeys: String, CodingKey {
    case id, tags
  }
  let keyed: KeyedDecodingContainer<Keys>
  let list: any UnkeyedDecodingContainer
  let inner: KeyedDecodingContainer<InnerKeys>
  let decoder: any Decoder

  init(from decoder: any Decoder) throws {
    keyed = try decoder.container(keyedBy: Keys.self)
    list = try keyed.nestedUnkeyedContainer(forKey: .list)
    inner = try keyed.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
    self.decoder = decoder
  }
}

/// Keepers one level down, in an array: their containers' coding paths run through the array.
private struct Outer: Decodable {
  let items: [Keeper]
}

/// What a kept `Keeper` reads now, or the error it throws, spelled so that EnvelopeKit's and
/// Foundation's answers compare.
private func reads(_ keeper: Keeper) -> [String] {
  func attempt(_ name: String, _ body: () throws -> String) -> String {
    do {
      return "\(name): \(try body())"
    } catch let DecodingError.typeMismatch(_, context) {
      return "\(name): typeMismatch at \(formatCodingPath(context.codingPath))"
    } catch let DecodingError.keyNotFound(key, context) {
      return
        "\(name): keyNotFound \(key.stringValue) at \(formatCodingPath(context.codingPath))"
    } catch {
      return "\(name): \(error)"
    }
  }
  var list = keeper.list
  return [
    attempt("path") { formatCodingPath(keeper.keyed.codingPath) },
    attempt("name") { try keeper.keyed.decode(String.self, forKey: .name) },
    attempt("number") { String(try keeper.keyed.decode(Double.self, forKey: .number)) },
    attempt("inner path") { formatCodingPath(keeper.inner.codingPath) },
    attempt("inner id") { String(try keeper.inner.decode(Int.self, forKey: .id)) },
    attempt("inner tags") { try keeper.inner.decode([String].self, forKey: .tags).joined() },
    attempt("list path") { formatCodingPath(list.codingPath) },
    attempt("list") { String(try list.decode(Int.self)) + String(try list.decode(Int.self)) },
    attempt("wrong type") { String(try keeper.keyed.decode(Int.self, forKey: .name)) },
    attempt("missing") { try keeper.inner.decode(String.self, forKey: .tags) },
  ]
}

private let first = Data(
  #"{"items":[{"name":"ada","number":1.5,"inner":{"id":7,"tags":["a","b"]},"list":[1,2]},{"name":"bob","number":2.5,"inner":{"id":8,"tags":["c"]},"list":[3,4]}]}"#
    .utf8)
private let second = Data(
  #"{"items":[{"name":"eve","number":9.5,"inner":{"id":99,"tags":["z"]},"list":[9,9]}]}"#
    .utf8)

@Suite struct EscapedContainerTests {
  /// Kept containers read what Foundation's read, after the decode and after the same decoder
  /// has decoded another document (whose values they must not see).
  @Test func keptContainersReadTheirOwnDocumentAfterTheDecodeAndASiblingDecode() throws {
    let decoder = LenientDecoder(policy: .strict)
    let kept = try decoder.decode(Outer.self, from: first)
    let expected = try JSONDecoder().decode(Outer.self, from: first).items.map(reads)
    #expect(kept.items.map(reads) == expected)
    #expect(expected[0].contains("name: ada") && expected[1].contains("inner path: items[1].inner"))
    // Another decode by the same decoder, and one of the kept model's own type.
    let sibling = try decoder.decode(Outer.self, from: second)
    _ = try decoder.decode(Keeper.self, from: Data(#"{"name":"x","inner":{},"list":[]}"#.utf8))
    #expect(kept.items.map(reads) == expected)
    #expect(
      sibling.items.map(reads)
        == (try JSONDecoder().decode(Outer.self, from: second)).items.map(reads))
  }

  /// Lenient policy: the same reads where the value is usable, a stand-in (no crash, no other
  /// document's value) where it is not.
  @Test func keptContainersOfALenientDecodeReadTheirOwnDocument() throws {
    let decoder = LenientDecoder()
    let kept = try decoder.decode(Outer.self, from: first)
    _ = try decoder.decode(Outer.self, from: second)
    let reads = kept.items.map(reads)
    #expect(reads[0].contains("name: ada") && reads[0].contains("inner tags: ab"))
    #expect(reads[1].contains("list: 34") && reads[1].contains("wrong type: 0"))
  }

  /// A kept decoder answers after its decode (a container or an error), whatever it is asked.
  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func aKeptDecoderAnswersAfterItsDecode(policy: DecodingPolicy) throws {
    let decoder = LenientDecoder(policy: policy)
    let kept = try decoder.decode(Outer.self, from: first)
    _ = try decoder.decode(Outer.self, from: second)
    for keeper in kept.items {
      _ = keeper.decoder.codingPath
      if let container = try? keeper.decoder.container(keyedBy: Keeper.Keys.self) {
        _ = container.allKeys
        _ = try? container.decode(String.self, forKey: .name)
      }
      _ = try? keeper.decoder.unkeyedContainer()
      _ = try? keeper.decoder.singleValueContainer().decode(String.self)
    }
  }
}
