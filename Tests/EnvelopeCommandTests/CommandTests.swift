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

  @Test(arguments: [["models", "--help"], ["inspect", "-h"], ["query", "body.json", "--help"]])
  func helpAfterACommandPrintsTheUsage(_ arguments: [String]) {
    let outcome = run(arguments, files: [:])
    #expect(outcome.status == 0)
    #expect(outcome.output == Command.usage + "\n")
    #expect(outcome.error.isEmpty)
  }

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
    #expect(source.contains("struct Account: Codable, Sendable {"))
    // 1 and "2" disagree in kind: the type the lenient decoder coerces both to, with a comment.
    #expect(
      source.contains(
        #"""
          // Samples of "user_id" disagree: 1, "2". Read as Int: the lenient policy coerces and reports
          // each; the strict one rejects them.
          let userId: Int

        """#))
    #expect(source.contains("  let name: String?\n"))  // missing from the second sample
    #expect(source.contains("  let score: Double\n"))  // 1 and 2.5
    #expect(source.contains("  let tags: [String]\n"))
    #expect(source.contains("  let profile: Profile?\n"))
    #expect(source.contains("  let `default`: Bool\n"))
    #expect(source.contains("  let _1st: JSON?\n"))
    // `.convertFromSnakeCase` reads user_id as userId: only "1st" needs a coding key.
    #expect(source.contains("    case userId\n"))
    #expect(source.contains(#"    case _1st = "1st""#))
    // Nested in the root type.
    #expect(source.contains("\n  struct Profile: Codable, Sendable {\n    let city: String\n  }\n"))
    #expect(source.contains("LenientDecoder.forAccount().decodeEnvelope(Account.self, from: body)"))
    #expect(source.contains("    decoder.keyDecodingStrategy = .convertFromSnakeCase\n"))
    // Deterministic: the same input gives the same text.
    #expect(
      run(
        ["models", "a.json", "b.json", "--envelope", "--name", "Account"],
        files: ["a.json": first, "b.json": second]
      )
      .output == source)
  }

  @Test func modelsOfAPlainAPIComeWithAPlainDecoder() {
    let repo = #"{"id":7,"full_name":"a/b","code":99}"#
    let plain = run(["models", "r.json", "--name", "Repo"], files: ["r.json": repo])
    #expect(plain.status == 0)
    // The decoder says there is no envelope, so a provider's `request` reads the whole body.
    #expect(plain.output.contains("    base.envelope = .plain\n"))
    #expect(plain.output.contains("//   let value = try await Provider<API>(decoder: .forRepo())"))
    #expect(plain.output.contains("//     .request(target, as: Repo.self)\n"))
    let wrapped = run(
      ["models", "e.json", "--envelope", "--name", "Page", "--at", "items"],
      files: ["e.json": envelope])
    #expect(wrapped.status == 0)
    #expect(!wrapped.output.contains(".plain"))
    #expect(wrapped.output.contains(#"//     .request(target, as: Page.self, inData: "items")"#))
  }

  @Test func codingKeysOnlyForKeysTheSnakeCaseStrategyCannotProduce() {
    let body = #"{"first_name":"A","createdBy":"B","URL":"x","display-name":"C","_id":1}"#
    let source = run(["models", "b.json"], files: ["b.json": body]).output
    #expect(
      source.contains("  let firstName: String\n  let createdBy: String\n  let url: String\n"))
    #expect(source.contains("  let displayName: String\n  let id: Int\n"))
    #expect(source.contains(#"    case url = "URL""#))
    #expect(source.contains(#"    case displayName = "display-name""#))
    #expect(source.contains(#"    case id = "_id""#))
    #expect(source.contains("    case firstName\n"))
    // Only snake_case keys: no CodingKeys at all.
    let plain = run(["models", "p.json"], files: ["p.json": #"{"user_id":1,"is_vip":true}"#])
    #expect(!plain.output.contains("CodingKeys"))
    // Two keys the strategy cannot tell apart: one property holds the samples of both.
    let clash = run(["models", "c.json"], files: ["c.json": #"{"user_id":1,"userId":2}"#]).output
    #expect(clash.contains("  let userId: Int\n"))
    #expect(clash.contains(#"// "userId" is read as `userId` too under `.convertFromSnakeCase`"#))
    let apart = run(
      ["models", "a.json", "b.json"],
      files: ["a.json": #"{"user_id":1,"userId":"x"}"#, "b.json": #"{"userId":"y"}"#]
    ).output
    #expect(apart.contains("  let userId: String?\n"))
    #expect(apart.contains(#"// Samples of "user_id" disagree: 1, "x"."#))
  }

  @Test func hostileKeysAndNamesStillMakeCodeThatCompiles() {
    let body =
      #"{"as":1,"self":"a","Self":"b","sendable":{"a":1},"coding_key":{"b":2},"huge":1e400,"root":{"c":3},"a_key_long_enough_that_its_property_and_type_do_not_fit_on_one_line_of_code":[{"d":4}]}"#
    let outcome = run(["models", "h.json", "--public"], files: ["h.json": body])
    #expect(outcome.status == 0, "\(outcome.error)")
    let source = outcome.output
    #expect(source.contains("  public let `as`: Int\n"))
    #expect(source.contains("  public let selfValue: String\n  /// \"Self\" in the JSON.\n"))
    #expect(source.contains(#"    case selfValue = "self""#))
    #expect(source.contains("  public let sendable: Sendable2\n"))  // not `struct Sendable`
    #expect(source.contains("  public let codingKey: CodingKey2\n"))
    #expect(source.contains("public struct Root: Codable, Sendable {"))  // the root is a struct
    #expect(source.contains("  public let root: Root2\n"))
    #expect(source.contains("  // 1e400 is beyond Double: kept as JSON, which keeps its text.\n"))
    let code = source.split(separator: "\n").filter { !$0.contains("//") }
    #expect(code.allSatisfy { $0.count <= 100 }, "\(code.filter { $0.count > 100 })")
    // A root that is a typealias keeps its name; samples that disagree there are named too.
    let list = run(["models", "l.json"], files: ["l.json": #"[{"root":{"a":1}}]"#]).output
    #expect(list.contains("typealias Root = [RootItem]\n"))
    #expect(list.contains("  let root: Root2\n"))
    let mixed = run(["models", "m.json"], files: ["m.json": #"[1,"2"]"#]).output
    #expect(mixed.contains("// Samples at the top level disagree: 1, \"2\"."))
    // The usage line reads the model where --at found it.
    let at = run(
      ["models", "e.json", "--envelope", "--at", "list", "--name", "Item"],
      files: ["e.json": #"{"code":0,"data":{"list":{"inner":[1]}}}"#]
    ).output
    #expect(at.contains(#"decodeEnvelope(Item.self, from: body, at: "list")"#))
  }

  @Test func datesURLsAndIDKeyedObjectsAreInferredFromEverySample() {
    let first =
      #"{"created_at":"2026-11-20T08:15:00Z","paid_at":1763626500000,"login_time":"1763626500","count":1763626500,"home":"https://a.example/x","seats":{"101":{"row":"A"}},"updated":"2026-11-20T08:15:00Z"}"#
    let second =
      #"{"created_at":"2026-11-21T09:00:00.250+01:00","paid_at":1763712000000,"login_time":1763712000,"count":3,"home":"https://b.example","seats":{"102":{"row":"B"},"103":null},"updated":"soon"}"#
    let source = run(
      ["models", "a.json", "b.json", "--name", "Event"],
      files: [
        "a.json": first, "b.json": second,
      ]
    ).output
    #expect(source.contains("  let createdAt: Date\n"))
    #expect(source.contains("  let paidAt: Date\n"))
    #expect(source.contains("  let loginTime: Date\n"))  // a number, or a string holding one
    #expect(source.contains("  let count: Int\n"))  // a number without a time word stays a number
    #expect(source.contains("  let home: URL\n"))
    #expect(source.contains("  let seats: [String: Seat?]\n"))
    #expect(source.contains("  let updated: String\n"))  // not a date in every sample
    #expect(source.contains(#"    decoder.transform(Event.self, key: "createdAt", .iso8601)"#))
    #expect(
      source.contains(#"    decoder.transform(Event.self, key: "paidAt", .millisecondsSince1970)"#))
    #expect(
      source.contains(#"    decoder.transform(Event.self, key: "loginTime", .secondsSince1970)"#))
    // Array elements have no transform of their own: ISO strings in a list stay strings.
    let list = run(["models", "l.json"], files: ["l.json": #"{"days":["2026-11-20T08:15:00Z"]}"#])
    #expect(list.output.contains("  let days: [String]\n"))
  }

  @Test func publicVarAndNamesWithoutStutter() {
    let body = #"{"item":[{"a":1}],"line_items":[{"b":2}],"data":[{"c":3}],"first_name":"A"}"#
    let source = run(["models", "b.json", "--public", "--var"], files: ["b.json": body]).output
    #expect(source.contains("public struct Root: Codable, Sendable {"))
    #expect(source.contains("  /// \"first_name\" in the JSON.\n  public var firstName: String\n"))
    #expect(
      source.contains("  public init(item: [Item], lineItems: [LineItem], data: [DataItem], "))
    #expect(source.contains("    self.firstName = firstName\n"))
    #expect(source.contains("public struct Item: Codable, Sendable {"))
    #expect(source.contains("public struct LineItem: Codable, Sendable {"))
    #expect(!source.contains("ItemItem"))
    #expect(source.contains("  public static func forRoot(policy: DecodingPolicy = .lenient)"))
    let plain = run(["models", "b.json"], files: ["b.json": body]).output
    #expect(plain.contains("struct Root: Codable, Sendable {\n  let item: [Item]\n"))
    #expect(!plain.contains("public"))
  }

  @Test func arraysOfObjectsAreNamedInTheSingularAndNullableElementsAreOptional() {
    let body =
      #"{"statuses":[{"id":1,"entries":[{"n":1}]},{"id":2,"entries":[]}],"scores":[1,null,3]}"#
    let source = run(["models", "b.json"], files: ["b.json": body]).output
    #expect(source.contains("  let statuses: [Status]\n"))
    #expect(source.contains("  let entries: [Entry]\n"))
    #expect(source.contains("  let scores: [Int?]\n"))
  }

  @Test func aModelAtAPathAndARootArray() {
    let body = #"{"page":{"rows":[{"a":1}]}}"#
    let source = run(["models", "b.json", "--at", "page.rows"], files: ["b.json": body]).output
    #expect(source.contains("typealias Root = [RootItem]"))
    #expect(source.contains("struct RootItem: Codable, Sendable {\n  let a: Int\n}"))
  }

  @Test func deepNestingEndsInJSONSoLinesStayShort() {
    let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
    let source = run(["models", "d.json"], files: ["d.json": deep]).output
    #expect(source.contains("typealias Root = " + String(repeating: "[", count: 17) + "JSON"))
    #expect(source.split(separator: "\n").allSatisfy { $0.count <= 100 })
  }
}
