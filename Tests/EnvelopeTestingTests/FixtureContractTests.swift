import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeTesting

struct ContractUser: Decodable, Equatable { var id: Int; var name: String; var email: String? }

@Suite struct FixtureContractTests {
  @Test func fixtureRootIsFoundFromTheTestFile() throws {
    let root = try #require(FixtureRoot.find())
    #expect(root.lastPathComponent == "Fixtures")
    #expect(FixtureRoot.find(from: "/nowhere/Tests/x.swift") == nil)
  }

  @Test func matchingFixtureDecodesStrictly() throws {
    let user = try FixtureContract.decode(
      ContractUser.self, fixture: "envelopes/code0_object.json", envelope: .default)
    #expect(user == ContractUser(id: 18, name: "Ada", email: "ada@example.com"))
  }

  @Test func interactionFixtureDecodesItsResponseBody() throws {
    let user = try FixtureContract.decode(
      ContractUser.self, fixture: "contracts/users/bob.json", envelope: .default)
    #expect(user == ContractUser(id: 19, name: "Bob", email: nil))
  }

  @Test func keyPathDecodesWithoutAnEnvelope() throws {
    let name = try FixtureContract.decode(
      String.self, fixture: "contracts/users/ada.json", at: "data.name")
    #expect(name == "Ada")
  }

  struct PlainRepo: Decodable, Equatable { var id: Int; var code: Int }

