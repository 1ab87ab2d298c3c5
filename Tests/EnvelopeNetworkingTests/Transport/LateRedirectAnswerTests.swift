import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking

  /// FoundationNetworking (up to Swift 6.3.1) stops the process ("Received callback for HTTP
  /// redirection, but we're not waiting for it") when a redirect is answered after its task
  /// timed out or was cancelled: the answer reaches its work queue through the delegate queue.
  /// These tests hold the delegate queue up so that the redirect callback runs late, as a
  /// loaded process does; before the transport kept the timeout itself and cancelled under the
  /// lock its answers take, each stopped the test process.
  @Suite(.serialized) struct LateRedirectAnswerTests {
    let server: TestServer

    init() throws {
      server = try #require(TestServer.shared, "python3 must be available for the loopback server")
    }

    /// A transport over a session of its own, with its companion made (by one request), and the
    /// companion's delegate queue.
    func transport() async throws -> (URLSessionTransport, OperationQueue) {
      let transport = URLSessionTransport(session: URLSession(configuration: .ephemeral))
      _ = try await transport.send(
        URLRequest(url: server.baseURL.appendingPathComponent("headers")))
      let queue = try #require(SessionCompanion.of(transport.session).delegateQueue)
      return (transport, queue)
    }

    /// A GET answered 302 to `/headers` at once.
    func redirect(timeout: TimeInterval) throws -> URLRequest {
      let url = try #require(URL(string: "\(server.baseURL)/redirect?status=302&to=/headers"))
      var request = URLRequest(url: url)
      request.timeoutInterval = timeout
      return request
    }

    @Test func aRedirectAskedAfterTheTimeoutPassedIsFollowed() async throws {
      let (transport, queue) = try await transport()
      // The 302 comes at once; its callback waits 2 s behind this, past the 1 s timeout.
      queue.addOperation { Thread.sleep(forTimeInterval: 2) }
      let (_, response) = try await transport.send(try redirect(timeout: 1))
      #expect(response.statusCode == 200)
      #expect(response.url?.path == "/headers")
    }

    @Test func aRedirectAskedAfterTheCallWasCancelledIsNotAnswered() async throws {
      let (transport, queue) = try await transport()
      queue.addOperation { Thread.sleep(forTimeInterval: 1.5) }
      let request = try redirect(timeout: 30)
      let call = Task { try await transport.send(request) }
      // The 302 has come by now; its callback waits behind the sleep.
      try await Task.sleep(for: .milliseconds(700))
      call.cancel()
      await #expect(throws: CancellationError.self) { try await call.value }
      // The call ends as the callback runs; an answer would reach FoundationNetworking's work
      // queue just after: the test waits for it, so that it stops this test, not a later one.
      try await Task.sleep(for: .milliseconds(500))
    }

    @Test func aSubSecondTimeoutIsKeptNotCutToAMillisecond() async throws {
      let (transport, _) = try await transport()
      // FoundationNetworking counts whole seconds: 0.8 s became 1 ms.
      let url = try #require(URL(string: "\(server.baseURL)/delay?seconds=0.2"))
      var request = URLRequest(url: url)
      request.timeoutInterval = 0.8
      let (_, response) = try await transport.send(request)
      #expect(response.statusCode == 200)
    }

    /// A session delegate that answers every challenge with the default handling after `delay`.
    final class SlowChallengeDelegate: NSObject, URLSessionTaskDelegate, Sendable {
      let delay: TimeInterval
      init(delay: TimeInterval) { self.delay = delay }

      func urlSession(
        _ session: URLSession, task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler:
          @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
      ) {
        Thread.sleep(forTimeInterval: delay)
        completionHandler(.performDefaultHandling, nil)
      }
    }

    @Test func aChallengeAnsweredAfterTheTimeoutIsNoTimeout() async throws {
      // FoundationNetworking stops its timeout while a challenge waits for the app's answer; the
      // transport's idle timeout does the same.
      let session = URLSession(
        configuration: .ephemeral, delegate: SlowChallengeDelegate(delay: 2), delegateQueue: nil)
      let transport = URLSessionTransport(session: session)
      let url = try #require(URL(string: "\(server.baseURL)/challenge?scheme=basic"))
      var request = URLRequest(url: url)
      request.timeoutInterval = 1
      let (_, response) = try await transport.send(request)
      #expect(response.statusCode == 401)
    }

    @Test func anIdleRequestStillTimesOut() async throws {
      let (transport, _) = try await transport()
      let url = try #require(URL(string: "\(server.baseURL)/delay?seconds=4"))
      var request = URLRequest(url: url)
      request.timeoutInterval = 1
      let start = ContinuousClock.now
      do {
        _ = try await transport.send(request)
        Issue.record("expected a timeout")
      } catch let error as URLError {
        #expect(error.code == .timedOut)
      }
      #expect(ContinuousClock.now - start < .seconds(3))
    }
  }
#endif
