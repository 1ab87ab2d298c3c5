import EnvelopeKit
import EnvelopeTesting
import Testing

struct ContractUser: Decodable, Equatable { var id: Int; var name: String; var email: String? }

@Suite struct FixtureContractTests {
  @Test func fixtureRootIsFoundFromTheTestFile() throws {
    let root = try #require(FixtureRoot.find())
    #expect(root.lastPathComponent == "Fixtures")
  }

  @Test func matchingFixtureDecodesStrictly() throws {
    let user = try FixtureContract.decode(
      ContractUser.self, fixture: "envelopes/code0_object.json", envelope: .default)
    #expect(user == ContractUser(id: 18, name: "Ada", email: "ada@example.com"))
  }

  @Test func driftIsExplainedWithPathAndReport() throws {
    let error = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(
        ContractUser.self, fixture: "envelopes/drift_id_as_string.json", envelope: .default)
    }
    #expect(
      error.message.hasPrefix(
        "envelopes/drift_id_as_string.json: at data.id: expected Int: Expected to decode Int but found a string instead."
      ))
    #expect(error.message.contains("Lenient decoding still succeeds; drift:"))
    #expect(error.message.contains(#"data.id  coerced  Int       string "18""#))
  }

  @Test func missingFixtureNamesThePath() throws {
    let error = try #require(throws: ContractFailure.self) {
      try FixtureContract.decode(ContractUser.self, fixture: "nope.json")
    }
    #expect(
      error.message.contains("fixture not found: ") && error.message.hasSuffix("Fixtures/nope.json")
    )
  }

  @Test func expectDecodesRecordsAnIssueOnDrift() {
    withKnownIssue {
      FixtureContract.expectDecodes(
        ContractUser.self, fixture: "envelopes/drift_id_as_string.json", envelope: .default)
    }
  }
}
