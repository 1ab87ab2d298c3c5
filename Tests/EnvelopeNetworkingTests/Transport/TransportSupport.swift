import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The session a transport is given in a test.
enum SessionKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
  /// `URLSessionTransport.isolatedSession`, the default.
  case isolated
  /// An app's session with no delegate.
  case plain
  /// An app's session whose delegate counts its callbacks.
  case delegated

  var testDescription: String { rawValue }

  /// A transport over a session of this kind (and the delegate, for `.delegated`).
  func transport() -> (URLSessionTransport, CountingDelegate?) {
    switch self {
    case .isolated: return (URLSessionTransport(), nil)
    case .plain: return (URLSessionTransport(session: URLSession(configuration: .ephemeral)), nil)
    case .delegated:
      let delegate = CountingDelegate()
      let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
      return (URLSessionTransport(session: session), delegate)
    }
  }
}

/// A session delegate that counts the callbacks it gets, by name, and answers challenges with
/// the default handling.
final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let lock = NSLock()
  private var counts: [String: Int] = [:]

  /// How many times `name` was called.
  func count(_ name: String) -> Int { lock.withLock { counts[name] ?? 0 } }

  private func add(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler:
      @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) ->
      Void
  ) {
    add("challenge")
    completionHandler(.performDefaultHandling, nil)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
  ) {
    add("metrics")
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    add("complete")
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    add("sent")
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    add("response")
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    add("data")
  }
}

/// Ran longer than a test allows.
struct Overran: Error, CustomStringConvertible {
  var limit: Duration
  var description: String { "still running after \(limit)" }
}

/// `body`'s result and how long it took, or `Overran` after `limit` without waiting for `body`
/// (a hung request may never end, so the loser is cancelled and left behind, not awaited).
func timed<T: Sendable>(
  limit: Duration = .seconds(5), _ body: @escaping @Sendable () async throws -> T
) async throws -> (T, Duration) {
  let start = ContinuousClock.now
  let once = Once<Result<T, any Error>>()
  let value = try await withCheckedThrowingContinuation {
    (continuation: CheckedContinuation<T, any Error>) in
    once.onFirst { continuation.resume(with: $0) }
    let work = Task { once.offer(await Result(catching: { try await body() })) }
    Task {
      try? await Task.sleep(for: limit)
      once.offer(.failure(Overran(limit: limit)))
      work.cancel()
    }
  }
  return (value, ContinuousClock.now - start)
}

/// Hands the first value offered to its handler, whichever of the two comes first (a value
/// offered before `onFirst` is kept for it); later values are dropped.
final class Once<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var handler: (@Sendable (Value) -> Void)?
  private var first: Value?
  private var delivered = false

  func onFirst(_ handler: @escaping @Sendable (Value) -> Void) {
    let offered: Value? = lock.withLock {
      guard !delivered else { return nil }
      guard let first else {
        self.handler = handler
        return nil
      }
      delivered = true
      return first
    }
    offered.map(handler)
  }

  func offer(_ value: Value) {
    let handler: (@Sendable (Value) -> Void)? = lock.withLock {
      guard first == nil, !delivered else { return nil }
      first = value
      guard let handler = self.handler else { return nil }
      delivered = true
      return handler
    }
    handler?(value)
  }
}

/// `Once`, which `timed` and the streaming tests wait on.
@Suite struct OnceTests {
  /// A value offered before the handler is registered still reaches it (the first chunk of a
  /// stream can arrive before the test starts waiting for it; it used to be dropped, and the
  /// wait ran into its limit on a busy machine).
  @Test func aValueOfferedBeforeTheHandlerReachesIt() {
    let once = Once<Int>()
    let received = Once<Int>()
    once.offer(1)
    once.offer(2)
    let box = Box()
    once.onFirst { value in box.set(value) }
    #expect(box.value == 1)
    once.onFirst { _ in box.set(99) }
    #expect(box.value == 1)
    received.onFirst { value in box.set(value) }
    received.offer(3)
    received.offer(4)
    #expect(box.value == 3)
  }

  private final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int?
    var value: Int? { lock.withLock { stored } }
    func set(_ value: Int) { lock.withLock { stored = value } }
  }
}

extension Result where Failure == any Error {
  init(catching body: () async throws -> Success) async {
    do { self = .success(try await body()) } catch { self = .failure(error) }
  }
}
