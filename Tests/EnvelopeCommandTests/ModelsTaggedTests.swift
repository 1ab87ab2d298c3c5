import EnvelopeCommand
import EnvelopeKit
import Foundation
import Testing

/// A key whose string values pick the shape of the object or of a sibling becomes a
/// `TaggedDecodable` enum, when the samples show at least two values with shapes that differ.
@Suite struct ModelsTaggedTests {
  let events = #"""
    [{"id":"1","type":"PushEvent","payload":{"push_id":10,"commits":[{"sha":"a"}]}},
     {"id":"2","type":"WatchEvent","payload":{"action":"started"}},
     {"id":"3","type":"PushEvent","payload":{"push_id":11,"commits":[]}}]
    """#

  @Test func aTypeThatPicksThePayloadIsATaggedEnumWithAnUnknownCase() {
    let outcome = run(["models", "e.json", "--name", "Events"], files: ["e.json": events])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    #expect(source.contains("typealias Events = [Event]\n"))
    #expect(source.contains(#"// "type" picks the shape of "payload": the samples hold 2 values"#))
    #expect(source.contains("enum Event: TaggedDecodable, TaggedEncodable, Sendable {\n"))
    #expect(source.contains("  case pushEvent(PushEvent)\n  case watchEvent(WatchEvent)\n"))
    #expect(source.contains("  case unknown(String?, JSON)\n"))
    #expect(source.contains(#"  static let tagPath: JSONPath = "type""#))
    #expect(source.contains(#"    "PushEvent": TaggedVariant(PushEvent.self) { .pushEvent($0) },"#))
    #expect(source.contains("static func unknown(tag: String?, json: JSON) -> Event? {"))
    // Each case holds the whole object without the tag; its payload is named after the tag.
    #expect(
      source.contains(
        "  struct PushEvent: Codable, Sendable {\n    let id: String\n"
          + "    let payload: PushEventPayload\n  }\n"))
    #expect(
      source.contains("  struct WatchEventPayload: Codable, Sendable {\n    let action: String\n"))
    #expect(!source.contains("let type: String"))
  }

  struct UntaggedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var testDescription: String { name }
  }

  @Test(arguments: [
    UntaggedCase(
      name: "one value only",
      body: #"[{"type":"a","p":{"x":1}},{"type":"a","p":{"y":1}}]"#),
    UntaggedCase(
      name: "values that never repeat",
      body: #"[{"type":"a","p":{"x":1}},{"type":"b","p":{"y":1}}]"#),
    UntaggedCase(
      name: "shapes that differ by an optional key",
      body:
        #"[{"role":"admin","name":"A","email":"e"},{"role":"member","name":"B"},{"role":"member","name":"C"}]"#
    ),
    UntaggedCase(
      name: "a tag missing from a sample",
      body:
        #"[{"type":"a","p":{"x":1}},{"type":"b","p":{"y":1}},{"p":{"y":2}},{"type":"b","p":{}}]"#),
  ])
  func keysThatDoNotPickAShapeStayStrings(_ untagged: UntaggedCase) {
    let source = run(["models", "b.json"], files: ["b.json": untagged.body]).output
    #expect(!source.contains("TaggedDecodable"), "\(source)")
    #expect(source.contains("struct RootItem: Codable, Sendable {"), "\(source)")
  }

  @Test func aTagThatPicksTheObjectsOwnKeysReadsTheWholeObject() {
    let body =
      #"{"shapes":[{"kind":"circle","radius":2.5},{"kind":"rect","width":3,"height":4},{"kind":"circle","radius":1}]}"#
    let source = run(["models", "s.json", "--public"], files: ["s.json": body]).output
    #expect(source.contains(#"// "kind" picks the shape of the object: the samples hold 2 values"#))
    #expect(source.contains("  public enum Shape: TaggedDecodable, TaggedEncodable, Sendable {\n"))
    #expect(source.contains("    case circle(Circle)\n"))
    #expect(source.contains("    case rect(Rect)\n"))
    #expect(source.contains("  public struct Rect: Codable, Sendable {\n"))
    #expect(source.contains(#"    public static let tagPath: JSONPath = "kind""#))
    let code = source.split(separator: "\n").filter { !$0.contains("//") }
    #expect(code.allSatisfy { $0.count <= 100 }, "\(code.filter { $0.count > 100 })")
  }
  /// A tag key that the text form of `JSONPath` would split (`event.type` → `event`, `type`;
  /// `a>b`; an all-digit key is an index) is written as one key component.
  @Test(arguments: [
    ("event.type", #"["event.type"]"#), ("a>b", #"["a>b"]"#), ("7", #"["7"]"#),
    ("type", #""type""#),
  ])
  func aTagKeyTheTextPathWouldSplitIsOneComponent(key: String, path: String) {
    let body =
      #"[{"\#(key)":"a","x":1,"x2":1},{"\#(key)":"a","x":2,"x2":2},{"\#(key)":"b","y":"s","y2":1}]"#
    let source = run(["models", "t.json"], files: ["t.json": body]).output
    #expect(source.contains("TaggedDecodable"), "\(source)")
    #expect(source.contains("  static let tagPath: JSONPath = \(path)\n"), "\(source)")
  }
  /// A tag value named like a type the generated file uses (`TaggedVariant` in `variants`,
  /// `JSONPath`, `CaseDefaultable`, …) must not name a struct that shadows it.
  @Test(arguments: [
    "TaggedVariant", "TaggedDecodable", "TaggedEncodable", "JSONPath", "CaseDefaultable",
    "EnvelopeFormat",
  ])
  func aTagValueNamedLikeALibraryTypeDoesNotShadowIt(value: String) {
    let body =
      #"[{"type":"\#(value)","a":1,"a2":1},{"type":"\#(value)","a":2,"a2":2},{"type":"b","c":"s","c2":1}]"#
    let source = run(["models", "t.json"], files: ["t.json": body]).output
    #expect(source.contains("TaggedDecodable"), "\(source)")
    #expect(!source.contains("struct \(value):"), "\(source)")
    #expect(!source.contains("(\(value).self)"), "\(source)")
  }
}
