import Foundation
import Testing

@testable import EnvelopeKit

/// The traits of a type with transforms are kept for the decoder's settings (not rebuilt per
/// decode), and belong to those settings alone: a copy with other transforms, or a call under
/// another envelope format, reads with its own.
@Suite struct TraitCacheTests {
  struct Tagged: Codable, Equatable {
    var tags: [String]
    var on: Bool
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict])
  func transformedTypesAreKeptPerSettings(_ policy: DecodingPolicy) throws {
    var commas = LenientDecoder(policy: policy)
    commas.transform(Tagged.self, key: "tags", .separated(by: ","))
    commas.transform(Tagged.self, key: "on", .flag(true: .string("yes"), false: .string("no")))
    var bars = commas
    bars.transform(Tagged.self, key: "tags", .separated(by: "|"))
    let body = Data(#"{"tags":"a,b|c","on":"yes"}"#.utf8)
    for _ in 0..<3 {
      #expect(try commas.decode(Tagged.self, from: body) == Tagged(tags: ["a", "b|c"], on: true))
      #expect(try bars.decode(Tagged.self, from: body) == Tagged(tags: ["a,b", "c"], on: true))
    }
    // The same settings' traits, whatever the call's envelope format.
    let wrapped = Data(#"{"code":0,"data":{"tags":"x,y","on":"no"}}"#.utf8)
    #expect(
      try commas.decodeEnvelope(Tagged.self, from: wrapped) == Tagged(tags: ["x", "y"], on: false))
    #expect(commas.baseOptions.mappedTraits !== bars.baseOptions.mappedTraits)
    #expect(commas.options(envelope: .default).mappedTraits === commas.baseOptions.mappedTraits)
  }

  /// Eight threads decode through one decoder whose mapped traits are made on first use.
  @Test func mappedTraitsAreSharedSafelyAcrossThreads() async throws {
    var decoder = LenientDecoder()
    decoder.transform(Tagged.self, key: "tags", .separated(by: ","))
    let body = Data(#"{"tags":"a,b","on":true}"#.utf8)
    let shared = decoder
    let results = try await withThrowingTaskGroup(of: Tagged.self) { group in
      for _ in 0..<8 { group.addTask { try shared.decode(Tagged.self, from: body) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.allSatisfy { $0 == Tagged(tags: ["a", "b"], on: true) })
  }
}
