import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

private struct Row: Decodable, Equatable, Sendable {
  var id: Int
  var price: Double
}

private struct Delta: Decodable, Equatable, Sendable { var delta: String }

@Suite struct StreamContractTests {
  @Test func aRecordedChatIsCheckedEventByEvent() throws {
    let events = try FixtureContract.decodeEvents(Delta.self, fixture: "streams/chat.sse")
    #expect(events.map(\.data.delta) == ["Hel", "lo"])
    #expect(events.map(\.event) == [nil, "message"])
  }

  @Test func aLineThatDriftsFailsTheStrictCheckNamingItsIndex() throws {
    #expect {
      try FixtureContract.decodeLines(Row.self, fixture: "streams/export.ndjson")
    } throws: { error in
      let text = "\(error)"
      return text.contains("streams/export.ndjson") && text.contains("2") && text.contains("price")
    }
    // Leniently, the drift is the third line's (blank lines are not values).
    let lenient = try RecordedStream.lines(
      Row.self,
      from: Data(
        contentsOf: try #require(FixtureRoot.find()).appendingPathComponent(
          "streams/export.ndjson")), decoder: LenientDecoder())
    #expect(lenient.value.map(\.id) == [1, 2, 3])
    #expect(lenient.report.entries.map(\.path) == ["[2].price"])
  }

  @Test func theElementsOfARecordedEnvelopeAreCheckedOneByOne() throws {
    let rows = try FixtureContract.decodeElements(
      Row.self, fixture: "streams/orders.json", envelope: .default, at: "list")
    #expect(rows == [Row(id: 1, price: 1.5), Row(id: 2, price: 2)])
    #expect(throws: ContractFailure.self) {
      try FixtureContract.decodeElements(Row.self, fixture: "streams/orders.json", at: "list")
    }
  }

  @Test func aChatStreamIsRecordedAndReplayedThroughTheProvider() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "EnvelopeKitStreams-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    struct Chat: TargetType {
      var baseURL: URL
      var path: String { "/feed/chat" }
      var query: [URLQueryItem] { [URLQueryItem(name: "size", value: "5")] }
    }
    let target = Chat(baseURL: server.baseURL)
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    var recorded: [String] = []
    for try await event in Provider<Chat>(transport: recorder).events(target, as: Delta.self) {
      recorded.append(event.data.delta)
    }
    #expect(recorded == ["Hel", "lo", "!"])
    var replayed: [String] = []
    let replay = ReplayTransport(folder: folder, chunking: StreamChunking(size: 3))
    for try await event in Provider<Chat>(transport: replay).events(target, as: Delta.self) {
      replayed.append(event.data.delta)
    }
    #expect(replayed == recorded)
  }
}
