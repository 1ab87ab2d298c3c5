import Foundation

/// What one network exchange cost: how long it took, the bytes it moved and the redirects it
/// followed (``Response/metrics``).
///
/// `URLSessionTransport` measures them for every call, download and upload that reaches the
/// network; a stub's or the cache's answer has none. What is counted:
///
/// - `duration`: from the moment the transport starts the first request to the end of the last
///   response's body (for a download, its last byte written), on a monotonic clock: every
///   redirect hop and a challenge answered with a credential are inside it; the plugins, the
///   cache and the decode are not.
/// - `bytesSent`: on Apple platforms, where `URLSession` gives `URLSessionTaskMetrics`, the
///   request headers and body bytes of every transaction it reports. Elsewhere (Linux, where
///   FoundationNetworking never calls `urlSession(_:task:didFinishCollecting:)`), the request
///   body alone: of each request the transport sends (a 307 or 308 hop sends it again and counts
///   it again), the bytes `URLSession` reports sent, else the body's size; headers are not
///   counted.
/// - `bytesReceived`: on Apple platforms, the response headers and body bytes of every
///   transaction `URLSessionTaskMetrics` reports (as they came over the wire, before a
///   `Content-Encoding` is decoded). Elsewhere, the response body bytes `URLSession` delivered
///   (decoded) for each request the transport sends, the body of a 307 or 308 it answers
///   itself included; headers, and the body of a redirect `URLSession` follows on its own, are
///   not counted.
/// - `redirects`: every redirect followed: those `URLSession` follows (a 301, 302 or 303, and a
///   307 or 308 of a request without a body) and those the transport sends itself (a 307 or
///   308 that keeps the method and body). A 3xx that is the answer (not followed) is none.
///
/// A transport of your own reports none unless it sends through a `URLSessionTransport`
/// (then the last exchange it made for the call is reported). Callers that shared one exchange
/// (`Provider(deduplicatesRequests: true)`) each see its metrics.
public struct TransferMetrics: Sendable {
  /// From sending the first request to the end of the last response's body.
  public var duration: Duration
  /// The request bytes sent (see the type's documentation for what is counted).
  public var bytesSent: Int64
  /// The response bytes received (see the type's documentation for what is counted).
  public var bytesReceived: Int64
  /// The redirects followed, by `URLSession` and by the transport.
  public var redirects: Int

  init(duration: Duration, bytesSent: Int64, bytesReceived: Int64, redirects: Int) {
    self.duration = duration
    self.bytesSent = bytesSent
    self.bytesReceived = bytesReceived
    self.redirects = redirects
  }
}

extension TransferMetrics {
  /// Where `URLSessionTransport` leaves the metrics of the exchange it finishes: set by the
  /// provider around its transport (`TimedTransport`) and around a transfer, so that a
  /// `URLSessionTransport` inside a transport of yours reports too. Nil elsewhere (a transport
  /// used on its own measures nothing for no one).
  @TaskLocal static var recorder: Locked<TransferMetrics?>?
}
