import Foundation
import Testing

@testable import EnvelopeKit

// Small input (up to `JSONDocument.copiedInputLimit` bytes) is scanned from the thread's spare
// input buffer, which the next small decode on that thread writes over. Whatever a model keeps
// of its decode (containers, its decoder, an error that holds the decoder, a container kept by
// a decode that then threw) must read its own bytes afterwards, as Foundation's read them,
// however many small decodes the thread makes in between, on any API and on any thread.

/// A model that keeps its containers and decoder, and reads nothing in `init(from:)`.
private struct Holder: Decodable {
  enum Keys: String, CodingKey {
    case name, id, list, inner
  }
  enum InnerKeys: String, CodingKey {
    case text
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

/// What a kept `Holder` reads now, spelled so that EnvelopeKit's and Foundation's compare.
private func reads(_ holder: Holder) -> [String] {
  func attempt(_ body: () throws -> String) -> String {
    do { return try body() } catch { return "error \(type(of: error))" }
  }
  var list = holder.list
  var values: [String] = []
  while !list.isAtEnd {
    values.append(attempt { try list.decode(String.self) })
    if values.count > 100 { break }
  }
  return [
    attempt { try holder.keyed.decode(String.self, forKey: .name) },
    attempt { String(try holder.keyed.decode(Int.self, forKey: .id)) },
    attempt { try holder.inner.decode(String.self, forKey: .text) },
    attempt {
      try holder.decoder.container(keyedBy: Holder.Keys.self).allKeys.map(\.stringValue).sorted()
        .joined(separator: ",")
    },
    values.joined(separator: "|"),
  ]
}

/// A small document whose values all depend on `seed`, of roughly `size` bytes.
private func body(_ seed: Int, size: Int = 300) -> Data {
  let word = String(
    repeating: Character(UnicodeScalar(UInt8(97 + seed % 26))), count: 1 + seed % 13)
  var items: [String] = []
  var length = 0
  var index = 0
  while length < size - 120 {
    let item = "\"\(word)\(index)é\""
    items.append(item)
    length += item.utf8.count + 1
    index += 1
  }
  let text =
    #"{"name":"n\#(seed)\#(word)","id":\#(seed * 7919),"inner":{"text":"t\#(seed)\#(word)"},"list":[\#(items.joined(separator: ","))]}"#
  return Data(text.utf8)
}

/// Decodes many other small documents (of every size up to the limit) on this thread.
private func churn(_ decoder: LenientDecoder, rounds: Int, from seed: Int) throws {
  for round in 0..<rounds {
    let size = 200 + (round * 997) % (JSONDocument.copiedInputLimit - 300)
    _ = try decoder.decode(JSON.self, from: body(seed + round, size: size))
    _ = try decoder.decodeWithReport([String: JSON].self, from: body(seed + round + 1, size: 150))
  }
}

/// A box a model writes what it keeps into before it throws.
private final class Stash: @unchecked Sendable {
  var holders: [Holder] = []
}

/// Keeps its containers in `stash` (the decode's user info), then throws.
private struct KeepsThenThrows: Decodable {
  struct Failure: Error {}
  init(from decoder: any Decoder) throws {
    let stash = stashKey.flatMap { decoder.userInfo[$0] } as? Stash
    stash?.holders.append(try Holder(from: decoder))
    throw Failure()
  }
}

/// An error that carries the decoder it was thrown from. Unchecked: it never leaves the test's
/// thread.
private struct CarriesDecoder: Error, @unchecked Sendable {
  let holder: Holder
}

private struct ThrowsWithDecoder: Decodable {
  init(from decoder: any Decoder) throws {
    throw CarriesDecoder(holder: try Holder(from: decoder))
  }
}

private let stashKey = CodingUserInfoKey(rawValue: "stash")

/// Foundation's reads of `data` through a kept `Holder`.
private func foundationReads(_ data: Data) throws -> [String] {
  reads(try JSONDecoder().decode(Holder.self, from: data))
}

@Suite struct SmallInputKeptTests {
  /// Kept containers of many small decodes read their own document after hundreds of further
  /// small decodes on the same thread (which reuse the spare input buffer), as Foundation's do.
  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func keptContainersReadTheirOwnBytesAfterManyMoreSmallDecodes(policy: DecodingPolicy) throws {
    let decoder = LenientDecoder(policy: policy)
    let inputs = (0..<24).map { body($0, size: 100 + $0 * 331) }
    #expect(inputs.allSatisfy { $0.count <= JSONDocument.copiedInputLimit })
    var kept: [Holder] = []
    for input in inputs {
      kept.append(try decoder.decode(Holder.self, from: input))
      try churn(decoder, rounds: 3, from: kept.count * 100)
    }
    try churn(decoder, rounds: 200, from: 10_000)
    let expected = try inputs.map(foundationReads)
    #expect(kept.map(reads) == expected)
    #expect(expected[3][0] == "n3dddd")
  }

