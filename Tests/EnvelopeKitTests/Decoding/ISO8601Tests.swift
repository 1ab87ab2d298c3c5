import Foundation
import Testing

@testable import EnvelopeKit

/// `ISO8601.utcSeconds`, the byte-level fast path of `ValueTransform.iso8601`, against
/// Foundation's parser (the rule) over generated dates: every string it answers, it answers as
/// Foundation does, and it answers the common well-formed ones.
@Suite struct ISO8601Tests {
  static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

  @Test(arguments: [UInt64(1), 2, 3])
  func fastPathAgreesWithFoundation(seed: UInt64) {
    var random = SeededGenerator(state: seed)
    func pick(_ range: ClosedRange<Int>) -> Int {
      range.lowerBound + Int(random.next() % UInt64(range.count))
    }
    var answered = 0
    var failures: [String] = []
    for _ in 0..<5_000 {
      // Mostly valid, often out of range (month 13, day 31 of a short month, hour 24, second 60,
      // years outside the fast path), now and then a byte out of place.
      var text =
        "\(pick(1890...2410))-\(Self.two(pick(0...13)))-\(Self.two(pick(0...32)))T"
        + "\(Self.two(pick(0...24))):\(Self.two(pick(0...60))):\(Self.two(pick(0...60)))Z"
      if random.next() % 8 == 0 {
        var bytes = Array(text.utf8)
        bytes[Int(random.next() % UInt64(bytes.count))] =
          Array("0Z:-T x9".utf8)[
            Int(random.next() % 8)]
        text = String(decoding: bytes, as: UTF8.self)
      }
      guard let fast = ISO8601.utcSeconds(text) else { continue }
      answered += 1
      let foundation = try? Date(text, strategy: .iso8601)
      if foundation != fast {
        failures.append("\(text): ours \(fast), Foundation \(String(describing: foundation))")
      }
    }
    let agrees = failures.isEmpty
    #expect(agrees, "\(failures.count) differences: \(failures.prefix(5))")
    #expect(answered > 2_000, "the fast path answered only \(answered) of 5,000")
  }

  @Test(arguments: [
    "2013-01-12T04:56:32Z", "2000-02-29T23:59:59Z", "1900-01-01T00:00:00Z", "2399-12-31T23:59:59Z",
    "1970-01-01T00:00:00Z", "2024-02-29T12:00:00Z",
  ])
  func wellFormedDatesTakeTheFastPath(text: String) throws {
    let fast = try #require(ISO8601.utcSeconds(text))
    #expect(fast == (try Date(text, strategy: .iso8601)))
  }

  @Test(arguments: [
    "2013-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2013-01-12T24:00:00Z", "2013-01-12T04:56:60Z",
    "2013-01-12T04:56:32+01:00", "2013-01-12T04:56:32.5Z", "1899-12-31T23:59:59Z",
    "2013-1-12T04:56:32Z",
  ])
  func everythingElseGoesToFoundation(text: String) {
    #expect(ISO8601.utcSeconds(text) == nil)
  }
}
