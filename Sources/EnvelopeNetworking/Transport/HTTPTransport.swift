import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends a request and returns the body and the HTTP response.
///
/// Stubs, recordings and replays are transports too. On Linux, a file that conforms a type of
/// its own needs `import FoundationNetworking` (where `URLRequest` and `HTTPURLResponse` live):
///
/// ```swift
/// import Foundation
/// #if canImport(FoundationNetworking)
///   import FoundationNetworking
/// #endif
/// ```
public protocol HTTPTransport: Sendable {
  /// Sends `request`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and the response.
  /// - Throws: `URLError`, or `CancellationError` when the calling task is cancelled.
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
  /// Sends `request` and writes the body to `file`, reporting progress. The default sends and
  /// writes; `URLSessionTransport` streams.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: where the body goes.
  ///   - progress: told the bytes written and the total, if known.
  /// - Returns: the response.
  /// - Throws: `URLError`, `CancellationError`, or a file error.
  func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  /// Sends `request` with `file` as its body, reporting progress. The default reads the file;
  /// `URLSessionTransport` streams it.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: the body.
  ///   - progress: told the bytes sent and the total, if known.
  /// - Returns: the response body and response.
  /// - Throws: `URLError`, `CancellationError`, or a file error.
  func upload(_ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress)
    async throws -> (Data, HTTPURLResponse)
}

/// The transport over `URLSession`, on Linux (FoundationNetworking) and Apple platforms.
///
/// Redirects are followed, but credentials never go to another origin: on a redirect to another
/// scheme, host or port, `Authorization`, `Proxy-Authorization`, `Cookie`, `X-Api-Key` and the
/// `sensitiveHeaders` you name are dropped (each task gets a delegate that does this, whatever
/// delegate the session has).
///
/// A transport of your own conforms to `HTTPTransport`; on Linux its file needs
/// `import FoundationNetworking` for `URLRequest` and `HTTPURLResponse`.
public struct URLSessionTransport: HTTPTransport {
  /// The session requests go through.
  public let session: URLSession
  /// Header names (lower-case) dropped on a cross-origin redirect besides the default ones.
  public let sensitiveHeaders: Set<String>
  private let redirectGuard: RedirectGuard

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - session: the session; `.shared` by default.
  ///   - sensitiveHeaders: more header names that carry credentials, e.g. `X-Session`.
  public init(session: URLSession = .shared, sensitiveHeaders: Set<String> = []) {
    self.session = session
    self.sensitiveHeaders = Set(sensitiveHeaders.map { $0.lowercased() })
    self.redirectGuard = RedirectGuard(sensitiveHeaders: sensitiveHeaders)
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
        task.delegate = redirectGuard
        box.set(task)
        task.resume()
      }
    } onCancel: {
      box.cancel()
    }
  }
}

/// Holds a task so that cancellation can reach it from another thread (data tasks here,
/// transfers in `Transfers.swift`).
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
final class TaskBox: @unchecked Sendable {
  private let lock = NSLock()
  private var task: URLSessionTask?
  private var cancelled = false

  var isCancelled: Bool { lock.withLock { cancelled } }

  func set(_ task: URLSessionTask) {
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
