import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport that answers each streamed request with the next scripted answer (the last one
/// again once they run out), keeps the requests, and counts the bodies closed.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
  /// What a body does next.
  enum Step: Sendable {
    case chunk(String)
    case fail(URLError.Code)
    /// Waits until the body is closed.
    case hang
  }

  /// One answer: its status and body, or a wait before the head that never ends.
  struct Answer: Sendable {
    var status = 200
    var steps: [Step]
    var hangsBeforeHead = false
  }

  private let lock = NSLock()
  private var answers: [Answer]
  private var sent: [URLRequest] = []
  private var closed = 0

  init(_ answers: [Answer]) { self.answers = answers }

  var requests: [URLRequest] { lock.withLock { sent } }
  var bodiesClosed: Int { lock.withLock { closed } }

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    throw URLError(.unsupportedURL)
  }

  func stream(_ request: URLRequest) async throws -> StreamedResponse {
    let answer = lock.withLock {
      sent.append(request)
      return answers.count > 1 ? answers.removeFirst() : answers[0]
    }
    if answer.hangsBeforeHead {
      try await Task.sleep(for: .seconds(3600))
    }
    guard
      let response = HTTPURLResponse(
        url: request.url ?? URL(fileURLWithPath: "/"), statusCode: answer.status,
        httpVersion: "HTTP/1.1", headerFields: [:])
    else { throw URLError(.badServerResponse) }
    let body = AsyncThrowingStream<Data, any Error> { continuation in
      let task = Task {
        for step in answer.steps {
          switch step {
          case .chunk(let text): continuation.yield(Data(text.utf8))
          case .fail(let code):
            continuation.finish(throwing: URLError(code))
            return
          case .hang:
            try? await Task.sleep(for: .seconds(3600))
          }
        }
        continuation.finish()
      }
      continuation.onTermination = { [self] _ in
        task.cancel()
        lock.withLock { closed += 1 }
      }
    }
    return StreamedResponse(response: response, body: ResponseBody(body))
  }
}

/// A target for a scripted transport.
struct Scripted: TargetType {
  var envelope: EnvelopeFormat? = .plain
  var baseURL: URL { URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/") }
  var path: String { "/stream" }
}

@Suite struct StreamEdgeTests {
  /// Waits until `condition` holds (a plugin hears a stream's end from a task of its own when
  /// the loop is left), `poll`'s rounds at most, and requires it. (It gave up quietly after 200 rounds of
  /// 10 ms: about 2 s, which a loaded machine can take to run that task.)
  func eventually(
    _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try #require(await poll { condition() }, sourceLocation: sourceLocation)
  }

  // MARK: - Probes