  @Test func aPlainFixtureIsTheValue() throws {
    // `code` is a member of the body, not an envelope code: a plain contract reads it as data.
    let repo = try FixtureContract.decode(
      PlainRepo.self, fixture: "contracts/plain/repo.json", envelope: .plain)
    #expect(repo == PlainRepo(id: 7, code: 99))
    #expect(
      try FixtureContract.decode(
        String.self, fixture: "contracts/plain/repo.json", envelope: .plain, at: "owner.login")
        == "ada")
    // A path with an envelope is inside its data.
    #expect(
      try FixtureContract.decode(
        String.self, fixture: "envelopes/code0_object.json", envelope: .default, at: "name")
        == "Ada")
    // Strictly: a drift in a plain body is named by its path from the root.
    #expect {
      try FixtureContract.decode(
        [String: String].self, fixture: "contracts/plain/repo.json", envelope: .plain)
    } throws: { error in
      "\(error)".contains("contracts/plain/repo.json") && "\(error)".contains("id")
    }
  }

  @Test func folderHelperListsFixturesSorted() throws {
    #expect(
      try FixtureRoot.fixtures(in: "contracts/users") == [
        "contracts/users/ada.json", "contracts/users/bob.json", "contracts/users/cy.json",
      ])
    let envelopes = try FixtureRoot.fixtures(in: "envelopes", excluding: ["manifest.json"])
    let files =
      (try? FileManager.default.contentsOfDirectory(atPath: packageFixturesPath("envelopes"))) ?? []
    #expect(
      envelopes.count == files.filter { $0.hasSuffix(".json") && $0 != "manifest.json" }.count)
    #expect(envelopes.count >= 45)
    #expect(envelopes == envelopes.sorted())
  }

  /// A parameterised contract over an empty argument list is reported as a skip ("No test
  /// cases found") and checks nothing: a folder that is missing or holds no fixture throws.
  @Test func aMissingOrEmptyFixtureFolderThrowsInsteadOfListingNothing() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "EnvelopeKitFixtures-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let manager = FileManager.default
    try manager.createDirectory(
      at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)
    try manager.createDirectory(
      at: root.appendingPathComponent("baselines-only"), withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: root.appendingPathComponent("baselines-only/a.drift.json"))
    try Data("{}".utf8).write(to: root.appendingPathComponent("baselines-only/manifest.json"))
    try manager.createDirectory(
      at: root.appendingPathComponent("one"), withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: root.appendingPathComponent("one/a.json"))

    for folder in ["missing", "empty"] {
      let error = try #require(throws: FixtureListError.self) {
        try FixtureRoot.fixtures(in: folder, root: root)
      }
      #expect("\(error)".contains(root.appendingPathComponent(folder).path), "\(error)")
    }
    #expect(throws: FixtureListError.self) {
      try FixtureRoot.fixtures(in: "baselines-only", excluding: ["manifest.json"], root: root)
    }
    #expect(try FixtureRoot.fixtures(in: "one", root: root) == ["one/a.json"])
    #expect(throws: FixtureListError.self) { try FixtureRoot.fixtures(in: "no-such-folder") }
  }

  @Test(arguments: try FixtureRoot.fixtures(in: "contracts/users"))
  func everyUserFixtureDecodes(fixture: String) {
    let user = FixtureContract.expectDecodes(
      ContractUser.self, fixture: fixture, envelope: .default)
    #expect(user != nil)
  }

  /// The checked-in example of a sloppy fixture and its baseline: passes in every record mode
  /// but `all` (which would rewrite the file), also on CI.
  @Test func theSloppyExampleMatchesItsCheckedInBaseline() throws {
    struct Item: Decodable { var id: Int; var name: String; var price: Decimal; var tags: [String] }
    struct Page: Decodable { var list: [Item]; var total: Int }
    let page = try RecordMode.$environment.withValue(["CI": "true"]) {
      try FixtureContract.decode(
        Page.self, fixture: "contracts/sloppy/page.json", envelope: .default,
        acceptedDrift: .baseline)
    }
    #expect(page.list.map(\.id) == [1001, 1002])
    #expect(page.list.first?.price == Decimal(string: "12.50"))
    #expect(try FixtureRoot.fixtures(in: "contracts/sloppy") == ["contracts/sloppy/page.json"])
  }

  @Test func typeDriftNamesPathTypeFoundValueLineAndReport() throws {
    let error = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(
        ContractUser.self, fixture: "contracts/drift/id_as_string.json", envelope: .default)
    }
    #expect(
      error.message == """
        contracts/drift/id_as_string.json: data.id: expected Int, found string "18" at line 5, column 11
          Expected to decode Int but found a string instead.
        Lenient decoding still succeeds; drift:
        path     kind     expected  found
        data.id  coerced  Int       string "18"
        """)
  }

  @Test func missingKeyShowsTheObjectThatLacksIt() throws {
    let error = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(
        ContractUser.self, fixture: "contracts/drift/missing_name.json", envelope: .default)
    }
    #expect(
      error.message == """
        contracts/drift/missing_name.json: data.name: missing key "name" in object {"id": 18} at line 1, column 34
        Lenient decoding still succeeds; drift:
        path       kind       expected  found
        data.name  defaulted  String    missing
        """)
  }

  @Test func driftInAnInteractionIsLocatedInTheFile() throws {
    let error = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(
        ContractUser.self, fixture: "contracts/drift/interaction_null_name.json", envelope: .default
      )
    }
    #expect(
      error.message == """
        contracts/drift/interaction_null_name.json: data.name: expected String, found null at line 11, column 17
          Cannot get value of type String -- found null value instead
        Lenient decoding still succeeds; drift:
        path       kind       expected  found
        data.name  defaulted  String    null
        """)
  }

  @Test func missingFixtureNamesThePath() throws {
    let error = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(ContractUser.self, fixture: "nope.json")
    }
    #expect(
      error.message.contains("fixture not found: ") && error.message.hasSuffix("Fixtures/nope.json")
    )
  }

  @Test func expectedBusinessFailurePasses() throws {
    let status = try FixtureContract.businessFailure(
      fixture: "contracts/errors/expired.json", code: 1001)
    #expect(status.message == "token expired")
    #expect(FixtureContract.expectBusinessFailure(fixture: "contracts/errors/expired.json") != nil)
  }

  @Test func businessFailureAssertionExplainsAMismatch() throws {
    let wrongCode = try #require(throws: ContractFailure.self) {
      try FixtureContract.businessFailure(fixture: "contracts/errors/expired.json", code: 401)
    }
    #expect(
      wrongCode.message
        == #"contracts/errors/expired.json: expected business code 401, found failure(code: 1001, message: "token expired")"#
    )
    let success = try #require(throws: ContractFailure.self) {
      try FixtureContract.businessFailure(fixture: "contracts/users/ada.json")
    }
    #expect(
      success.message
        == #"contracts/users/ada.json: expected a business failure, found success(code: 0, message: "ok")"#
    )
  }

  @Test func expectDecodesRecordsTheMessageAsAnIssue() {
    withKnownIssue {
      FixtureContract.expectDecodes(
        ContractUser.self, fixture: "contracts/drift/missing_name.json", envelope: .default)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        contracts/drift/missing_name.json: data.name: missing key "name" in object {"id": 18} at line 1, column 34
        Lenient decoding still succeeds; drift:
        path       kind       expected  found
        data.name  defaulted  String    missing
        """
      ]
    }
    withKnownIssue {
      FixtureContract.expectBusinessFailure(fixture: "contracts/users/ada.json")
    }
  }
}

/// A folder below the package's `Fixtures/`, found from this file.
func packageFixturesPath(_ folder: String) -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(folder)
    .path
}
