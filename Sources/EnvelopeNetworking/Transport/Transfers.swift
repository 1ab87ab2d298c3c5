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
  /// and moved into place at the end, through the transport's session (its delegate is told
  /// about the task) with the same redirect rule as every call. A failed or cancelled download
  /// leaves neither the part nor a temporary file (a download task leaves its temporary file
  /// behind when cancelled on Linux, so none is used), and leaves `file` as it was: a copy that
  /// was already there stays.
  ///
  /// - Parameters:
  ///   - request: the request; a body it has is sent, and is not counted as progress.
  ///   - file: where the body goes; replaced when it exists.
  ///   - progress: told the bytes of the response body written and its `Content-Length`, if any.
  /// - Returns: the response.
  /// - Throws: `URLError`, `CancellationError`, or a file error.
  public func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  {
    // The part file becomes `file` only when the exchange succeeds: a failed or cancelled
    // download removes its part and leaves a file that was already at `file` as it was.
    try await exchange(request, to: file, progress: .received(progress)).1
  }

  /// Streams `file` as the request body through the transport's session, reporting bytes sent.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - file: the body, read from disk as it is sent (again after a 307 or 308).
  ///   - progress: told the bytes of the request body sent and the file's size.
  /// - Returns: the response body and response.
  /// - Throws: `URLError` or `CancellationError`.
  public func upload(
    _ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress
  )
    async throws -> (Data, HTTPURLResponse)
  {
    try await exchange(request, uploading: file, progress: .sent(progress))
  }
}
