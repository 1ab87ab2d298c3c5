#if canImport(FoundationNetworking)
  import EnvelopeKit
  import EnvelopeNetworking
  import Foundation
  import FoundationNetworking
  import LoopbackServer
  import Testing

  /// A call cancelled while its redirect waits for an answer ends as cancelled, and the process
  /// goes on.
  ///
  /// FoundationNetworking (up to Swift 6.3.1) stops the process when a redirect's answer reaches
  /// its task after a cancel: both queue work on the task's own queue, and the answer, second,
  /// finds the task no longer waiting for it. The order is set here without timing: the
  /// companion session's delegate queue is held, the redirect's question queues behind the hold,
  /// the call is cancelled (the task's end queues behind the question), and only then is the
  /// queue let go, so the question is asked after the cancel. Answering it stopped the process
  /// (3 of 3 runs); the transport now drops an answer that would follow a cancel.
  @Suite(.aheadOfTheBacklog) struct RedirectCancelTests {
    @Test func aRedirectQueuedBeforeACancelIsNotAnswered() async throws {
      try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
      let session = URLSession(configuration: .ephemeral)
      defer { session.finishTasksAndInvalidate() }
      let provider = Provider<Route>(transport: URLSessionTransport(session: session))
      _ = try await provider.request(Route("/envelope/ok"), as: User.self)
      let queue = companionDelegateQueue(of: session)
      let hold = try await QueueHold(queue)

      let call = Task {
        try await provider.request(Route("/redirect", ["to": "/envelope/ok"]), as: User.self)
      }
      let asked = await poll { queue.operationCount >= 2 }
      try #require(asked, "the redirect's question never reached the companion's queue")
      call.cancel()
      let ended = await poll { queue.operationCount >= 3 }
      try #require(ended, "the cancelled task's end never reached the companion's queue")
      hold.release()

      let outcome = await call.result
      #expect(throws: CancellationError.self) { try outcome.get() }
      // The session goes on working.
      let user = try await provider.request(Route("/envelope/ok"), as: User.self)
      #expect(user.id == 1)
    }

    /// The same race with the request's own timeout instead of a cancel: FoundationNetworking's
    /// timer ended the task while the redirect's question waited, and the answer stopped the
    /// process. The transport now sets that timer to a week and keeps the idle limit itself,
    /// cancelling through the lock the answer takes: the call ends with `.timedOut`.
    @Test func aRedirectQueuedPastTheRequestsTimeoutIsNotAnswered() async throws {
      let server = try #require(
        TestServer.shared, "python3 must be available for the loopback server")
      let session = URLSession(configuration: .ephemeral)
      defer { session.finishTasksAndInvalidate() }
      let transport = URLSessionTransport(session: session)
      let ok = server.baseURL.appendingPathComponent("envelope/ok")
      _ = try await transport.send(URLRequest(url: ok))
      let queue = companionDelegateQueue(of: session)
      let hold = try await QueueHold(queue)

      var request = try URLRequest(
        url: #require(URL(string: "\(server.baseURL.absoluteString)/redirect?to=/envelope/ok")))
      request.timeoutInterval = 1
      let call = Task { try await transport.send(request) }
      let asked = await poll { queue.operationCount >= 2 }
      try #require(asked, "the redirect's question never reached the companion's queue")
      // A second on, the transport's idle limit ends the task: its end queues behind the
      // question. (FoundationNetworking's own timer queued none: the answer was what stopped
      // the process.)
      let ended = await poll(rounds: 1000) { queue.operationCount >= 3 }
      try #require(ended, "the timed-out task's end never reached the companion's queue")
      hold.release()

      let outcome = await call.result
      let error = #expect(throws: URLError.self) { try outcome.get() }
      #expect(error?.code == .timedOut)
      let (_, response) = try await transport.send(URLRequest(url: ok))
      #expect(response.statusCode == 200)
    }

    /// The idle limit is the request's timeout, or the session's for a request left at
    /// `URLRequest`'s default of 60 s: a server that answers after it ends the call with
    /// `.timedOut`, soon after the limit and long before the answer.
    @Test(arguments: [(session: 60.0, request: 1.0), (session: 1.0, request: 60.0)])
    func aTimeoutEndsASilentExchange(session: TimeInterval, request: TimeInterval) async throws {
      let server = try #require(
        TestServer.shared, "python3 must be available for the loopback server")
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = session
      let urlSession = URLSession(configuration: configuration)
      defer { urlSession.finishTasksAndInvalidate() }
      let transport = URLSessionTransport(session: urlSession)
      let url = try #require(URL(string: "\(server.baseURL.absoluteString)/delay?seconds=20"))
      let start = ContinuousClock.now
      let error = await #expect(throws: URLError.self) {
        try await transport.send(URLRequest(url: url, timeoutInterval: request))
      }
      #expect(error?.code == .timedOut)
      #expect(ContinuousClock.now - start < .seconds(15))
    }
  }

  /// An operation that holds a companion's delegate queue until `release()` (or until the hold
  /// goes, when a test stops early), added once the queue is empty: an earlier call's last
  /// callback may still be on its way out, and the tests count what queues behind the hold.
  ///
  /// `@unchecked Sendable`: `released` is only touched under `lock`.
  final class QueueHold: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var released = false

    init(_ queue: OperationQueue) async throws {
      let idle = await poll { queue.operationCount == 0 }
      try #require(idle, "the companion's queue never emptied")
      let semaphore = semaphore
      queue.addOperation { semaphore.wait() }
    }

    func release() {
      let first = lock.withLock {
        defer { released = true }
        return !released
      }
      if first { semaphore.signal() }
    }

    deinit { release() }
  }
#endif
