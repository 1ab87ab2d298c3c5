import Foundation
import Testing

@testable import EnvelopeKit

/// The shared trait table answers from 256 direct-mapped slots filled as types are first met.
/// Hundreds of generic types that differ only in their arguments (arrays, Optionals and plain
/// structs nested in each other, so that a slot answered with another type's traits reads the
/// wrong way) are decoded from many tasks at once, first decodes included, through decoders
/// with and without a key mapping for one of them: every decode gives what a lone decode gives.
@Suite struct ConcurrentTraitSlotTests {
  protocol Node: Decodable, Sendable {
    /// The JSON this type reads; unique per type.
    static var json: String { get }
    /// The JSON it reads under `map(Left<Leaf>.self, key: "l", to: "m")`.
    static var mappedJSON: String { get }
    /// The leaf's number, through every level.
    var leaf: Int { get }
  }

  struct Leaf: Node {
    var v: Int
    static var json: String { #"{"v":7}"# }
    static var mappedJSON: String { json }
    var leaf: Int { v }
  }
  struct Left<T: Node>: Node {
    var l: T
    static var json: String { #"{"l":\#(T.json)}"# }
    static var mappedJSON: String {
      T.self == Leaf.self ? #"{"m":\#(T.mappedJSON)}"# : #"{"l":\#(T.mappedJSON)}"#
    }
    var leaf: Int { l.leaf }
  }
  struct Right<T: Node>: Node {
    var r: T
    static var json: String { #"{"r":\#(T.json)}"# }
    static var mappedJSON: String { #"{"r":\#(T.mappedJSON)}"# }
    var leaf: Int { r.leaf }
  }

  /// `depth` levels of `Left`, `Right`, arrays and Optionals over `T`: 4^0 + … + 4^depth types.
  static func types<T: Node>(_ type: T.Type, depth: Int, into types: inout [any Node.Type]) {
    types.append(type)
    guard depth > 0 else { return }
    Self.types(Left<T>.self, depth: depth - 1, into: &types)
    Self.types(Right<T>.self, depth: depth - 1, into: &types)
    Self.types([T].self, depth: depth - 1, into: &types)
    // An Optional at the top reads the same JSON as its wrapped type: only inside a struct.
    Self.types(Left<T?>.self, depth: depth - 1, into: &types)
  }

  static func decodes(_ type: any Node.Type, _ json: String, with decoder: LenientDecoder) -> Int? {
    try? decoder.decode(type, from: Data(json.utf8)).leaf
  }

  @Test func manyTypesOnManyTasksGetTheirOwnTraits() async {
    var all: [any Node.Type] = []
    Self.types(Leaf.self, depth: 4, into: &all)
    let types = all
    let strict = LenientDecoder(policy: .strict)
    // One type read from another key under a mapping: its traits are the mapping's.
    var mapping = LenientDecoder(policy: .strict)
    mapping.map(Left<Leaf>.self, key: "l", to: "m")
    let mapped = mapping
    let failures = await withTaskGroup(of: [String].self) { group in
      for task in 0..<16 {
        group.addTask {
          var failures: [String] = []
          var rng = SeededGenerator(state: UInt64(task))
          for index in types.indices.shuffled(using: &rng) {
            let type = types[index]
            let other = types[(index + 1) % types.count]
            if Self.decodes(type, type.json, with: strict) != 7 { failures.append("\(type)") }
            // (Left<T> and Left<T?> read the same JSON; an absent Optional reads as -1.)
            if other.json != type.json, Self.decodes(type, other.json, with: strict) == 7 {
              failures.append("\(type) read \(other.json)")
            }
            // Left<Leaf> (and every type holding it) reads "m" under the mapping.
            if Self.decodes(type, type.mappedJSON, with: mapped) != 7 {
              failures.append("\(type) under the mapping")
            }
            if type.mappedJSON != type.json, Self.decodes(type, type.json, with: mapped) == 7 {
              failures.append("\(type) read its unmapped key under the mapping")
            }
          }
          return failures
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    #expect(types.count == 341)
    #expect(failures.isEmpty, "\(failures.prefix(10))")
  }
}

extension Array: ConcurrentTraitSlotTests.Node where Element: ConcurrentTraitSlotTests.Node {
  static var json: String { "[" + Element.json + "]" }
  static var mappedJSON: String { "[" + Element.mappedJSON + "]" }
  var leaf: Int { first?.leaf ?? -1 }
}

extension Optional: ConcurrentTraitSlotTests.Node where Wrapped: ConcurrentTraitSlotTests.Node {
  static var json: String { Wrapped.json }
  static var mappedJSON: String { Wrapped.mappedJSON }
  var leaf: Int { self?.leaf ?? -1 }
}
