import EnvelopeKit
import Foundation
import Testing

/// Type traits are shared by every decode in the process: decodes of different models on many
/// threads at once, including the first decode of each type, give the values a lone decode gives.
@Suite struct ConcurrentDecodingTests {
  struct Plain: Codable, Equatable, Sendable {
    var id: Int
    var tags: [String]
    var note: String?
  }

  struct Defaults: LenientDecodable, Equatable, Sendable {
    var page = 1
    var name = "none"
  }

  struct Mapped: Decodable, Equatable, Sendable {
    var name: String
  }

  @Test func decodesOnManyThreadsAgreeWithALoneDecode() throws {
    let plain = Data(#"{"id":"7","tags":["a",1],"note":null}"#.utf8)
    let defaults = Data(#"{"name":null}"#.utf8)
    let mapped = Data(#"{"profile":{"name":"Ada"}}"#.utf8)
    var mapper = LenientDecoder()
    mapper.map(Mapped.self, key: "name", to: "profile.name")
    let mapping = mapper
    let expected = (
      try LenientDecoder().decode(Plain.self, from: plain),
      try LenientDecoder().decode(Defaults.self, from: defaults),
      try mapping.decode(Mapped.self, from: mapped)
    )
    #expect(expected.0 == Plain(id: 7, tags: ["a", "1"], note: nil))
    #expect(expected.1 == Defaults(page: 1, name: "none"))
    #expect(expected.2 == Mapped(name: "Ada"))
    let mismatches = ThreadCounter()
    DispatchQueue.concurrentPerform(iterations: 16) { thread in
      let decoder = LenientDecoder(policy: thread % 2 == 0 ? .lenient : .strict)
      for _ in 0..<200 {
        let plainValue = try? decoder.decode(Plain.self, from: plain)
        // Strict rejects the coercions; lenient gives the lone decode's value.
        if decoder.policy == .lenient ? plainValue != expected.0 : plainValue != nil {
          mismatches.add()
        }
        if (try? LenientDecoder().decode(Defaults.self, from: defaults)) != expected.1 {
          mismatches.add()
        }
        if (try? mapping.decode(Mapped.self, from: mapped)) != expected.2 { mismatches.add() }
        // The same type read without the mapping: the mapping must not leak across decoders.
        if (try? LenientDecoder(policy: .strict).decode(Mapped.self, from: mapped)) != nil {
          mismatches.add()
        }
      }
    }
    #expect(mismatches.value == 0)
  }
}

/// A count shared by threads.
final class ThreadCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func add() { lock.withLock { count += 1 } }
}
