import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Provider {
  /// The values of a JSON Lines (NDJSON) body, one per line, each decoded as it arrives.
  ///
  /// Every line (`\n` or `\r\n`; blank lines skipped) is one `T`, decoded by the provider's
  /// decoder and policy: no envelope per line. A lenient decode reports each line's drift to the
  /// plugins' `didDecode` with the line's index in the path (`[1532].price`, counted from 0
  /// over the values); in lenient policy a line that does not decode is dropped and reported,
  /// in strict policy it ends the stream with `ProviderError.decoding` (as a line that is not
  /// JSON does in either policy), after the values before it.
  ///
  /// The stream runs the provider's line as every call does (see ``ProviderStream``).
  ///
  /// ```swift
  /// for try await row in provider.lines(.export, as: Row.self) { save(row) }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: a line's type.
  /// - Returns: the values, in order.
  public func lines<T: Decodable & Sendable>(_ target: Target, as type: T.Type = T.self)
    -> ProviderStream<T>
  {
    ProviderStream { StreamRun(provider: self, target: target, framing: LinesFraming<T>()) }
  }

  /// The events of a Server-Sent Events body (`text/event-stream`), each event's `data` decoded
  /// as `T` as it arrives.
  ///
  /// The body is read as the WHATWG standard's event stream interpretation says: `event`, `data`
  /// (lines joined with `\n`), `id`, `retry`, comments, CR, LF or CRLF line ends, a BOM, fields
  /// split across chunks anywhere. An event with no `event` field has `event == nil`; `id` is
  /// the last event ID seen (kept from event to event, as the standard keeps it); `retry` is nil
  /// unless the event set it. An event whose data is `endMarker` (`[DONE]` by default, as
  /// OpenAI-style APIs send) ends the stream; nil reads to the end of the body.
  ///
  /// When the connection drops after the stream began (a transport error), the plugins' `retry`
  /// (``RetryPolicy``) decides whether to reconnect; the next request carries `Last-Event-ID`
  /// and waits at least the server's last `retry`. Drift is reported with the event's index, as
  /// `lines(_:as:)` reports it.
  ///
  /// ```swift
  /// for try await chunk in provider.events(.chat(prompt), as: ChatChunk.self) {
  ///   print(chunk.data.delta, terminator: "")
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: an event's data type.
  ///   - endMarker: the data that ends the stream; nil for none.
  /// - Returns: the events, in order.
  public func events<T: Decodable & Sendable>(
    _ target: Target, as type: T.Type = T.self, endMarker: String? = "[DONE]"
  ) -> ProviderStream<ServerSentEvent<T>> {
    ProviderStream {
      StreamRun(provider: self, target: target, framing: EventsFraming<T>(endMarker: endMarker))
    }
  }

  /// Each element of the array at `path`, yielded as soon as its bytes have arrived while the
  /// rest of the body is still downloading.
  ///
  /// `path` is inside the envelope's data (under the target's or the decoder's format), or from
  /// the root of the body under `EnvelopeFormat.plain`. Memory is bounded by the largest
  /// element, not the body. A business failure known by the time the first elements are read
  /// (the code comes before the data, as usual) is the attempt's failure before any element:
  /// the plugins see it (an expired token is refreshed and the stream sent again) and no
  /// element is yielded. A code that comes after the data ends the stream with its failure
  /// after the elements. A missing array, or a value there that is not an array, ends it with
  /// `ProviderError.decoding`.
  ///
  /// ```swift
  /// for try await order in provider.elements(.orders, as: Order.self, at: "list") { show(order) }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: an element's type.
  ///   - path: where the array is.
  /// - Returns: the elements, in order.
  public func elements<T: Decodable & Sendable>(
    _ target: Target, as type: T.Type = T.self, at path: JSONPath
  ) -> ProviderStream<T> {
    let format = target.envelope ?? decoder.envelope
    return ProviderStream {
      StreamRun(
        provider: self, target: target,
        framing: ElementsFraming<T>(path: path, format: format.isPlain ? nil : format))
    }
  }
}

/// The values of a streamed call (`Provider.lines`, `events`, `elements`): an `AsyncSequence`
/// that sends its request when the loop asks for the first value.
///
/// A stream runs the provider's line as every call does: build (`Provider(baseURL:)`), prepare
/// (credentials), willSend, send through stubs (which stream a fixture in chunks) and your
/// transport, validate the head (a status the target does not accept, or an envelope failure in
/// its body, goes through `didReceive`, `process` and `retry`: a 401 refreshes the token and
/// sends the stream again), then the body as it arrives. Logs: `didReceive` hears the head, and
/// `didFinishStream` the end with the count of values and the duration. The cache neither
/// stores nor answers streams. Failures after the first value end the stream with the error
/// (`error(for:)` mapped as for any call).
///
/// The loop pulls: a chunk is read only when the values of the last one are used up; what the
/// network sends meanwhile waits in the transport (see `HTTPTransport.stream(_:)`). Breaking out
/// of the loop, or cancelling its task, stops the transfer at once.
public struct ProviderStream<Element: Sendable>: AsyncSequence, Sendable {
  /// The error a stream ends with.
  public typealias Failure = any Error

  let open: @Sendable () -> any StreamCursor<Element>

  init(_ open: @escaping @Sendable () -> any StreamCursor<Element>) {
    self.open = open
  }

  /// An iterator that sends the request at its first `next()`.
  ///
  /// - Returns: the iterator.
  public func makeAsyncIterator() -> Iterator { Iterator(cursor: open()) }

  /// Reads the stream; one per loop.
  public struct Iterator: AsyncIteratorProtocol {
    let cursor: any StreamCursor<Element>

    /// The next value, or nil at the end.
    ///
    /// - Returns: the value, or nil.
    /// - Throws: `ProviderError` (or the target's `error(for:)`), `CancellationError`.
    public mutating func next() async throws -> Element? {
      try await cursor.next()
    }
  }
}

/// How a stream ended, as `Plugin.didFinishStream(_:target:)` hears it.
public struct StreamSummary: Sendable {
  /// How it ended.
  public enum Ending: Sendable {
    /// The body ended (or the end marker came).
    case finished
    /// The consumer stopped reading (left the loop, or its task was cancelled).
    case stopped
    /// An error ended it.
    case failed(any Error)
  }

  /// The values yielded.
  public var count: Int
  /// From the first request to the end.
  public var duration: Duration
  /// The reconnections made (Server-Sent Events).
  public var reconnections: Int
  /// How it ended.
  public var ending: Ending

  /// Creates a summary.
  ///
  /// - Parameters:
  ///   - count: the values yielded.
  ///   - duration: how long it ran.
  ///   - reconnections: the reconnections made.
  ///   - ending: how it ended.
  public init(count: Int, duration: Duration, reconnections: Int, ending: Ending) {
    self.count = count
    self.duration = duration
    self.reconnections = reconnections
    self.ending = ending
  }
}
