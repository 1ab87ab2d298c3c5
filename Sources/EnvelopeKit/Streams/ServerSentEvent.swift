import Foundation

/// One event of a Server-Sent Events stream (`text/event-stream`), its data decoded as `T`.
///
/// The fields are as the WHATWG HTML standard's event stream interpretation gives them:
/// `event` is the event type, nil when the event had no `event` field (or an empty one: the
/// standard's default type, `message`); `id` is the last event ID seen on the stream, carried
/// from earlier events as the standard keeps it, nil when none was set or `id:` reset it;
/// `retry` is the reconnection time a `retry` field in this event's block set, nil when it set
/// none.
public struct ServerSentEvent<T: Sendable>: Sendable {
  /// The event type; nil for the default (`message`).
  public var event: String?
  /// The last event ID, nil when there is none.
  public var id: String?
  /// The reconnection time this event's block set, if any.
  public var retry: Duration?
  /// The data.
  public var data: T

  /// Creates an event.
  ///
  /// - Parameters:
  ///   - event: the event type; nil for the default.
  ///   - id: the last event ID.
  ///   - retry: the reconnection time the event set.
  ///   - data: the data.
  public init(event: String? = nil, id: String? = nil, retry: Duration? = nil, data: T) {
    self.event = event
    self.id = id
    self.retry = retry
    self.data = data
  }
}

extension ServerSentEvent: Equatable where T: Equatable {}

extension ServerSentEvent where T == Data {
  /// The sentinel OpenAI-style streams send as the last event's data.
  package static var doneSentinel: String { "[DONE]" }

  /// Whether the data is exactly `sentinel` (no whitespace around it).
  ///
  /// - Parameter sentinel: the text that ends the stream, `[DONE]` by default.
  /// - Returns: true when the data's bytes are the sentinel's UTF-8 bytes.
  package func hasData(_ sentinel: String = doneSentinel) -> Bool {
    data.elementsEqual(sentinel.utf8)
  }

  /// The same event with its data decoded.
  ///
  /// - Parameter value: the decoded data.
  /// - Returns: the event carrying `value`.
  package func with<U: Sendable>(data value: U) -> ServerSentEvent<U> {
    ServerSentEvent<U>(event: event, id: id, retry: retry, data: value)
  }
}
