import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A session the app invalidated sends nothing more through the transport (on Linux the tasks
/// run on a companion session, which the app's `invalidateAndCancel()` does not reach).
@Suite struct SessionInvalidationTests {
  #if canImport(FoundationNetworking)
    @Test(arguments: [false, true])
    func anInvalidatedSessionSendsNothingMore(_ cancelling: Bool) async throws {
      let server = try #require(TestServer.shared)
      let session = URLSession(configuration: .ephemeral)
      let transport = URLSessionTransport(session: session)
      let url = server.baseURL.appendingPathComponent("echo")
      _ = try await transport.send(URLRequest(url: url))
      if cancelling { session.invalidateAndCancel() } else { session.finishTasksAndInvalidate() }
      // finishTasksAndInvalidate marks the session on its work queue, later: `getAllTasks` answers
      // from that serial queue, so once it has, the mark is made. (A fixed 50 ms was a guess a
      // loaded machine could miss.)
      await withCheckedContinuation { continuation in
        session.getAllTasks { _ in continuation.resume() }
      }
      do {
        let (_, response) = try await transport.send(URLRequest(url: url))
        Issue.record("a request went out through an invalidated session: \(response.statusCode)")
      } catch let error as URLError {
        #expect(error.code == .cancelled)
      }
    }
  #endif
}
