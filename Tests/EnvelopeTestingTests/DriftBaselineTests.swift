import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

@testable import EnvelopeTesting

struct SloppyItem: Decodable, Equatable {
  var id: Int
  var price: Double
  var tags: [String]
}
struct SloppyPage: Decodable, Equatable {
  var list: [SloppyItem]
  var total: Int
}

/// Each test gets its own package-like folder (`Fixtures/` beside a would-be test file), so
/// baselines are written there and nowhere else.
@Suite final class DriftBaselineTests {
  let root = FileManager.default.temporaryDirectory.appendingPathComponent(
    "EnvelopeKitDrift-\(UUID().uuidString)")
  /// The `#filePath` of a test file in that package.
  var testFile: String { root.appendingPathComponent("Tests/AppTests/PageTests.swift").path }
  var baseline: URL { root.appendingPathComponent("Fixtures/pages/1.drift.json") }

  static let sloppy = """
    {"code": 0, "msg": "ok", "data": {
      "list": [
        {"id": "1001", "price": "12.50", "tags": null},
        {"id": "1002", "price": "3.10", "tags": ["new"]}
      ],
      "total": 2
    }}
    """

  deinit { try? FileManager.default.removeItem(at: root) }

  func write(_ text: String, to name: String = "pages/1.json") throws {
    let file = root.appendingPathComponent("Fixtures").appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: file)
  }

  func check(_ mode: String = "missing", ci: String? = nil) throws -> DriftOutcome<SloppyPage> {
    var environment = [RecordMode.environmentKey: mode]
    if let ci {
      environment = ["CI": ci]
    }
    return try RecordMode.$environment.withValue(environment) {
      try FixtureContract.check(
        SloppyPage.self, fixture: "pages/1.json", envelope: .default, at: nil,
        decoder: LenientDecoder(policy: .strict), acceptedDrift: .baseline, filePath: testFile)
    }
  }

  @Test func aSloppyFixtureWithItsBaselinePasses() throws {
    try write(Self.sloppy)
    // Strictly it fails for ever...
    #expect(throws: ContractFailure.self) {
      try FixtureContract.decode(
        SloppyPage.self, fixture: "pages/1.json", envelope: .default, filePath: testFile)
    }
    // ...the first baseline run writes what the app already copes with, and passes.
    let first = try check()
    #expect(first.value.list.map(\.id) == [1001, 1002])
    #expect(first.written == baseline)
    let accepted = try #require(
      try DriftBaseline(
        fixture: "pages/1.json",
        file:
          root
          .appendingPathComponent("Fixtures/pages/1.json")
      ).read())
    #expect(
      accepted == [
        DriftEntry(path: "data.list[*].id", kind: "coerced", expected: "Int", found: "string"),
        DriftEntry(
          path: "data.list[*].price", kind: "coerced", expected: "Double", found: "string"),
        DriftEntry(
          path: "data.list[*].tags", kind: "defaulted", expected: "Array<String>", found: "null"),
      ])
    let text = String(decoding: try Data(contentsOf: baseline), as: UTF8.self)
    #expect(
      text.contains(#""path" : "data.list[*].id""#) && text.contains(#""fixture" : "pages/1.json""#)
    )
    // Later runs compare and say nothing.
    let second = try check()
    #expect(second.written == nil && second.fixed.isEmpty && second.notes.isEmpty)
    // The Swift Testing helper passes too.
    let page = RecordMode.$environment.withValue([RecordMode.environmentKey: "never"]) {
      FixtureContract.expectDecodes(
        SloppyPage.self, fixture: "pages/1.json", envelope: .default, acceptedDrift: .baseline,
        filePath: testFile)
    }
    #expect(page?.total == 2)
  }

  @Test func newDriftFailsListingOnlyTheNewEntryWithItsPosition() throws {
    try write(Self.sloppy)
    _ = try check()
    try write(Self.sloppy.replacingOccurrences(of: #""total": 2"#, with: #""total": "2""#))
    let failure = try #require(throws: ContractFailure.self) { try self.check("never") }
    #expect(
      failure.message == """
        pages/1.json: drift not in the baseline 1.drift.json:
          data.total: coerced Int from string "2" at line 6, column 12
        """)
    // The Swift Testing helper records it at the caller.
    let line = #line + 3
    withKnownIssue {
      RecordMode.$environment.withValue([RecordMode.environmentKey: "never"]) {
        _ = FixtureContract.expectDecodes(
          SloppyPage.self, fixture: "pages/1.json", envelope: .default, acceptedDrift: .baseline,
          filePath: testFile)
      }
    } matching: { issue in
      "\(issue)".contains("data.total: coerced Int") && issue.sourceLocation?.line == line
    }
  }

  @Test func fixedDriftIsReportedSoTheBaselineCanShrink() throws {
    try write(Self.sloppy)
    _ = try check()
    try write(
      Self.sloppy.replacingOccurrences(of: #""1001""#, with: "1001")
        .replacingOccurrences(of: #""1002""#, with: "1002"))
    let outcome = try check("never")
    #expect(
      outcome.fixed == [
        DriftEntry(path: "data.list[*].id", kind: "coerced", expected: "Int", found: "string")
      ])
    #expect(outcome.notes.first?.contains("accepted drift no longer seen") == true)
    // In the Swift Testing helper it is a warning: the test passes.
    #if compiler(>=6.3)
      withKnownIssue {
        RecordMode.$environment.withValue([RecordMode.environmentKey: "never"]) {
          _ = FixtureContract.expectDecodes(
            SloppyPage.self, fixture: "pages/1.json", envelope: .default, acceptedDrift: .baseline,
            filePath: testFile)
        }
      } matching: { issue in
        issue.severity == .warning
          && "\(issue)".contains("data.list[*].id: coerced Int from string")
      }
    #endif
    // Record mode `all` rewrites the baseline without it.
    let rewritten = try check("all")
    #expect(rewritten.written == baseline)
    #expect(try check("never").fixed.isEmpty)
  }

  @Test func aMissingBaselineFailsOnCIAndInFailedMode() throws {
    try write(Self.sloppy)
    let onCI = try #require(throws: ContractFailure.self) { try self.check(ci: "true") }
    #expect(onCI.message.contains("no drift baseline at \(baseline.path)"))
    #expect(onCI.message.contains("data.list[*].id: coerced Int from string"))
    #expect(!FileManager.default.fileExists(atPath: baseline.path))
    let failed = try #require(throws: ContractFailure.self) { try self.check("failed") }
    #expect(failed.message.contains("recorded drift baseline"))
    #expect(FileManager.default.fileExists(atPath: baseline.path))
    #expect(try check("failed").value.total == 2)
  }

  @Test func messagesNameKeysAsTheDecoderReadsThem() throws {
    try write(
      #"{"code": 0, "msg": "ok", "data": {"user_id": "7", "has_more": true}}"#, to: "snake.json")
    struct Member: Decodable { var userId: Int; var hasMore: Bool }
    var decoder = LenientDecoder(policy: .strict)
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let failure = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(
        Member.self, fixture: "snake.json", envelope: .default, decoder: decoder,
        filePath: self.testFile)
    }
    #expect(
      failure.message.hasPrefix(
        #"snake.json: data.userId: expected Int, found string "7" at line 1, column 46"#),
      "\(failure.message)")
  }

  @Test func anEnvelopeDataPathIsReadAsWrittenUnderAKeyStrategy() throws {
    try write(
      #"{"code": 0, "msg": "ok", "ret_data": {"user_id": "7"}}"#, to: "ret.json")
    struct Member: Decodable { var userId: Int }
    var decoder = LenientDecoder(policy: .strict)
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let format = EnvelopeFormat(code: "code", message: "msg", data: "ret_data")
    let failure = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(
        Member.self, fixture: "ret.json", envelope: format, decoder: decoder,
        filePath: self.testFile)
    }
    #expect(
      failure.message.hasPrefix(
        #"ret.json: ret_data.userId: expected Int, found string "7" at line 1"#),
      "\(failure.message)")
  }

  @Test func reportPathsReadBack() {
    #expect(
      parseReportPath("data.list[12].id") == [.key("data"), .key("list"), .index(12), .key("id")])
    #expect(parseReportPath("[0][1]") == [.index(0), .index(1)])
    #expect(parseReportPath("<root>").isEmpty)
    #expect(DriftEntry.normalised("a[3].b[10][2].c[x]") == "a[*].b[*][*].c[x]")
  }
}
