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
      // The first call's last callback may still be on its way out: counted from an empty queue.
      let idle = await poll { queue.operationCount == 0 }
      try #require(idle, "the companion's queue never emptied")
      let hold = DispatchSemaphore(value: 0)
      queue.addOperation { hold.wait() }
      var held = true
      defer { if held { hold.signal() } }

      let call = Task {
        try await provider.request(Route("/redirect", ["to": "/envelope/ok"]), as: User.self)
      }
      let asked = await poll { queue.operationCount >= 2 }
      try #require(asked, "the redirect's question never reached the companion's queue")
      call.cancel()
      let ended = await poll { queue.operationCount >= 3 }
      try #require(ended, "the cancelled task's end never reached the companion's queue")
      hold.signal()
      held = false

      let outcome = await call.result
      #expect(throws: CancellationError.self) { try outcome.get() }
      // The session goes on working.
      let user = try await provider.request(Route("/envelope/ok"), as: User.self)
      #expect(user.id == 1)
    }
  }
#endif
