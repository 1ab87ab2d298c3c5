import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import Testing

// The EnvelopeTesting names of ../shared/API.md (third round) and the README's contract-test
// listing, spelled as written there.

private struct ContractTestingUser: Decodable, Sendable {
  var id: Int
  var name: String
  var email: String?
}

@Suite struct APIContractTestingTests {
  @Test func acceptedDriftCases() {
    let cases: Set<AcceptedDrift> = [.none, .baseline]
    #expect(cases.count == 2)
  }

  @Test func decodeTakesEveryLabelAPIMdNames() throws {
    let user = try FixtureContract.decode(
      ContractTestingUser.self, fixture: "contracts/users/ada.json", envelope: .default, at: nil,
      decoder: LenientDecoder(), acceptedDrift: .none, filePath: #filePath)
    #expect(user.id == 18)
    let name = try FixtureContract.decode(
      String.self, fixture: "contracts/users/ada.json", at: "data.name")
    #expect(name == "Ada")
  }

  @Test(arguments: try FixtureRoot.fixtures(in: "contracts/users"))
  func userFixturesDecodeStrictly(fixture: String) {
    FixtureContract.expectDecodes(
      ContractTestingUser.self, fixture: fixture, envelope: .default, acceptedDrift: .none)
  }

  @Test func expectedBusinessFailure() throws {
    FixtureContract.expectBusinessFailure(fixture: "contracts/errors/expired.json", code: 1001)
    let status = try FixtureContract.businessFailure(fixture: "contracts/errors/expired.json")
    #expect(status.code == 1001)
    #expect(status.message == "token expired")
  }

  @Test func recordModeFromEnvironment() throws {
    let mode: RecordMode = try RecordMode.fromEnvironment(default: .missing)
    let ci = ProcessInfo.processInfo.environment["CI"].map {
      !["", "0", "false"].contains($0.lowercased())
    }
    if ProcessInfo.processInfo.environment[RecordMode.environmentKey] == nil {
      #expect(mode == (ci == true ? .never : .missing))
    }
  }
}
