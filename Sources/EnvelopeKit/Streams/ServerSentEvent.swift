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
  @inlinable
  public init(event: String? = nil, id: String? = nil, retry: Duration? = nil, data: T) {
    self.event = event
    self.id = id
    self.retry = retry
    self.data = data
  }
}

extension ServerSentEvent: Equatable where T: Equatable {}
