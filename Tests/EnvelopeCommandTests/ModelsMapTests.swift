import EnvelopeCommand
import EnvelopeKit
import Foundation
import Testing

/// Objects whose keys are data are dictionaries `[String: T]`, and objects of one shape are one
/// type, so that a feed like Jenkins' update-center.json gives a short file that builds fast.
@Suite struct ModelsMapTests {
  /// `{"plugins": {KEY: {...}, ...}}` with `count` plugins, every third one with a key the others
  /// lack, and a date in every one.
  static func plugins(count: Int, key: (Int) -> String) -> String {
    let entries = (0..<count).map { index in
      let extra = index % 3 == 0 ? #","labels":["scm"]"# : ""
      return
        #""\#(key(index))":{"name":"p\#(index)","version":"1.\#(index)","size":\#(index),"#
        + #""released_at":"2024-01-02T03:04:05Z","dependencies":[{"name":"git","optional":false}]\#(extra)}"#
    }
    return #"{"id":"default","plugins":{"# + entries.joined(separator: ",") + "}}"
  }

  struct MapCase: Sendable, CustomTestStringConvertible {
    var name: String
    var key: @Sendable (Int) -> String
    var testDescription: String { name }
  }

  @Test(arguments: [
    MapCase(name: "plugin names (not identifiers)", key: { "workflow-step-\($0)" }),
    MapCase(name: "identifier-like keys, many of them", key: { "plugin_\($0)" }),
  ])
  func aMapOfSixHundredSameShapedObjectsIsADictionaryOfOneType(_ map: MapCase) {
    let body = Self.plugins(count: 600, key: map.key)
    let outcome = run(["models", "u.json", "--name", "UpdateCenter"], files: ["u.json": body])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    #expect(source.contains("  let plugins: [String: Plugin]\n"))
    #expect(source.contains("  struct Plugin: Codable, Sendable {\n"))
    #expect(source.contains("    let labels: [String]?\n"))  // missing from two plugins in three
    #expect(source.components(separatedBy: "struct ").count - 1 == 3)  // root, Plugin, Dependency
    #expect(source.split(separator: "\n").count < 60, "\(source.split(separator: "\n").count)")
    // One transform for the one type, not one per plugin.
    #expect(
      source.components(separatedBy: "decoder.transform(").count - 1 == 1
        && source.contains(#"decoder.transform(UpdateCenter.Plugin.self, key: "releasedAt""#))
  }

  struct ObjectCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var expected: String
    var testDescription: String { name }
  }

  @Test(arguments: [
    ObjectCase(
      name: "locale keys holding strings",
      body: #"{"names":{"en-GB":"Colour","en-US":"Color","fr-FR":"Couleur"}}"#,
      expected: "  let names: [String: String]\n"),
    ObjectCase(
      name: "ids as keys", body: #"{"seats":{"101":{"row":"A"},"102":null}}"#,
      expected: "  let seats: [String: Seat?]\n"),
    ObjectCase(
      name: "few identifier keys of one kind stay a struct",
      body: #"{"urls":{"html":"a","api":"b","docs":"c"}}"#,
      expected: "  let urls: Urls\n"),
    ObjectCase(
      name: "two odd keys are too few to tell",
      body: #"{"headers":{"content-type":"a","x-id":"b"}}"#,
      expected: "  let headers: Headers\n"),
    ObjectCase(
      name: "many keys of differing shapes stay a struct",
      body: "{\"config\":{"
        + (0..<25).map { #""k\#($0)":{"f\#($0)":1}"# }.joined(separator: ",") + "}}",
      expected: "  let config: Config\n"),
    ObjectCase(
      name: "odd keys of differing kinds stay a struct",
      body: #"{"meta":{"x-count":1,"x-name":"a","x-on":true}}"#,
      expected: "  let meta: Meta\n"),
  ])
  func anObjectIsADictionaryOnlyWhenItsKeysAreData(_ object: ObjectCase) {
    let source = run(["models", "b.json"], files: ["b.json": object.body]).output
    #expect(source.contains(object.expected), "\(source)")
  }

  @Test func objectsOfTheSameShapeAreOneType() {
    let body =
      #"{"author":{"name":"a","at":"2024-01-02T03:04:05Z"},"committer":{"name":"b","at":"2024-01-03T03:04:05Z"},"tagger":{"name":"c","at":"soon"},"sizes":{"small":{"w":1},"large":{"w":2}}}"#
    let source = run(["models", "c.json", "--name", "Commit"], files: ["c.json": body]).output
    #expect(
      source.contains("  let author: Author\n  let committer: Author\n  let tagger: Tagger\n"))
    #expect(source.contains("    let small: Small\n    let large: Small\n"))
    #expect(!source.contains("struct Committer"))
    #expect(!source.contains("struct Large"))
    #expect(source.contains("    let at: String\n"))  // "soon" is no date: Tagger is its own type
    // The shared type's transform once.
    #expect(source.components(separatedBy: "decoder.transform(").count - 1 == 1)
  }
}
