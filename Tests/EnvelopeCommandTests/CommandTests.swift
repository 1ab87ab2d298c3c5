import EnvelopeCommand
import EnvelopeKit
import Foundation
import Testing

/// Runs the command over in-memory files.
func run(_ arguments: [String], files: [String: String]) -> Command.Outcome {
  Command.run(arguments) { path in
    guard let text = files[path] else { throw CocoaError(.fileReadNoSuchFile) }
    return Data(text.utf8)
  }
}

@Suite struct CommandTests {
  let envelope =
    #"{"code":0,"msg":"ok","data":{"items":[{"price":12.5,"tags":["a"]},{"price":3}],"total":2}}"#

  @Test func inspectPrintsTheStatusAndAnOutlineOfData() {
    let outcome = run(["inspect", "body.json"], files: ["body.json": envelope])
    #expect(outcome.status == 0)
    let lines = outcome.output.split(separator: "\n").map {
      $0.split(separator: " ").joined(separator: " ")
    }
    #expect(lines.first == #"status success code 0 message "ok""#)
    #expect(lines.contains("data.items[].price number 12.5"))
    #expect(lines.contains(#"data.items[].tags[] string "a""#))
    #expect(lines.contains("data.total number 2"))
  }

  @Test func inspectTakesAFormatWithSuccessCodes() {
    let bank = #"{"retStatus":"001","retMsg":"declined","retBody":null}"#
    let outcome = run(
      ["inspect", "b.json", "--format", #"retStatus,retMsg,retBody,"000""#], files: ["b.json": bank]
    )
    #expect(outcome.output.hasPrefix(#"status   failure  code "001"  message "declined""#))
  }

  @Test func queryPrintsJSONTextOrAStringsText() {
    let files = ["b.json": envelope]
    #expect(
      run(["query", "b.json", "data.items[0]"], files: files).output
        == "{\"price\":12.5,\"tags\":[\"a\"]}\n")
    #expect(run(["query", "b.json", "msg"], files: files).output == "ok\n")
    let missing = run(["query", "b.json", "data.nope"], files: files)
    #expect(missing.status == 1)
    #expect(missing.error == "b.json: no value at data.nope\n")
  }

  @Test(arguments: [
    (["inspect", "bad.json"], "bad.json:2:3: "),
    (["inspect", "absent.json"], "absent.json: cannot read: "),
    (["models", "--frobnicate"], "unknown flag --frobnicate"),
    (["launch"], "unknown command launch"),
    ([], "usage: envelope"),
  ])
  func badInputIsOneLineAndExitTwo(arguments: [String], message: String) {
    let outcome = run(arguments, files: ["bad.json": "{\n  x"])
    #expect(outcome.status == 2)
    #expect(outcome.error.hasPrefix(message), "\(outcome.error)")
    #expect(outcome.output.isEmpty)
  }

  @Test func modelsMergeSamplesIntoStructsThatHoldEveryOne() {
    let first =
      #"{"code":0,"data":{"user_id":1,"name":"Ada","score":1,"tags":["x"],"profile":{"city":"Leeds"},"default":true}}"#
    let second =
      #"{"code":0,"data":{"user_id":"2","score":2.5,"tags":[],"profile":null,"default":false,"1st":null}}"#
    let outcome = run(
      ["models", "a.json", "b.json", "--envelope", "--name", "Account"],
      files: ["a.json": first, "b.json": second])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    #expect(source.contains("struct Account: Codable {"))
    #expect(source.contains("  var userId: JSON\n"))  // 1 and "2" disagree in kind
    #expect(source.contains("  var name: String?\n"))  // missing from the second sample
    #expect(source.contains("  var score: Double\n"))  // 1 and 2.5
    #expect(source.contains("  var tags: [String]\n"))
    #expect(source.contains("  var profile: Profile?\n"))
    #expect(source.contains("  var `default`: Bool\n"))
    #expect(source.contains("  var _1st: JSON?\n"))
    #expect(source.contains(#"    case userId = "user_id""#))
    #expect(source.contains(#"    case _1st = "1st""#))
    #expect(source.contains("struct Profile: Codable {\n  var city: String\n}"))
    // Deterministic: the same input gives the same text.
    #expect(
      run(
        ["models", "a.json", "b.json", "--envelope", "--name", "Account"],
        files: ["a.json": first, "b.json": second]
      )
      .output == source)
  }

  @Test func arraysOfObjectsAreNamedInTheSingularAndNullableElementsAreOptional() {
    let body =
      #"{"statuses":[{"id":1,"entries":[{"n":1}]},{"id":2,"entries":[]}],"scores":[1,null,3]}"#
    let source = run(["models", "b.json"], files: ["b.json": body]).output
    #expect(source.contains("  var statuses: [Status]\n"))
    #expect(source.contains("  var entries: [Entry]\n"))
    #expect(source.contains("  var scores: [Int?]\n"))
  }

  @Test func aModelAtAPathAndARootArray() {
    let body = #"{"page":{"rows":[{"a":1}]}}"#
    let source = run(["models", "b.json", "--at", "page.rows"], files: ["b.json": body]).output
    #expect(source.contains("typealias Root = [RootItem]"))
    #expect(source.contains("struct RootItem: Codable {\n  var a: Int\n}"))
  }

  @Test func deepNestingEndsInJSONSoLinesStayShort() {
    let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
    let source = run(["models", "d.json"], files: ["d.json": deep]).output
    #expect(source.contains("typealias Root = " + String(repeating: "[", count: 17) + "JSON"))
    #expect(source.split(separator: "\n").allSatisfy { $0.count <= 100 })
  }
}
