import Foundation
import Testing

@testable import EnvelopeKit

/// The event type the parser hands over (the last type's text is reused while the bytes are
/// the same) against a model of the standard: the last `event` line of a block, its value
/// after one optional space, nil when empty or absent, invalid UTF-8 as U+FFFD. Types are drawn
/// from a set of prefixes of each other, the empty value and non-UTF-8 bytes; blocks with no
/// data and types set before them must not leak into the next event.
@Suite struct EventStreamParserTypeTests {
  static let types: [[UInt8]] = [
    Array("a".utf8), Array("ab".utf8), Array("abc".utf8), Array("b".utf8), [], Array(" ".utf8),
    Array("é".utf8), [0xC3], [0xC3, 0xA9, 0xFF], Array("content_block_delta".utf8),
    Array("content_block_delt".utf8),
  ]

  @Test(arguments: Array(1...8) as [UInt64])
  func eventTypesAreEachBlocksLastEventLine(seed: UInt64) {
    var random = SeededGenerator(state: seed)
    for run in 0..<300 {
      var body: [UInt8] = []
      var expected: [String?] = []
      for _ in 0..<Int.random(in: 1..<30, using: &random) {
        var type: [UInt8]?
        for _ in 0..<Int.random(in: 0..<3, using: &random) {
          let value = Self.types[Int.random(in: 0..<Self.types.count, using: &random)]
          body += Array("event:".utf8) + value + [0x0A]
          // One leading space is dropped from a field's value.
          type = value.first == 0x20 ? Array(value.dropFirst()) : value
        }
        let hasData = Int.random(in: 0..<5, using: &random) > 0
        if hasData { body += Array("data:1\n".utf8) }
        body.append(0x0A)
        if hasData {
          expected.append(type.flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) })
        }
      }
      var parser = EventStreamParser()
      var actual: [String?] = []
      var start = 0
      while start < body.count {
        let end = min(body.count, start + Int.random(in: 1..<12, using: &random))
        Array(body[start..<end]).withUnsafeBytes { raw in
          parser.feed(raw) { actual.append($0.event) }
        }
        start = end
      }
      #expect(
        actual == expected,
        "seed \(seed) run \(run) \(String(decoding: body, as: UTF8.self).debugDescription)")
      if actual != expected { return }
    }
  }
}
