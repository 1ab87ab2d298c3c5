import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Test support for the migration guides' snippets: an in-memory server, so that the cache,
// token refresh and download snippets run without a network. Nothing here is quoted.

/// Answers each path with its next canned reply (the last one repeats), and records the
/// `Authorization` header of every request.
final class CannedTransport: HTTPTransport, @unchecked Sendable {
  /// One reply: a status, a JSON body, and how long the server takes (cancellation ends it).
  struct Reply: Sendable {
    var status = 200
    var body: String
    var delay: Duration?
  }

  // `@unchecked Sendable`: every access to `replies` and `sent` holds `lock`.
  private let lock = NSLock()
  private var replies: [String: [Reply]]
  private var sent: [(path: String, authorization: String?)] = []

  /// - Parameter replies: the replies for each URL path, in order.
  init(_ replies: [String: [Reply]]) {
    self.replies = replies
  }

  /// The paths requested so far, in order.
  var requestedPaths: [String] { lock.withLock { sent.map(\.path) } }
  /// The `Authorization` header of each request so far.
  var authorizations: [String?] { lock.withLock { sent.map(\.authorization) } }

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let path = request.url?.path ?? "/"
    let reply: Reply? = lock.withLock {
      sent.append((path, request.value(forHTTPHeaderField: "Authorization")))
      guard var queue = replies[path], let first = queue.first else { return nil }
      if queue.count > 1 { queue.removeFirst() }
      replies[path] = queue
      return first
    }
    if let delay = reply?.delay { try await Task.sleep(for: delay) }
    let status = reply?.status ?? 404
    guard
      let url = request.url,
      let response = HTTPURLResponse(
        url: url, statusCode: status, httpVersion: "HTTP/1.1",
        headerFields: ["Content-Type": "application/json"])
    else { throw URLError(.badServerResponse) }
    return (Data((reply?.body ?? "").utf8), response)
  }

  /// Writes the body in four chunks, reporting each, as a streaming transport does.
  func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  {
    let (data, response) = try await send(request)
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    let total = Int64(data.count)
    let chunk = max(1, (data.count + 3) / 4)
    var written = 0
    while written < data.count {
      let end = min(written + chunk, data.count)
      try handle.write(contentsOf: data[written..<end])
      written = end
      progress(Int64(written), total)
    }
    return response
  }
}

/// A fresh folder under the temporary directory; the caller removes it.
func migrationFolder() -> URL {
  FileManager.default.temporaryDirectory
    .appendingPathComponent("EnvelopeKit-migration-\(UUID().uuidString)")
}
