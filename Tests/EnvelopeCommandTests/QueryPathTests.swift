import EnvelopeCommand
import Foundation
import Testing

/// `envelope query` reads `[n]` as an index and every other bracket as part of a key: a key
/// such as `tags[]` or `[` is found, never another value (the root) in its place.
@Suite struct QueryPathTests {
  static let document = #"{"[":3,"tags[]":["x"],"a":{"b[c]":true,"list":[[1,2],[3]]},"0":"zero"}"#

  @Test(arguments: [
    ("[", "3"), ("tags[]", "[\"x\"]"), ("tags[][0]", "x"), ("a.b[c]", "true"),
    ("a.list[1][0]", "3"), ("a.list.0.1", "2"), ("", Self.document),
  ])
  func aPathReachesItsValueAndNoOther(_ path: String, _ expected: String) {
    let outcome = run(["query", "d.json", path], files: ["d.json": Self.document])
    #expect(outcome.status == 0, "\(outcome.error)")
    #expect(outcome.output == expected + "\n")
  }
}
