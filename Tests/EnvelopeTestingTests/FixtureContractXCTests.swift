import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import XCTest

/// The XCTest flavour of the contract assertions. Failures the assertions raise on purpose are
/// captured by overriding the failure hook, so they are checked rather than failing the run.
final class FixtureContractXCTests: XCTestCase {
  private var capturing = false
  private var captured: [(message: String, file: String, line: Int)] = []

  #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
      guard capturing else { return super.record(issue) }
      captured.append(
        (
          issue.compactDescription, issue.sourceCodeContext.location?.fileURL.path ?? "",
          issue.sourceCodeContext.location?.lineNumber ?? 0
        ))
    }
  #else
    override func recordFailure(
      withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
      expected: Bool
    ) {
      guard capturing else {
        return super.recordFailure(
          withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
      }
      captured.append((description, filePath, lineNumber))
    }
  #endif

  func testAssertDecodesReturnsTheValue() {
    let user = FixtureContract.assertDecodes(
      ContractUser.self, fixture: "contracts/users/ada.json", envelope: .default)
    XCTAssertEqual(user, ContractUser(id: 18, name: "Ada", email: "ada@example.com"))
    XCTAssertNotNil(FixtureContract.assertBusinessFailure(fixture: "contracts/errors/expired.json"))
  }

  func testAssertDecodesFailsAtTheCallerWithTheMessage() {
    capturing = true
    let line = #line + 1
    let user = FixtureContract.assertDecodes(
      ContractUser.self, fixture: "contracts/drift/missing_name.json", envelope: .default)
    let businessLine = #line + 1
    FixtureContract.assertBusinessFailure(fixture: "contracts/users/ada.json", code: 1001)
    capturing = false

    XCTAssertNil(user)
    XCTAssertEqual(captured.count, 2)
    XCTAssertEqual(captured.first?.line, line)
    XCTAssertEqual(captured.first?.file, #filePath)
    XCTAssertTrue(
      captured.first?.message.contains(
        #"contracts/drift/missing_name.json: data.name: missing key "name" in object {"id": 18} at line 1, column 34"#
      ) == true, captured.first?.message ?? "")
    XCTAssertEqual(captured.last?.line, businessLine)
    XCTAssertTrue(
      captured.last?.message.contains(
        #"contracts/users/ada.json: expected a business failure, found success(code: 0, message: "ok")"#
      ) == true, captured.last?.message ?? "")
  }

  func testFailedRecordModeFailsThisXCTestAtTheLineThatMadeTheTransport() async throws {
    guard let server = TestServer.shared else { throw XCTSkip("python3 must be available") }
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    capturing = true
    let line = #line + 1
    let transport = try RecordingTransport(folder: folder, mode: .failed)
    let user = try await Provider<CassetteTarget>(transport: transport).request(
      CassetteTarget(baseURL: server.baseURL, path: "/envelope/ok"), as: CassetteUser.self)
    capturing = false

    XCTAssertEqual(user, CassetteUser(id: 1, name: "Ada"))
    XCTAssertEqual(captured.count, 1)
    XCTAssertEqual(captured.first?.line, line)
    XCTAssertEqual(captured.first?.file, #filePath)
    XCTAssertTrue(
      captured.first?.message.contains("GET_envelope_ok.json (record mode `failed`)") == true,
      captured.first?.message ?? "")
  }
}
