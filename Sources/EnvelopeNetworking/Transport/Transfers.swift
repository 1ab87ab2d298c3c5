import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Reports bytes done and, when known, the total.
public typealias TransferProgress = @Sendable (_ completed: Int64, _ total: Int64?) -> Void

extension HTTPTransport {
  /// Sends the request and writes the body to `file`: the default for transports that cannot
  /// stream (the body passes through memory; one progress event at the end).
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: where the body goes.
  ///   - progress: told the bytes written.
  /// - Returns: the response.
  /// - Throws: the transport's errors, or the write's.
  public func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  {
    let (data, response) = try await send(request)
    try data.write(to: file, options: .atomic)
    progress(Int64(data.count), Int64(data.count))
    return response
  }

  /// Sends the request with `file` as its body: the default for transports that cannot stream
  /// (the file is mapped into memory; one progress event at the end).
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: the body.
  ///   - progress: told the bytes sent.
  /// - Returns: the response body and response.
  /// - Throws: the transport's errors, or the read's.
  public func upload(
    _ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress
  )
    async throws -> (Data, HTTPURLResponse)
  {
    var request = request
    let body = try Data(contentsOf: file, options: .mappedIfSafe)
    request.httpBody = body
    let result = try await send(request)
    progress(Int64(body.count), Int64(body.count))
    return result
  }
}

extension URLSessionTransport {
  /// Streams the body to `file`: each chunk is written to a `.part` file beside it as it arrives
  /// and moved into place at the end, through a session with this transport's configuration and
  /// the same redirect rule. A failed or cancelled download leaves no file, neither `file` nor
  /// the part nor a temporary file (a download task leaves its temporary file behind when
  /// cancelled on Linux, so none is used).
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: where the body goes; replaced when it exists.
  ///   - progress: told the bytes written and the `Content-Length`, if any.
  /// - Returns: the response.
  /// - Throws: `URLError`, `CancellationError`, or a file error.
  public func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  {
    try await transfer(request, destination: file, progress: progress) {
      $0.dataTask(with: request)
    }
    .1
  }

  /// Streams `file` as the request body, reporting bytes sent.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: the body, read from disk as it is sent.
  ///   - progress: told the bytes sent and the file's size.
  /// - Returns: the response body and response.
  /// - Throws: `URLError` or `CancellationError`.
  public func upload(
    _ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress
  )
    async throws -> (Data, HTTPURLResponse)
  {
    try await transfer(request, destination: nil, progress: progress) {
      $0.uploadTask(with: request, fromFile: file)
    }
  }

  /// Runs one task on a session of its own whose delegate streams and reports.
  private func transfer(
    _ request: URLRequest, destination: URL?, progress: @escaping TransferProgress,
    makeTask: @Sendable (URLSession) -> URLSessionTask
  ) async throws -> (Data, HTTPURLResponse) {
    let box = TaskBox()
    let result = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let kind: TransferDelegate.Type =
          destination == nil ? UploadDelegate.self : DownloadDelegate.self
        let delegate = kind.init(
          destination: destination,
          redirectGuard: RedirectGuard(sensitiveHeaders: sensitiveHeaders),
          progress: progress, continuation: continuation)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(
          configuration: session.configuration, delegate: delegate, delegateQueue: queue)
        let task = makeTask(session)
        session.finishTasksAndInvalidate()
        box.set(task)
        task.resume()
      }
    } onCancel: {
      box.cancel()
    }
    if box.isCancelled || Task.isCancelled {
      // Cancelled as it finished: the caller left, so no file stays.
      if let destination { try? FileManager.default.removeItem(at: destination) }
      throw CancellationError()
    }
    return result
  }
}

/// What an upload and a download share: the continuation, progress, redirects and the end.
///
/// `@unchecked Sendable`: the session calls it on one serial queue, and its state is touched
/// only there.
private class TransferDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
  let part: URL?
  private let destination: URL?
  private let redirectGuard: RedirectGuard
  let progress: TransferProgress
  private var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
  var body = Data()
  var failure: (any Error)?

  required init(
    destination: URL?, redirectGuard: RedirectGuard, progress: @escaping TransferProgress,
    continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
  ) {
    self.destination = destination
    self.part = destination.map { $0.appendingPathExtension("part-\(UUID().uuidString)") }
    self.redirectGuard = redirectGuard
    self.progress = progress
    self.continuation = continuation
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    redirectGuard.urlSession(
      session, task: task, willPerformHTTPRedirection: response, newRequest: request,
      completionHandler: completionHandler)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    progress(totalBytesSent, totalBytesExpectedToSend >= 0 ? totalBytesExpectedToSend : nil)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    guard let continuation else { return }
    self.continuation = nil
    finishWriting()
    let outcome = Result { () throws -> (Data, HTTPURLResponse) in
      if let failure { throw failure }
      if let error {
        if (error as? URLError)?.code == .cancelled { throw CancellationError() }
        throw (error as? URLError) ?? URLError(.unknown)
      }
      guard let response = task.response as? HTTPURLResponse else {
        throw URLError(.badServerResponse)
      }
      if let part, let destination {
        if !FileManager.default.fileExists(atPath: part.path),  // an empty body
          !FileManager.default.createFile(atPath: part.path, contents: nil)
        {
          throw CocoaError(.fileWriteUnknown)
        }
        if FileManager.default.fileExists(atPath: destination.path) {
          try FileManager.default.removeItem(at: destination)
        }
        try FileManager.default.moveItem(at: part, to: destination)
      }
      return (body, response)
    }
    if case .failure = outcome, let part { try? FileManager.default.removeItem(at: part) }
    continuation.resume(with: outcome)
  }

  /// Closes what the body was written to; the download's part file.
  func finishWriting() {}
}

/// Keeps an upload's reply.
private final class UploadDelegate: TransferDelegate, URLSessionDataDelegate, @unchecked Sendable {
  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    body.append(data)
  }
}

/// Writes each chunk of the body to the part file as it arrives, and reports its progress.
private final class DownloadDelegate: TransferDelegate, URLSessionDataDelegate, @unchecked Sendable
{
  private var handle: FileHandle?
  private var written: Int64 = 0
  private var expected: Int64?

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard failure == nil, let part else { return }
    do {
      if handle == nil {
        guard FileManager.default.createFile(atPath: part.path, contents: nil) else {
          throw CocoaError(.fileWriteUnknown)
        }
        handle = try FileHandle(forWritingTo: part)
      }
      try handle?.write(contentsOf: data)
      written += Int64(data.count)
      progress(written, expected)
    } catch {
      failure = error
      dataTask.cancel()
    }
  }

  override func finishWriting() {
    try? handle?.close()
    handle = nil
  }
}