  @Test func aStrictLineThatFailsAfterGoodOnesInTheSameChunkComesAfterThem() async throws {
    let transport = ScriptedTransport([
      .init(steps: [.chunk(Self.row(0) + "\n" + Self.row(1) + "\n{\"id\": \"x\"}\n" + Self.row(3))])
    ])
    let provider = Provider<Scripted>(
      transport: transport, decoder: LenientDecoder(policy: .strict))
    let stream = provider.lines(Scripted(), as: FeedRow.self)
    var iterator = stream.makeAsyncIterator()
    var rows: [FeedRow] = []
    var failure: (any Error)?
    do {
      while let row = try await iterator.next() { rows.append(row) }
    } catch {
      failure = error
    }
    #expect(rows.map(\.id) == [0, 1])
    guard case .decoding(let decoding, _)? = failure as? ProviderError,
      case .typeMismatch(_, let context) = decoding
    else {
      Issue.record("expected a decoding error, got \(String(describing: failure))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["Index 2", "id"])
    // After the error the stream is over: nothing more, and no second request.
    #expect(try await iterator.next() == nil)
    #expect(transport.requests.count == 1)
  }

  @Test(arguments: [EnvelopeFormat.plain, .default])
  func aStrictElementThatFailsInTheMiddleOfABatchComesAfterTheOnesBefore(
    format: EnvelopeFormat
  ) async throws {
    let list = "[\(Self.row(0)), \(Self.row(1)), {\"id\": \"x\"}, \(Self.row(3))]"
    let body = format.isPlain ? list : "{\"code\": 0, \"msg\": \"ok\", \"data\": \(list)}"
    let provider = Provider<Scripted>(
      transport: ScriptedTransport([.init(steps: [.chunk(body)])]),
      decoder: LenientDecoder(policy: .strict))
    var target = Scripted()
    target.envelope = format
    let (rows, error) = await collect(provider.elements(target, as: FeedRow.self, at: ""))
    #expect(rows.map(\.id) == [0, 1])
    guard case .decoding(let decoding, _)? = error as? ProviderError,
      case .typeMismatch(_, let context) = decoding
    else {
      Issue.record("expected a decoding error, got \(String(describing: error))")
      return
    }
    #expect(context.codingPath.map(\.stringValue) == ["Index 2", "id"])
  }

  @Test func aLenientBatchWithABadElementInTheMiddleDecodesAsTheWholeBodyDoes() async throws {
    let hooks = StreamHooks()
    let list = "[\(Self.row(0)), {\"id\": \"x\"}, 7, \(Self.row(3))]"
    let provider = Provider<Scripted>(
      transport: ScriptedTransport([.init(steps: [.chunk(list)])]), plugins: [hooks])
    let (rows, error) = await collect(provider.elements(Scripted(), as: FeedRow.self, at: ""))
    #expect(error == nil)
    let whole = try LenientDecoder().decodeWithReport([FeedRow].self, from: Data(list.utf8))
    #expect(rows == whole.value)
    #expect(hooks.paths == whole.report.entries.map(\.path))
  }

  @Test func elementsMalformedAfterSomeInTheSameChunkYieldThoseFirst() async throws {
    let provider = Provider<Scripted>(
      transport: ScriptedTransport([.init(steps: [.chunk("[\(Self.row(0)), \(Self.row(1)), }")])]))
    let (rows, error) = await collect(provider.elements(Scripted(), as: FeedRow.self, at: ""))
    #expect(rows.map(\.id) == [0, 1])
    guard case .decoding(.dataCorrupted, _)? = error as? ProviderError else {
      Issue.record("expected a decoding error, got \(String(describing: error))")
      return
    }
  }

  @Test(arguments: [
    "{\"code\": 0, \"msg\": \"ok\", \"data\": {\"list\": 5}}", "{\"code\": 0, \"data\": {}}",
  ])
  func elementsAtANonArrayOrMissingPathEndWithADecodingError(body: String) async throws {
    var target = Scripted()
    target.envelope = .default
    let provider = Provider<Scripted>(transport: ScriptedTransport([.init(steps: [.chunk(body)])]))
    let (rows, error) = await collect(provider.elements(target, as: FeedRow.self, at: "list"))
    #expect(rows.isEmpty)
    guard case .decoding(let decoding, let response)? = error as? ProviderError else {
      Issue.record("expected a decoding error, got \(String(describing: error))")
      return
    }
    #expect(response.statusCode == 200)
    switch decoding {
    case .typeMismatch, .keyNotFound: break
    default: Issue.record("unexpected \(decoding)")
    }
  }

  @Test(arguments: [
    "{\"code\": [1], \"data\": {\"list\": []}}",
    "{\"data\": {\"list\": [{\"id\": 1, \"price\": 1}]}}",
  ])
  func anEnvelopeWithAnInvalidOrMissingCodeIsAnEnvelopeError(body: String) async throws {
    var target = Scripted()
    target.envelope = .default
    let provider = Provider<Scripted>(transport: ScriptedTransport([.init(steps: [.chunk(body)])]))
    let (_, error) = await collect(provider.elements(target, as: FeedRow.self, at: "list"))
    guard case .envelope(_, let response)? = error as? ProviderError else {
      Issue.record("expected an envelope error, got \(String(describing: error))")
      return
    }
    #expect(response.statusCode == 200)
  }

  @Test func aBusinessFailureRetriedGivesTheElementsOfTheNextAnswer() async throws {
    var target = Scripted()
    target.envelope = .default
    let transport = ScriptedTransport([
      .init(steps: [.chunk("{\"code\": 1001, \"msg\": \"busy\", \"data\": {\"list\": [")]),
      .init(steps: [
        .chunk("{\"code\": 0, \"msg\": \"ok\", \"data\": {\"list\": [\(Self.row(7))]}}")
      ]),
    ])
    let provider = Provider<Scripted>(
      transport: transport,
      plugins: [RetryPolicy(baseDelay: .zero, businessCodes: [1001])])
    let (rows, error) = await collect(provider.elements(target, as: FeedRow.self, at: "list"))
    #expect(error == nil, "\(String(describing: error))")
    #expect(rows.map(\.id) == [7])
    #expect(transport.requests.count == 2)
  }

  @Test func aFailingHeadIsRetriedThenTheStreamRuns() async throws {
    let hooks = StreamHooks()
    let transport = ScriptedTransport([
      .init(status: 503, steps: [.chunk("{}")]),
      .init(steps: [.chunk(Self.row(1) + "\n"), .chunk(Self.row(2) + "\n")]),
    ])
    let provider = Provider<Scripted>(
      transport: transport, plugins: [RetryPolicy(baseDelay: .zero), hooks])
    let (rows, error) = await collect(provider.lines(Scripted(), as: FeedRow.self))
    #expect(error == nil)
    #expect(rows.map(\.id) == [1, 2])
    #expect(transport.requests.count == 2)
    #expect(hooks.summaries.map(\.count) == [2])
  }

  @Test func aServerThatAlwaysDropsIsReconnectedToAtMostMaxAttemptsTimes() async throws {
    let hooks = StreamHooks()
    let transport = ScriptedTransport([
      .init(steps: [.chunk("id: 1\ndata: {\"delta\": \"a\"}\n\n"), .fail(.networkConnectionLost)])
    ])
    let provider = Provider<Scripted>(
      transport: transport, plugins: [RetryPolicy(maxAttempts: 3, baseDelay: .zero), hooks])
    let (events, error) = await collect(provider.events(Scripted(), as: Delta.self))
    #expect(events.count == 3)
    guard case .transport(let urlError)? = error as? ProviderError else {
      Issue.record("expected a transport error, got \(String(describing: error))")
      return
    }
    #expect(urlError.code == .networkConnectionLost)
    #expect(transport.requests.count == 3)
    #expect(
      transport.requests.dropFirst().allSatisfy {
        $0.value(forHTTPHeaderField: "Last-Event-ID") == "1"
      })
    #expect(hooks.summaries.map(\.reconnections) == [2])
  }

  @Test func aReconnectionThatFailsEndsTheStreamWithAProviderErrorOnce() async throws {
    let hooks = StreamHooks()
    let transport = ScriptedTransport([
      .init(steps: [.chunk("id: 1\ndata: {\"delta\": \"a\"}\n\n"), .fail(.networkConnectionLost)]),
      .init(status: 404, steps: [.chunk("gone")]),
    ])
    let provider = Provider<Scripted>(
      transport: transport, plugins: [RetryPolicy(baseDelay: .zero), hooks])
    var iterator = provider.events(Scripted(), as: Delta.self).makeAsyncIterator()
    var deltas: [String] = []
    var failure: (any Error)?
    do {
      while let event = try await iterator.next() { deltas.append(event.data.delta) }
    } catch {
      failure = error
    }
    #expect(deltas == ["a"])
    guard case .status(let response)? = failure as? ProviderError else {
      Issue.record("expected the 404, got \(String(describing: failure))")
      return
    }
    #expect(response.statusCode == 404)
    // The stream is over: no new request, and the plugins heard the end once.
    #expect(try await iterator.next() == nil)
    #expect(transport.requests.count == 2)
    #expect(hooks.summaries.count == 1)
  }

  @Test(arguments: [true, false])
  func cancellingTheConsumerStopsTheStreamAndTheEndIsHeardOnce(whileWaitingForTheHead: Bool)
    async throws
  {
    let hooks = StreamHooks()
    let transport = ScriptedTransport([
      .init(steps: [.chunk(Self.row(1) + "\n"), .hang], hangsBeforeHead: whileWaitingForTheHead)
    ])
    let provider = Provider<Scripted>(transport: transport, plugins: [hooks])
    let seen = Counter()
    let task = Task {
      var failure: (any Error)?
      do {
        for try await _ in provider.lines(Scripted(), as: FeedRow.self) {
          seen.add()
        }
      } catch {
        failure = error
      }
      return failure
    }
    // Cancelled once the stream waits where the test wants it.
    try await eventually {
      transport.requests.count == 1 && seen.value == (whileWaitingForTheHead ? 0 : 1)
    }
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    let error = await task.value
    let rows = seen.value
    #expect(rows == (whileWaitingForTheHead ? 0 : 1))
    #expect(error is CancellationError, "\(String(describing: error))")
    // The end is heard from a task of its own: wait for it (a fixed 200 ms was not always
    // enough), then a moment for a second one, which must not come.
    try await eventually {
      !hooks.summaries.isEmpty && (whileWaitingForTheHead || transport.bodiesClosed >= 1)
    }
    try await Task.sleep(for: .milliseconds(200))
    let endings = hooks.summaries.map { summary -> String in
      if case .stopped = summary.ending { return "stopped" }
      return "\(summary.ending)"
    }
    #expect(endings == ["stopped"])
    if !whileWaitingForTheHead { #expect(transport.bodiesClosed == 1) }
  }

  @Test func leavingTheLoopIsHeardOnceAsStopped() async throws {
    let hooks = StreamHooks()
    let transport = ScriptedTransport([
      .init(steps: [.chunk(Self.row(1) + "\n" + Self.row(2) + "\n"), .hang])
    ])
    let provider = Provider<Scripted>(transport: transport, plugins: [hooks])
    for try await _ in provider.lines(Scripted(), as: FeedRow.self) { break }
    try await eventually { hooks.summaries.count == 1 && transport.bodiesClosed == 1 }
    try await Task.sleep(for: .milliseconds(100))
    #expect(hooks.summaries.map(\.count) == [1])
    #expect(transport.bodiesClosed == 1)
  }

  @Test(arguments: [1, 2, 3, 5])
  func theEndMarkerSplitAcrossChunksEndsTheStreamAndNilReadsOn(size: Int) async throws {
    struct Chat: TargetType {
      var size: Int
      var baseURL: URL { URL(fileURLWithPath: "/") }
      var path: String { "/chat" }
      var sample: StubResponse { .body(StreamCallsTests.chat).chunked(size: size) }
    }
    let provider = Provider<Chat>(stub: .immediate)
    let (ended, _) = await collect(provider.events(Chat(size: size), as: Delta.self))
    #expect(ended.map(\.data.delta) == ["Hel", "lo", "!"])
    let (all, error) = await collect(
      provider.events(Chat(size: size), as: Delta.self, endMarker: nil))
    // `[DONE]` is then an event's data, which is not JSON: the stream read on to it.
    #expect(all.count == 3)
    guard case .decoding(.dataCorrupted, _)? = error as? ProviderError else {
      Issue.record("expected the [DONE] event to be read, got \(String(describing: error))")
      return
    }
  }

  /// Where an envelope's code stands decides when its failure comes, however the body is
  /// chunked: after the data, the elements first (a body that came in one chunk was read up to
  /// its code before the head was accepted, and failed before any element); before the data,
  /// no element.
  @Test(arguments: [1, 3, 16, 100_000])
  func aFailureCodeAfterTheDataComesAfterTheElementsHoweverTheBodyIsChunked(size: Int)
    async throws
  {
    struct Feed: TargetType {
      var size: Int
      var body: String
      var baseURL: URL { URL(fileURLWithPath: "/") }
      var path: String { "/feed" }
      var envelope: EnvelopeFormat? { .default }
      var sample: StubResponse { .body(Data(body.utf8)).chunked(size: size) }
    }
    let rows = #"[{"id":0,"price":0.5},{"id":1,"price":1.5},{"id":2,"price":2.5}]"#
    let provider = Provider<Feed>(stub: .immediate)
    let after = Feed(size: size, body: #"{"data":{"list":\#(rows)},"code":1001,"msg":"m"}"#)
    let (elements, error) = await collect(provider.elements(after, as: FeedRow.self, at: "list"))
    #expect(elements.map(\.id) == [0, 1, 2])
    guard case .business(1001, _, _)? = error as? ProviderError else {
      Issue.record("expected a failure after the elements: \(String(describing: error))")
      return
    }
    let before = Feed(size: size, body: #"{"code":1001,"msg":"m","data":{"list":\#(rows)}}"#)
    let (none, failure) = await collect(provider.elements(before, as: FeedRow.self, at: "list"))
    #expect(none.isEmpty)
    guard case .business(1001, _, _)? = failure as? ProviderError else {
      Issue.record("expected a failure before any element: \(String(describing: failure))")
      return
    }
  }

  @Test func aReconnectionSendsTheIDOfABlockWithNoData() async throws {
    // The standard sets the source's last event ID at every blank line, also when the block has
    // no data and no event is fired (a checkpoint); a block cut short sets nothing.
    let transport = ScriptedTransport([
      .init(steps: [
        .chunk("id: 1\ndata: {\"delta\": \"a\"}\n\nid: 2\n\nid: 3\ndata: {\"del"),
        .fail(.networkConnectionLost),
      ]),
      .init(steps: [.chunk("data: {\"delta\": \"b\"}\n\ndata: [DONE]\n\n")]),
    ])
    let provider = Provider<Scripted>(
      transport: transport, plugins: [RetryPolicy(baseDelay: .zero)])
    let (events, error) = await collect(provider.events(Scripted(), as: Delta.self))
    #expect(error == nil)
    #expect(events.map(\.data.delta) == ["a", "b"])
    #expect(transport.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") } == [nil, "2"])
  }

  @Test func aReconnectedStreamMayStartWithAByteOrderMark() async throws {
    // Each response is a new event stream, whose byte order mark is dropped.
    let transport = ScriptedTransport([
      .init(steps: [.chunk("data: {\"delta\": \"a\"}\r\n\r"), .fail(.networkConnectionLost)]),
      .init(steps: [.chunk("\u{FEFF}data: {\"delta\": \"b\"}\n\ndata: [DONE]\n\n")]),
    ])
    let provider = Provider<Scripted>(
      transport: transport, plugins: [RetryPolicy(baseDelay: .zero)])
    let (events, error) = await collect(provider.events(Scripted(), as: Delta.self))
    #expect(error == nil)
    #expect(events.map(\.data.delta) == ["a", "b"])
  }

  static func row(_ id: Int) -> String { "{\"id\": \(id), \"price\": 1}" }
}

/// A count shared with a task.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func add() { lock.withLock { count += 1 } }
}
