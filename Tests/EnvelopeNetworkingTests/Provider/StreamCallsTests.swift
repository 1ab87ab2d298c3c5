import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A line of `/feed/ndjson`, an element of `/feed/envelope`.
struct FeedRow: Decodable, Equatable, Sendable {
  var id: Int
  var price: Double
}

/// A chat stream's event data.
struct Delta: Decodable, Equatable, Sendable { var delta: String }

/// Hears every report and the stream's end.
final class StreamHooks: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var reports: [DecodingReport] = []
  private var endings: [StreamSummary] = []
  var paths: [String] { lock.withLock { reports.flatMap { $0.entries.map(\.path) } } }
  var summaries: [StreamSummary] { lock.withLock { endings } }

  func didDecode(_ report: DecodingReport, target: any TargetType, response: Response) async {
    lock.withLock { reports.append(report) }
  }

  func didFinishStream(_ summary: StreamSummary, target: any TargetType) async {
    lock.withLock { endings.append(summary) }
  }
}

@Suite(.serialized) struct StreamCallsTests {
  init() throws {
    _ = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  static let chat = Data(
    ("data: {\"delta\": \"Hel\"}\n\n: keep-alive\n\nevent: message\nid: 7\n"
      + "data: {\"delta\":\ndata: \"lo\"}\n\nretry: 1500\ndata: {\"delta\": \"!\"}\r\n\r\n"
      + "data: [DONE]\n\ndata: {\"delta\": \"after the end\"}\n\n").utf8)

  @Test func linesDecodeAsTheyArriveWithDriftReportedByIndex() async throws {
    let hooks = StreamHooks()
    let provider = Provider<Route>(plugins: [hooks])
    let (rows, error) = await collect(
      provider.lines(Route("/feed/ndjson", ["n": "5"]), as: FeedRow.self))
    #expect(error == nil)
    #expect(rows == (0..<5).map { FeedRow(id: $0, price: Double($0) + 0.5) })
    // Each line's drift (a price sent as a string) with the line's index; blank lines are not
    // values.
    #expect(hooks.paths == (0..<5).map { "[\($0)].price" })
    #expect(hooks.summaries.map(\.count) == [5])
  }

  @Test func aStrictLineThatDoesNotDecodeEndsTheStreamWithItsPath() async throws {
    let provider = Provider<Route>(decoder: LenientDecoder(policy: .strict))
    let (rows, error) = await collect(
      provider.lines(Route("/feed/ndjson", ["n": "3"]), as: FeedRow.self))
    #expect(rows.isEmpty)
    guard case .decoding(let decoding, let response)? = error as? ProviderError,
      case .typeMismatch(_, let context) = decoding
    else {
      Issue.record("expected a decoding error, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["Index 0", "price"])
    #expect(response.statusCode == 200)
  }

  @Test func chatEventsArriveThroughTheLineAndEndAtDone() async throws {
    let lines = LogLines()
    let logging = LoggingPlugin { _, line in lines.add(line) }
    let provider = Provider<Route>(plugins: [logging])
    let (events, error) = await collect(
      provider.events(Route("/feed/chat", ["size": "5", "pause": "0.002"]), as: Delta.self))
    #expect(error == nil)
    #expect(events.map(\.data.delta) == ["Hel", "lo", "!"])
    #expect(events.map(\.event) == [nil, "message", nil])
    #expect(events.map(\.id) == [nil, "7", "7"])
    #expect(events.map(\.retry) == [nil, nil, .milliseconds(1500)])
    let all = lines.text.split(separator: "\n").map(String.init)
    #expect(all.contains { $0.contains("← 200") && $0.contains("/feed/chat") }, "\(all)")
    #expect(all.contains { $0.contains("■ stream ended: 3 values") }, "\(all)")
  }

  @Test(arguments: [1, 2, 3, 7, 1_000])
  func aStubbedChatSplitAnywhereGivesTheSameEvents(size: Int) async throws {
    struct Chat: TargetType {
      var size: Int
      var baseURL: URL { URL(fileURLWithPath: "/") }
      var path: String { "/chat" }
      var sample: StubResponse { .body(StreamCallsTests.chat).chunked(size: size) }
    }
    let (events, error) = await collect(
      Provider<Chat>(stub: .immediate).events(Chat(size: size), as: Delta.self))
    #expect(error == nil)
    #expect(events.map(\.data.delta) == ["Hel", "lo", "!"])
  }

  @Test func aDroppedEventStreamReconnectsWithTheLastEventID() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(plugins: [RetryPolicy(baseDelay: .milliseconds(10))])
    let (events, error) = await collect(
      provider.events(Route("/feed/drop", ["id": id, "size": "16"]), as: Delta.self))
    #expect(error == nil, "\(String(describing: error))")
    #expect(events.map(\.data.delta) == ["a", "b", "c"])
    #expect(events.map(\.id) == ["1", "2", "3"])
    #expect(try await hits("last-event-id-\(id)-2").count == 1)
  }

  @Test func elementsOfAnEnvelopeArriveOneByOne() async throws {
    let hooks = StreamHooks()
    let provider = Provider<Route>(plugins: [hooks])
    let (rows, error) = await collect(
      provider.elements(
        Route("/feed/envelope", ["n": "4", "size": "9"]), as: FeedRow.self, at: "list"))
    #expect(error == nil)
    #expect(rows == (0..<4).map { FeedRow(id: $0, price: Double($0) + 0.5) })
    // A plain body: the path is from the root and a code member is data.
    let (plain, plainError) = await collect(
      provider.elements(
        Route.plain("/feed/envelope", ["n": "2", "code": "1001"]), as: FeedRow.self,
        at: "data.list"))
    #expect(plainError == nil)
    #expect(plain.count == 2)
  }

  @Test func aBusinessFailureBeforeTheDataComesBeforeAnyElement() async throws {
    let (rows, error) = await collect(
      Provider<Route>().elements(
        Route("/feed/envelope", ["code": "1001", "order": "before"]), as: FeedRow.self, at: "list"))
    #expect(rows.isEmpty)
    guard case .business(let code, let message, let response)? = error as? ProviderError else {
      Issue.record("expected a business failure, got \(String(describing: error))")
      return
    }
    #expect(code == 1001)
    #expect(message == "m")
    #expect(response.envelopeStatus?.isSuccess == false)
  }

  @Test func aBusinessFailureAfterTheDataEndsTheStreamAfterTheElements() async throws {
    let (rows, error) = await collect(
      Provider<Route>().elements(
        Route("/feed/envelope", ["code": "1001", "order": "after", "n": "3"]), as: FeedRow.self,
        at: "list"))
    #expect(rows.count == 3)
    guard case .business(let code, _, _)? = error as? ProviderError else {
      Issue.record("expected a business failure, got \(String(describing: error))")
      return
    }
    #expect(code == 1001)
  }

  @Test func a401OnTheHeadRefreshesTheTokenOnceAndSendsTheStreamAgain() async throws {
    let tokens = Tokens()
    let auth = AccessTokenPlugin(token: { await tokens.token }) { try await tokens.refresh() }
    var target = Route("/feed/auth")
    target.authorization = .bearer
    let (rows, error) = await collect(
      Provider<Route>(plugins: [auth]).lines(target, as: FeedRow.self))
    #expect(error == nil, "\(String(describing: error))")
    #expect(rows.map(\.id) == [1, 2, 3])
    #expect(await tokens.refreshes == 1)
  }

  @Test func leavingTheLoopClosesTheConnection() async throws {
    let id = uniqueID()
    let hooks = StreamHooks()
    var seen = 0
    for try await _ in Provider<Route>(plugins: [hooks]).lines(
      Route("/feed/endless", ["id": id]), as: FeedRow.self)
    {
      seen += 1
      if seen == 3 { break }
    }
    #expect(seen == 3)
    // The server notices the connection go (it writes every 5 ms); `poll`'s rounds at most for a loaded
    // machine (100 rounds of 50 ms, about 5 s, was less than StreamingTransportTests allow).
    _ = try await poll { try await hits("disconnect-" + id).count > 0 }
    let disconnects = try await hits("disconnect-" + id).count
    #expect(disconnects == 1)
  }
}
