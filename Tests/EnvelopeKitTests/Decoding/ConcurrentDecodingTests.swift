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

  // A decoder's settings are shared by its copies until one changes: each copy keeps what it
  // had, and calls on many threads read one decoder's `userInfo` (made with its settings).
  @Test func copiesKeepTheirSettingsAndShareOneUserInfo() throws {
    let body = Data(#"{"status":7,"text":"ok","payload":{"id":"7","tags":[],"note":null}}"#.utf8)
    var custom = LenientDecoder()
    custom.envelope = EnvelopeFormat(
      code: "status", messages: ["text"], data: "payload", success: [7])
    let lenient = custom
    custom.policy = .strict
    custom.userInfo[.decodingPath] = JSONPath("payload")
    #expect(lenient.policy == .lenient && custom.policy == .strict)
    #expect(lenient.userInfo.isEmpty && custom.userInfo.count == 1)
    #expect(lenient.envelope.data == custom.envelope.data && custom.envelope.data == "payload")
    // The lenient copy reads "7" as an Int; the strict one does not.
    #expect(try lenient.decodeEnvelope(Plain.self, from: body).id == 7)
    #expect(throws: DecodingError.self) { try custom.decodeEnvelope(Plain.self, from: body) }

    let strict = custom
    let failures = ThreadCounter()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<100 {
        // RootModel reads the format from userInfo; DecodableWrapper reads its path there.
        let root = try? lenient.decode(RootModel<Plain>.self, from: body)
        if root?.code?.intValue != 7 || root?.data?.id != 7 { failures.add() }
        let wrapped = try? strict.decode(DecodableWrapper<String>.self, from: body)
        if wrapped != nil { failures.add() }  // strict: an object is not a String
        let text = try? lenient.decode(DecodableWrapper<JSON>.self, from: body)
        if text?.value["payload"]?["id"]?.stringValue != "7" { failures.add() }
      }
    }
    #expect(failures.value == 0)
  }
}

/// A count shared by threads.
final class ThreadCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func add() { lock.withLock { count += 1 } }
}
