import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct SnakeUser: Decodable, Equatable {
  var userId: Int
  var displayName: String
  var signedUpAt: Date
}

@Suite struct ContractDecoderOptionTests {
  static var snakeCase: LenientDecoder {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }

  @Test func aSnakeCaseFixturePassesWithASnakeCaseDecoder() throws {
    let user = try FixtureContract.decode(
      SnakeUser.self, fixture: "contracts/snake/user.json", envelope: .default,
      decoder: Self.snakeCase)
    #expect(user.userId == 18 && user.displayName == "Ada")
    #expect(
      FixtureContract.expectDecodes(
        SnakeUser.self, fixture: "contracts/snake/user.json", envelope: .default,
        decoder: Self.snakeCase) != nil)
  }

  @Test func withoutItTheStrictCheckReportsTheMissingKey() {
    #expect {
      try FixtureContract.decode(
        SnakeUser.self, fixture: "contracts/snake/user.json", envelope: .default)
    } throws: { error in
      "\(error)".contains("userId")
    }
  }

  @Test func theDecodersPolicyIsForcedStrictForTheCheck() {
    var lenient = Self.snakeCase
    lenient.policy = .lenient
    struct Typed: Decodable { var userId: String }  // "18" would be coerced leniently
    #expect(throws: ContractFailure.self) {
      try FixtureContract.decode(
        Typed.self, fixture: "contracts/snake/user.json", envelope: .default, decoder: lenient)
    }
  }
}

/// A route of a given loopback server.
struct CassetteTarget: TargetType {
  var baseURL: URL
  var path: String
  // Only a hang's bound: a call waits in the default session's queue (six connections to a
  // host) behind the calls of every suite running beside it, which on a loaded machine can take
  // longer than the 5 s this was.
  var timeout: TimeInterval { 30 }
}

/// A token that becomes "fresh" when refreshed, counting refreshes.
actor CassetteTokens {
  var token = "stale"
  var refreshes = 0
  func refresh() {
    refreshes += 1
    token = "fresh"
  }
}

struct CassetteUser: Decodable, Equatable { var id: Int; var name: String }
struct Count: Decodable, Equatable { var count: Int }

@Suite(.serialized) struct CassetteTests {
  let folder = makeFolder()

  func auth(_ tokens: CassetteTokens) -> AccessTokenPlugin {
    AccessTokenPlugin(token: { await tokens.token }, refresh: { await tokens.refresh() })
  }

  @Test func aRefreshFlowRecordedOnceReplaysWithNoServer() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("refresh.json")
    let server = try TestServer()
    let target = CassetteTarget(baseURL: server.baseURL, path: "/auth401")
    let recordTokens = CassetteTokens()
    let recorder = try CassetteTransport(file: file, mode: .all)
    let recorded = try await Provider<CassetteTarget>(
      transport: recorder, plugins: [auth(recordTokens)]
    ).request(target, as: CassetteUser.self)
    #expect(await recordTokens.refreshes == 1)
    server.stop()

    let replayTokens = CassetteTokens()
    let replay = try CassetteTransport(file: file, mode: .never)
    let replayed = try await Provider<CassetteTarget>(
      transport: replay, plugins: [auth(replayTokens)]
    ).request(target, as: CassetteUser.self)
    #expect(replayed == recorded)
    #expect(await replayTokens.refreshes == 1)  // the recorded 401 came first, then the 200
    let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    #expect(text.components(separatedBy: "\"status\" : 401").count == 2)
    #expect(!text.contains("Bearer stale") && !text.contains("Bearer fresh"))
  }

  @Test func askingMoreOftenThanRecordedIsAReplayError() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("twice.json")
    let server = try #require(TestServer.shared, "python3 must be available")
    let target = CassetteTarget(baseURL: server.baseURL, path: "/counter")
    let recorder = Provider<CassetteTarget>(
      transport: try CassetteTransport(file: file, mode: .all))
    let first = try await recorder.request(target, as: Count.self)
    let second = try await recorder.request(target, as: Count.self)
    let replay = Provider<CassetteTarget>(
      transport: try CassetteTransport(file: file, mode: .never))
    #expect(try await replay.request(target, as: Count.self) == first)
    #expect(try await replay.request(target, as: Count.self) == second)
    do {
      _ = try await replay.request(target, as: Count.self)
      Issue.record("a third answer came from a cassette of two")
    } catch ProviderError.underlying(let error as ReplayError, _) {
      #expect(error.timesRecorded == 2)
      #expect("\(error)".contains("asked 3 times but the cassette"))
    }
  }

  @Test func failedModeRecordsAndFailsThenReplaysAndPasses() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("failed.json")
    let server = try #require(TestServer.shared, "python3 must be available")
    let target = CassetteTarget(baseURL: server.baseURL, path: "/envelope/ok")
    try await withKnownIssue("record mode `failed` fails the run that records") {
      let provider = Provider<CassetteTarget>(
        transport: try CassetteTransport(file: file, mode: .failed))
      _ = try await provider.request(target, as: CassetteUser.self)
    } matching: { issue in
      "\(issue)".contains(file.lastPathComponent)
    }
    #expect(FileManager.default.fileExists(atPath: file.path))
    // The next run replays from the recording and records no issue.
    let again = Provider<CassetteTarget>(
      transport: try CassetteTransport(file: file, mode: .failed))
    #expect(
      try await again.request(target, as: CassetteUser.self) == CassetteUser(id: 1, name: "Ada"))
  }

  @Test func aRecordingTransportInFailedModeFailsTheTestThatRecorded() async throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try #require(TestServer.shared, "python3 must be available")
    let target = CassetteTarget(baseURL: server.baseURL, path: "/envelope/ok")
    let line = #line + 3
    try await withKnownIssue("record mode `failed` fails the run that records") {
      let provider = Provider<CassetteTarget>(
        transport: try RecordingTransport(folder: folder, mode: .failed))
      _ = try await provider.request(target, as: CassetteUser.self)
    } matching: { issue in
      // Reported where the test made the transport, not inside the library.
      issue.sourceLocation?.line == line
        && issue.sourceLocation?.fileName == "ContractRoundTwoTests.swift"
    }
    let again = Provider<CassetteTarget>(
      transport: try RecordingTransport(folder: folder, mode: .failed))
    #expect(
      try await again.request(target, as: CassetteUser.self) == CassetteUser(id: 1, name: "Ada"))
  }

  @Test func namedCassettesLiveUnderTheFixtureRootByTestFileAndName() throws {
    let cassette = try CassetteTransport.named(mode: .never)
    #expect(
      cassette.file.path.hasSuffix(
        "Fixtures/cassettes/ContractRoundTwoTests/namedCassettesLiveUnderTheFixtureRootByTestFileAndName.json"
      ))
  }
}
