import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one run of the concurrent flow gave: each request's user id (in the order the requests
/// were made) and how many refreshes ran.
struct ConcurrentRun: Equatable, CustomStringConvertible {
  var ids: [Int]
  var refreshes: Int
  var description: String { "ids \(ids), \(refreshes) refresh(es)" }
}

/// Signs in (the access token the login gives has already expired), then loads the profile from
/// `count` requests at once, the last `late` of them starting a few milliseconds after the
/// others, as requests from different parts of an app do: each gets a 401, one refresh runs,
/// each retries.
func loadProfileConcurrently(
  _ transport: any HTTPTransport, base: URL, count: Int = 5, late: Int = 2
) async throws -> ConcurrentRun {
  let session = RotationSession()
  let provider = Provider<RotationTarget>(transport: transport)
  let auth = AccessTokenPlugin(token: { await session.access }) {
    await session.countRefresh()
    let pair = try await provider.request(
      .refresh(base, token: await session.refreshToken), as: TokenPair.self)
    await session.store(pair)
  }
  let app = Provider<RotationTarget>(transport: transport, plugins: [auth])
  await session.store(try await app.request(.login(base, password: "kiwi"), as: TokenPair.self))
  let ids = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
    for index in 0..<count {
      group.addTask {
        let delay = index >= count - late ? 3 * (index - (count - late) + 1) : 0
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        return (index, try await app.request(.me(base), as: LoopUser.self).id)
      }
    }
    var ids = [Int](repeating: 0, count: count)
    for try await (index, id) in group { ids[index] = id }
    return ids
  }
  return ConcurrentRun(ids: ids, refreshes: await session.refreshes)
}

@Suite(.serialized) struct ConcurrentRefreshReplayTests {
  static let runs = 100

  /// A cassette of 5 concurrent requests on an expired token (two starting late), one refresh
  /// and 5 retries replays the same way 100 times in a row: the late requests carry the token
  /// the replayed refresh handed out (`<token 4>`) and get the answers recorded for it, never
  /// the 401 recorded for the expired one, so no second refresh starts.
  @Test func aConcurrentRefreshReplaysFromACassetteTheSameWay100Times() async throws {
    let file = makeFolder().appendingPathComponent("refresh.json")
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    let server = try TestServer()
    let recorder = try CassetteTransport(file: file, mode: .all)
    let recorded = try await loadProfileConcurrently(recorder, base: server.baseURL)
    #expect(recorded == ConcurrentRun(ids: [1, 1, 1, 1, 1], refreshes: 1))
    server.stop()

    var outcomes: [String: Int] = [:]
    for _ in 0..<Self.runs {
      let replay = try CassetteTransport(file: file, mode: .never)
      let outcome: String
      do {
        outcome = "\(try await loadProfileConcurrently(replay, base: server.baseURL))"
      } catch {
        outcome = "error: \(error)"
      }
      outcomes[outcome, default: 0] += 1
    }
    let cassette = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    #expect(outcomes == ["\(recorded)": Self.runs], "\(outcomes)\n\(cassette)")
  }

  /// The same flow recorded as a folder of files replays the same way 100 times in a row.
  @Test func aConcurrentRefreshReplaysFromAFolderTheSameWay100Times() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try TestServer()
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let recorded = try await loadProfileConcurrently(recorder, base: server.baseURL)
    #expect(recorded == ConcurrentRun(ids: [1, 1, 1, 1, 1], refreshes: 1))
    server.stop()

    var outcomes: [String: Int] = [:]
    for _ in 0..<Self.runs {
      let outcome: String
      do {
        outcome =
          "\(try await loadProfileConcurrently(ReplayTransport(folder: folder), base: server.baseURL))"
      } catch {
        outcome = "error: \(error)"
      }
      outcomes[outcome, default: 0] += 1
    }
    #expect(outcomes == ["\(recorded)": Self.runs], "\(outcomes)")
  }

  /// Requests that finish together are all kept: each appends its answer and writes the
  /// cassette under one lock (an older snapshot written last used to drop a newer answer).
  @Test func aCassetteRecordedConcurrentlyKeepsEveryInteraction() async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    for round in 0..<5 {
      let file = folder.appendingPathComponent("concurrent-\(round).json")
      let recorder = try CassetteTransport(wrapping: FixedTransport(), file: file, mode: .all)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<40 {
          group.addTask {
            let url = try #require(URL(string: "http://127.0.0.1:9/items/\(index)"))
            _ = try await recorder.send(URLRequest(url: url))
          }
        }
        try await group.waitForAll()
      }
      let json = try JSON(data: Data(contentsOf: file))
      #expect(json["interactions"]?.arrayValue?.count == 40, "round \(round)")
    }
  }

  /// A cassette that holds interactions but none for a request says so, with the request and
  /// the closest recordings, instead of calling the cassette empty.
  @Test func aCassetteWithoutTheRequestSaysWhatItHolds() async throws {
    let file = makeFolder().appendingPathComponent("refresh.json")
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    let server = try TestServer()
    _ = try await loadProfileConcurrently(
      try CassetteTransport(file: file, mode: .all), base: server.baseURL, count: 1, late: 0)
    server.stop()
    let replay = try CassetteTransport(file: file, mode: .never)
    let provider = Provider<RotationTarget>(transport: replay)
    do {
      _ = try await provider.response(RotationTarget(baseURL: server.baseURL, path: "/rot/nothing"))
      Issue.record("an unrecorded request was answered")
    } catch ProviderError.underlying(let error as ReplayError, _) {
      let text = "\(error)"
      #expect(!text.contains("no recordings"), "\(text)")
      #expect(text.contains("GET /rot/nothing"), "\(text)")
      #expect(text.contains("the cassette holds 4 recordings, none for this request"), "\(text)")
      #expect(text.contains("interactions[") && text.contains("differs: path"), "\(text)")
    }
  }
}
