import EnvelopeNetworking
import Foundation
import Testing

@Suite struct StatusCodesTests {
  /// A set written in each way a user can, against a `Set<Int>` oracle.
  struct Case: Sendable, CustomTestStringConvertible {
    var codes: StatusCodes
    var holds: Set<Int>
    var testDescription: String { codes.description }
  }

  @Test(arguments: [
    Case(codes: 200...299, holds: Set(200...299)),
    Case(codes: 200..<300, holds: Set(200...299)),
    Case(codes: [200, 204, 304], holds: [200, 204, 304]),
    Case(codes: StatusCodes(200...299).union([304]), holds: Set(200...299).union([304])),
    Case(
      codes: StatusCodes(ranges: [200...204, 203...210, 300...300]),
      holds: Set(200...210).union([300])),
    Case(codes: StatusCodes(Set([404, 400, 401])), holds: [400, 401, 404]),
    Case(codes: 299...200, holds: []),
    Case(codes: 300..<300, holds: []),
    Case(codes: [], holds: []),
  ])
  func eachWayOfWritingHoldsItsCodes(_ test: Case) {
    for code in 0...1_000 {
      #expect(test.codes.contains(code) == test.holds.contains(code), "\(code)")
    }
    #expect(test.codes == StatusCodes(test.holds))
    #expect(test.codes.isEmpty == test.holds.isEmpty)
  }

  /// The literal stays the standard library's elsewhere: `...` and `..<` on `Int` make a
  /// `StatusCodes` only where one is expected.
  @Test func rangeLiteralsStayRangesElsewhere() {
    let closed = 1...5
    let open = 1..<5
    #expect(type(of: closed) == ClosedRange<Int>.self)
    #expect(type(of: open) == Range<Int>.self)
    #expect(Array(3...4) == [3, 4])
    let codes: StatusCodes = 1...5
    #expect(codes.contains(5) && !codes.contains(6))
  }

  @Test func theDescriptionNamesRangesAndSingleCodes() {
    #expect(
      StatusCodes(ranges: [200...299, 304...304, 400...401]).description
        == "200...299, 304, 400...401")
  }

  /// A range as wide as `Int` allows ("accept anything") is described, not counted: its
  /// count does not fit in an `Int`.
  @Test(arguments: [
    (StatusCodes(0...Int.max), "0...\(Int.max)"),
    (StatusCodes(Int.min...Int.max), "\(Int.min)...\(Int.max)"),
    (StatusCodes([Int.max]), "\(Int.max)"),
  ])
  func theDescriptionOfTheWidestRangesDoesNotTrap(codes: StatusCodes, text: String) {
    #expect(codes.description == text)
  }

  /// Generated sets of ranges and codes (extremes included), against a `Set<Int>` oracle:
  /// membership, equality and hashing however the same codes were written, and union.
  @Test func generatedSetsAgreeWithASetOfInt() {
    var random = SeededGenerator(seed: 37)
    let extremes = [Int.min, Int.min + 1, -1, 0, Int.max - 1, Int.max]
    let probes = Array(90...620) + extremes
    for _ in 0..<300 {
      var ranges: [ClosedRange<Int>] = []
      var oracle = Set<Int>()
      for _ in 0..<Int.random(in: 0...5, using: &random) {
        let low = Int.random(in: 95...605, using: &random)
        let high = low + Int.random(in: 0...12, using: &random)
        ranges.append(low...high)
        oracle.formUnion(low...high)
      }
      // Another set near this one, to unite with it.
      let other = StatusCodes(ranges: ranges.map { ($0.lowerBound + 3)...($0.upperBound + 3) })
      let extreme = extremes.randomElement(using: &random) ?? 0
      ranges.append(extreme...extreme)
      oracle.insert(extreme)
      let codes = StatusCodes(ranges: ranges.shuffled(using: &random))
      let wrong = probes.filter { codes.contains($0) != oracle.contains($0) }
      #expect(wrong.isEmpty, "\(codes) is wrong about \(wrong)")
      let same = StatusCodes(oracle.shuffled(using: &random))
      #expect(codes == same, "\(codes) vs \(same)")
      #expect(codes.hashValue == same.hashValue)
      let union = codes.union(other)
      let wrongUnion = probes.filter {
        union.contains($0) != (codes.contains($0) || other.contains($0))
      }
      #expect(wrongUnion.isEmpty, "\(union) is wrong about \(wrongUnion)")
    }
  }
}
