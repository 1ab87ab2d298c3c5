import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends a request and returns the body and the HTTP response.
public protocol HTTPTransport: Sendable {
  /// Sends `request`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and the response.
  /// - Throws: `URLError`, or `CancellationError` when the calling task is cancelled.
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// The transport over `URLSession`, on Linux (FoundationNetworking) and Apple platforms.
public struct URLSessionTransport: HTTPTransport {
  /// The session requests go through.
  public let session: URLSession

  /// Creates a transport.
  ///
  /// - Parameter session: the session; `.shared` by default.
  public init(session: URLSession = .shared) {
    self.session = session
  }

  /// Sends `request`; cancelling the calling task cancels the data task.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and the response.
  /// - Throws: `URLError`, or `CancellationError` when cancelled.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let box = TaskBox()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let task = session.dataTask(with: request) { data, response, error in
          if let error {
            if box.isCancelled {
              continuation.resume(throwing: CancellationError())
            } else {
              continuation.resume(throwing: (error as? URLError) ?? URLError(.unknown))
            }
          } else if let response = response as? HTTPURLResponse {
            continuation.resume(returning: (data ?? Data(), response))
          } else {
            continuation.resume(throwing: URLError(.badServerResponse))
          }
        }
        box.set(task)
        task.resume()
      }
    } onCancel: {
      box.cancel()
    }
  }
}

/// Holds the data task so that cancellation can reach it from another thread.
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
private final class TaskBox: @unchecked Sendable {
  private let lock = NSLock()
  private var task: URLSessionDataTask?
  private var cancelled = false

  var isCancelled: Bool { lock.withLock { cancelled } }

  func set(_ task: URLSessionDataTask) {
    let cancelNow = lock.withLock {
      self.task = task
      return cancelled
    }
    if cancelNow { task.cancel() }
  }

  func cancel() {
    let task = lock.withLock {
      cancelled = true
      return self.task
    }
    task?.cancel()
  }
}

extension HTTPURLResponse {
  /// The header fields as `[String: String]`, the form `Response` and recordings keep.
  package var stringHeaders: [String: String] {
    var headers: [String: String] = [:]
    for (name, value) in allHeaderFields {
      if let name = name as? String, let value = value as? String { headers[name] = value }
    }
    return headers
  }
}