  /// The same through every small-input entry point: `decode(_:from:at:)`, `decodeWithReport`,
  /// `decodeEnvelope`, `decodeEnvelopeWithReport` and `decodeEnvelopeResult`.
  @Test func keptContainersOfEveryEntryPointReadTheirOwnBytes() throws {
    let decoder = LenientDecoder(policy: .strict)
    var kept: [(Holder, Data)] = []
    for seed in 0..<6 {
      let data = body(seed, size: 400 + seed * 900)
      let text = String(decoding: data, as: UTF8.self)
      let wrapped = Data(#"{"data":{"page":\#(text)}}"#.utf8)
      let envelope = Data(#"{"code":0,"msg":"ok","data":\#(text)}"#.utf8)
      kept.append((try decoder.decode(Holder.self, from: wrapped, at: "data.page"), data))
      kept.append((try decoder.decodeWithReport(Holder.self, from: data).value, data))
      kept.append((try decoder.decodeEnvelope(Holder.self, from: envelope), data))
      kept.append(
        (try decoder.decodeEnvelopeWithReport(Holder.self, from: envelope, at: .root).value, data))
      kept.append(
        (try #require(decoder.decodeEnvelopeResult(Holder.self, from: envelope).value), data))
      try churn(decoder, rounds: 20, from: seed * 1000)
    }
    try churn(decoder, rounds: 100, from: 50_000)
    for (holder, data) in kept {
      // A kept decoder of a decode at a path answers from its own root, not the value's (as
      // on larger input): its keys are left out here.
      var got = reads(holder)
      var want = try foundationReads(data)
      got.remove(at: 3)
      want.remove(at: 3)
      #expect(got == want)
    }
  }

  /// Containers kept by a decode that then threw (in a box, and in the thrown error) read
  /// their own bytes after further small decodes.
  @Test func containersKeptByADecodeThatThrewReadTheirOwnBytes() throws {
    let stash = Stash()
    var decoder = LenientDecoder(policy: .strict)
    let key = try #require(stashKey)
    decoder.userInfo[key] = stash
    var carried: [Holder] = []
    let inputs = (0..<8).map { body($0 + 40, size: 250 + $0 * 1000) }
    for input in inputs {
      #expect(throws: KeepsThenThrows.Failure.self) {
        try decoder.decode(KeepsThenThrows.self, from: input)
      }
      do {
        _ = try decoder.decodeWithReport(ThrowsWithDecoder.self, from: input)
      } catch let error as CarriesDecoder {
        carried.append(error.holder)
      }
      try churn(decoder, rounds: 10, from: carried.count * 77)
    }
    try churn(decoder, rounds: 100, from: 90_000)
    let expected = try inputs.map(foundationReads)
    #expect(stash.holders.map(reads) == expected)
    #expect(carried.map(reads) == expected)
    // The kept decoders hold the options, whose user info holds the stash: break the cycle.
    stash.holders.removeAll()
  }

  /// A small `Data` slice that does not start at index 0 (and bytes before it that would
  /// change the value or its encoding) decodes as its own bytes.
  @Test(arguments: ["", "xyz", "\u{FEFF}", "\0\0", "{\"name\":\"wrong\"}"])
  func aSmallSliceDecodesItsOwnBytes(prefix: String) throws {
    let data = body(5, size: 500)
    let whole = Data(prefix.utf8) + data + Data("trailing]]".utf8)
    let slice = whole[(whole.startIndex + prefix.utf8.count)..<(whole.endIndex - 10)]
    #expect(slice.startIndex == prefix.utf8.count)
    #expect(Data(slice) == data)
    let decoder = LenientDecoder(policy: .strict)
    #expect(reads(try decoder.decode(Holder.self, from: slice)) == (try foundationReads(data)))
    #expect(
      try decoder.decode(JSON.self, from: slice) == (try decoder.decode(JSON.self, from: data)))
  }

  /// Containers kept on one thread are read on others while every thread keeps decoding small
  /// input (run under `--sanitize=thread` too).
  @Test func keptContainersReadOnOtherThreadsReadTheirOwnBytes() throws {
    let decoder = LenientDecoder(policy: .strict)
    let threads = 6
    let inputs = (0..<threads).map { body($0 * 3, size: 300 + $0 * 1200) }
    let expected = try inputs.map(foundationReads)
    final class Shelf: @unchecked Sendable {
      let lock = NSLock()
      var holders: [Int: Holder] = [:]
      var failures: [String] = []
    }
    let shelf = Shelf()
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      do {
        let holder = try decoder.decode(Holder.self, from: inputs[thread])
        shelf.lock.withLock { shelf.holders[thread] = holder }
        try churn(decoder, rounds: 40, from: thread * 1_000)
        // Read another thread's holder (whenever it is there) while decoding on.
        let other = (thread + 1) % threads
        for round in 0..<200 {
          if let found = shelf.lock.withLock({ shelf.holders[other] }) {
            let got = reads(found)
            if got != expected[other] {
              shelf.lock.withLock { shelf.failures.append("\(thread) read \(other): \(got)") }
            }
            break
          }
          try churn(decoder, rounds: 1, from: round)
        }
        if reads(holder) != expected[thread] {
          shelf.lock.withLock { shelf.failures.append("\(thread) own: \(reads(holder))") }
        }
      } catch {
        shelf.lock.withLock { shelf.failures.append("\(thread): \(error)") }
      }
    }
    #expect(shelf.failures.isEmpty)
  }
}
