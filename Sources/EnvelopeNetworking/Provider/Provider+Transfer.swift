import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a download or an upload reports.
public enum TransferEvent: Sendable {
  /// Bytes done so far, and the total when the server or the file says it.
  case progress(completed: Int64, total: Int64?)
  /// The transfer ended with this response (for a download, the body is in the file).
  case finished(Response)
}

extension Provider {
  /// Streams the target's response body to `file`, yielding progress, then `.finished`.
  ///
  /// Memory stays flat whatever the size (`URLSessionTransport` writes each chunk as it
  /// arrives; other transports write the whole body). The status is validated as for any call;
  /// a failed or cancelled download (cancel the consuming task, or stop iterating) leaves no
  /// file. Plugins see `prepare`, `willSend`, `didReceive` and `process`; there is no retry.
  ///
  /// ```swift
  /// for try await event in provider.download(.archive, to: file) {
  ///   if case .progress(let done, let total?) = event { bar.value = Double(done) / Double(total) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - file: where the body goes; replaced when it exists.
  /// - Returns: progress events, then `.finished`; or the `ProviderError`.
  public func download(_ target: Target, to file: URL) -> AsyncThrowingStream<
    TransferEvent, any Error
  > {
    transfer(target, leavesFile: file) { request, progress in
      guard case .never = self.stubBehavior(target) else {
        let response = try await self.send(request, target, .byPolicy)
        try response.data.write(to: file, options: .atomic)
        progress(Int64(response.data.count), Int64(response.data.count))
        return Response(
          statusCode: response.statusCode, headers: response.headers, data: Data(), request: request
        )
      }
      let http = try await self.transport.download(request, to: file, progress: progress)
      // An error status keeps (the first megabyte of) its body for the error; the file goes.
      let failed = !target.validStatusCodes.contains(http.statusCode)
      let body = failed ? Self.head(of: file) : Data()
      return Response(
        statusCode: http.statusCode, headers: http.stringHeaders, data: body, request: request)
    }
  }

  /// Sends a `.file` (streamed from disk) or `.multipart` task's body, yielding upload
  /// progress, then `.finished` with the server's response.
  ///
  /// - Parameter target: the endpoint; its task gives the body.
  /// - Returns: progress events, then `.finished`; or the `ProviderError`.
  public func upload(_ target: Target) -> AsyncThrowingStream<TransferEvent, any Error> {
    transfer(target, leavesFile: nil) { request, progress in
      guard case .never = self.stubBehavior(target) else {
        let response = try await self.send(request, target, .byPolicy)
        let size = Int64(request.httpBody?.count ?? 0)
        progress(size, size)
        return response
      }
      var bodiless = request
      bodiless.httpBody = nil
      let (data, http): (Data, HTTPURLResponse)
      if case .file(let url, _) = target.task {
        (data, http) = try await self.transport.upload(bodiless, fromFile: url, progress: progress)
      } else {
        // A body built in memory (multipart, JSON, form) goes through a temporary file.
        let temporary = FileManager.default.temporaryDirectory
          .appendingPathComponent("EnvelopeKit-upload-\(UUID().uuidString)")
        try (request.httpBody ?? Data()).write(to: temporary)
        defer { try? FileManager.default.removeItem(at: temporary) }
        (data, http) = try await self.transport.upload(
          bodiless, fromFile: temporary, progress: progress)
      }
      return Response(
        statusCode: http.statusCode, headers: http.stringHeaders, data: data, request: request)
    }
  }

  /// Up to the first megabyte of a file.
  private static func head(of file: URL) -> Data {
    guard let handle = try? FileHandle(forReadingFrom: file) else { return Data() }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 1 << 20)) ?? Data()
  }

  /// One attempt of a transfer through the plugins, as a stream of events.
  private func transfer(
    _ target: Target, leavesFile file: URL?,
    _ run: @escaping @Sendable (URLRequest, @escaping TransferProgress) async throws -> Response
  ) -> AsyncThrowingStream<TransferEvent, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        let call = ProviderCall(id: ProviderCall.nextID(), attempt: 1)
        do {
          let response = try await ProviderCall.$current.withValue(call) {
            try await self.attemptTransfer(target, run) { completed, total in
              continuation.yield(.progress(completed: completed, total: total))
            }
          }
          continuation.yield(.finished(response))
          continuation.finish()
        } catch {
          if let file { try? FileManager.default.removeItem(at: file) }
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  private func attemptTransfer(
    _ target: Target,
    _ run: @Sendable (URLRequest, @escaping TransferProgress) async throws -> Response,
    progress: @escaping TransferProgress
  ) async throws -> Response {
    try await exchange(target) { request in try await run(request, progress) }.get()
  }
}
