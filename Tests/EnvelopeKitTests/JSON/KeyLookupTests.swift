import Foundation
import Testing

@testable import EnvelopeKit

/// Key lookup, the rule every keyed container reads through: generated objects (duplicate keys,
/// keys sharing lengths and first and last bytes) asked in random orders through one cursor,
/// against the first occurrence worked out from the generated members themselves.
@Suite struct KeyLookupTests {
  /// `bytesEqual` against `==` on arrays, at every length up to past the short cases, for equal
  /// runs and for runs that differ in one byte at each position.
  @Test func shortComparisonsAgreeWithArrayEquality() {
    var random = SeededGenerator(state: 27)
    for count in 0...40 {
      for _ in 0..<20 {
        let left = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        var variants = [left]
        for position in 0..<count {
          var changed = left
          changed[position] &+= UInt8.random(in: 1...255, using: &random)
          variants.append(changed)
        }
        for right in variants {
          let equal = left.withUnsafeBufferPointer { a in
            right.withUnsafeBufferPointer { b in
              // A count of 0 may come with no base address; any pointer will do then.
              let dummy = UnsafePointer<UInt8>(bitPattern: 1)!
              return bytesEqual(a.baseAddress ?? dummy, b.baseAddress ?? dummy, count: count)
            }
          }
          #expect(equal == (left == right), "\(left) vs \(right)")
        }
      }
    }
  }

  /// Lookups in any order, missing keys among them, give the first occurrence's value.
  @Test func anyOrderOfLookupsFindsTheFirstOccurrence() throws {
    var random = SeededGenerator(state: 2_700)
    // Keys that collide in length and in first and last byte, so the cursor's filter and the
    // comparisons both get exercised.
    let pool = [
      "id", "ix", "name", "nave", "city", "cite", "a", "b", "is_active", "is_astute",
      "created_at", "creatED_at", "followers", "fol_lowers", "x_very_long_key_name_over_16",
      "x_very_long_key_name_over_17", "",
    ]
    for round in 0..<2_000 {
      let memberCount = Int.random(in: 0...14, using: &random)
      let keys = (0..<memberCount).map { _ in pool.randomElement(using: &random)! }
      let members = keys.enumerated().map { "\"\($0.element)\":\($0.offset)" }
      let document = try JSONDocument(
        data: Data("{\(members.joined(separator: ","))}".utf8), maxDepth: 8)
      var cursor = KeyCursor(object: 0)
      var asked = pool.shuffled(using: &random)
      asked += asked.shuffled(using: &random).prefix(4)
      for key in asked {
        let found = document.valueIndex(forKey: key, inObject: 0, cursor: &cursor)
        let expected = keys.firstIndex(of: key)
        #expect(
          found.map { document.rawText($0) } == expected.map { String($0) },
          "round \(round): \(key) in \(keys) after asking \(asked)")
      }
    }
  }
}
