import Foundation

// Server-Sent Events, as the WHATWG HTML standard's "event stream interpretation" parses them
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
// - one UTF-8 byte order mark at the start of the stream is dropped;
// - lines end in CR, LF or CRLF (a CR ending one chunk and an LF starting the next are one
//   line end);
// - a blank line dispatches the event; a line starting with `:` is a comment; otherwise the
//   field name is up to the first `:` (the whole line when there is none) and the value after
//   it, less one leading space;
// - `event` sets the type; `data` appends its value and a LF to the data buffer; `id` sets the
//   last event ID unless the value holds a NUL; `retry` of ASCII digits only sets the
//   reconnection time (other values are ignored); other fields are ignored;
// - dispatch: the last event ID is kept for the stream; an empty data buffer dispatches nothing
//   (and clears the type); else the data's last LF is removed and the event dispatched;
// - at the end of the stream a pending event (no blank line after it) is discarded.
// Text is decoded as UTF-8 with replacement (U+FFFD), as the standard decodes the stream; data
// that is valid UTF-8 (all that JSON can be) is handed out as its bytes, unchanged.

/// Parses a Server-Sent Events stream fed in chunks into events with their data as bytes.
///
/// ```swift
/// var parser = EventStreamParser()
/// for chunk in chunks {
///   parser.feed(chunk) { event in
///     if event.hasData("[DONE]") { /* stop */ }
///     let value = event.with(data: try frames.decode(T.self, from: event.data, index: n))
///   }
/// }
/// parser.finish()
/// ```
package struct EventStreamParser {
  /// A dispatched event, its data borrowed for the call to the handler.
  package struct Event {
    /// The event type; nil for the default (`message`).
    package let event: String?
    /// The last event ID, nil when there is none.
    package let id: String?
    /// The reconnection time this event's block set, if any.
    package let retry: Duration?
    /// The data (the `data` lines joined with LF), valid only during the call.
    package let data: UnsafeBufferPointer<UInt8>

    /// Whether the data is exactly `sentinel` (no whitespace around it).
    ///
    /// - Parameter sentinel: the text that ends the stream, `[DONE]` by default.
    /// - Returns: true when the data's bytes are the sentinel's UTF-8 bytes.
    package func hasData(_ sentinel: String = EventStreamParser.doneSentinel) -> Bool {
      data.elementsEqual(sentinel.utf8)
    }

    /// The event as the public type, carrying `value` as its data.
    ///
    /// - Parameter value: the data, decoded (or copied: `Data(event.data)`).
    /// - Returns: the event.
    package func with<T: Sendable>(data value: T) -> ServerSentEvent<T> {
      ServerSentEvent(event: event, id: id, retry: retry, data: value)
    }
  }

  /// The sentinel OpenAI-style streams send as the last event's data.
  package static let doneSentinel = "[DONE]"

  /// The last event ID: kept across events.
  package private(set) var lastEventID = ""
  /// The last event ID as of the last blank line (the standard's "last event ID string" of the
  /// event source, set at every dispatch, also of a block with no data): what a reconnection
  /// sends as `Last-Event-ID`. An `id` of a block cut short is not in it.
  package private(set) var dispatchedEventID = ""
  /// The reconnection time the stream set last (in any block, even one with no event).
  package private(set) var reconnectionTime: Duration?
  /// How many events have been dispatched.
  package private(set) var count = 0

  /// The start of a line that began in an earlier chunk.
  private var carry: [UInt8] = []
  /// Whether the last chunk ended in a CR (an LF starting this one ends no second line).
  private var endedInCR = false
  /// The bytes of a possible byte order mark at the start; nil once it is decided.
  private var head: [UInt8]? = []
  private var data: [UInt8] = []
  private var eventType: [UInt8] = []
  /// The last event type dispatched, as text: a stream that names the same type on every event
  /// (`event: content_block_delta`) makes one `String`, not one per event.
  private var lastType: (bytes: [UInt8], text: String) = ([], "")
  /// The reconnection time set since the last dispatch.
  private var retry: Duration?

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// A parser at the start of a stream.
  package init() {}

  /// Reads the next chunk and hands out every event it completes, in order.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes, split anywhere.
  ///   - event: called with each dispatched event (its data as bytes).
  /// - Throws: what `event` throws.
  package mutating func feed(
    _ chunk: UnsafeRawBufferPointer, _ event: (Event) throws -> Void
  ) rethrows {
    var bytes = chunk.bindMemory(to: UInt8.self)
    if var held = head {
      // The stream's first bytes: a byte order mark is dropped, whatever else is content.
      var taken = 0
      while taken < bytes.count && held.count < 3 && bytes[taken] == Self.byteOrderMark[held.count]
      {
        held.append(bytes[taken])
        taken += 1
      }
      if held.count == 3 {
        head = nil
      } else if taken == bytes.count {
        head = held
        return
      } else {
        // Not a mark: the bytes held are the start of the first line.
        head = nil
        let start = held
        try start.withUnsafeBufferPointer { try lines($0, event) }
      }
      bytes = UnsafeBufferPointer(rebasing: bytes[taken...])
    }
    try lines(bytes, event)
  }

  /// `feed(_:_:)` for a chunk held in `Data`.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes.
  ///   - event: called with each dispatched event.
  /// - Throws: what `event` throws.
  package mutating func feed(_ chunk: Data, _ event: (Event) throws -> Void)
    rethrows
  {
    try chunk.withUnsafeBytes { try feed($0, event) }
  }

  /// Ends the stream: a pending event with no blank line after it is discarded, as the
  /// standard says.
  package mutating func finish() {
    carry = []
    data = []
    eventType = []
    retry = nil
    head = nil
  }

  /// Starts the next response of the same source (a reconnection): what the last one left
  /// unfinished is discarded, a byte order mark may come again, and the last event ID and the
  /// reconnection time are kept.
  package mutating func restart() {
    finish()
    head = []
    endedInCR = false
  }

  // MARK: - Lines

  /// Splits `bytes` into lines (CR, LF or CRLF) and interprets each complete one.
  private mutating func lines(
    _ bytes: UnsafeBufferPointer<UInt8>, _ event: (Event) throws -> Void
  ) rethrows {
    guard !bytes.isEmpty else { return }
    var index = 0
    if endedInCR {
      endedInCR = false
      if bytes[0] == ASCII.newline { index = 1 }
    }
    var start = index
    while true {
      Self.skipToLineEnd(bytes, at: &index)
      guard index < bytes.count else { break }
      let byte = bytes[index]
      let line = UnsafeBufferPointer(rebasing: bytes[start..<index])
      if carry.isEmpty {
        try interpret(line, event)
      } else {
        carry.append(contentsOf: line)
        let held = carry
        carry.removeAll(keepingCapacity: true)
        try held.withUnsafeBufferPointer { try interpret($0, event) }
      }
      if byte == ASCII.carriageReturn {
        if index + 1 == bytes.count {
          endedInCR = true
        } else if bytes[index + 1] == ASCII.newline {
          index += 1
        }
      }
      index += 1
      start = index
    }
    carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
  }

  /// Advances `index` to the next CR or LF (or the end), eight bytes at a time while a whole
  /// word is left.
  @inline(__always)
  private static func skipToLineEnd(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) {
    let count = bytes.count
    if let base = bytes.baseAddress {
      let ones: UInt64 = 0x0101_0101_0101_0101
      while count - index >= 8 {
        let word = UInt64(
          littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
        let newlines = word ^ (ones &* UInt64(ASCII.newline))
        let returns = word ^ (ones &* UInt64(ASCII.carriageReturn))
        // Flags a byte equal to LF or CR (and possibly bytes above one: the lowest is exact).
        let marks =
          ((newlines &- ones) & ~newlines | (returns &- ones) & ~returns)
          & 0x8080_8080_8080_8080
        if marks != 0 {
          index += marks.trailingZeroBitCount >> 3
          return
        }
        index += 8
      }
    }
    while index < count && bytes[index] != ASCII.newline && bytes[index] != ASCII.carriageReturn {
      index += 1
    }
  }

  private static let eventName = Array("event".utf8)
  private static let dataName = Array("data".utf8)
  private static let idName = Array("id".utf8)
  private static let retryName = Array("retry".utf8)

  /// Interprets one line (without its line end).
  private mutating func interpret(
    _ line: UnsafeBufferPointer<UInt8>, _ event: (Event) throws -> Void
  ) rethrows {
    guard let first = line.first else { return try dispatch(event) }
    if first == ASCII.colon { return }
    let field: UnsafeBufferPointer<UInt8>
    var value: UnsafeBufferPointer<UInt8>
    if let colon = line.firstIndex(of: ASCII.colon) {
      field = UnsafeBufferPointer(rebasing: line[..<colon])
      var valueStart = colon + 1
      if valueStart < line.count && line[valueStart] == ASCII.space { valueStart += 1 }
      value = UnsafeBufferPointer(rebasing: line[valueStart...])
    } else {
      field = line
      value = UnsafeBufferPointer(rebasing: line[line.count...])
    }
    if field.elementsEqual(Self.dataName) {
      data.append(contentsOf: value)
      data.append(ASCII.newline)
    } else if field.elementsEqual(Self.eventName) {
      eventType.removeAll(keepingCapacity: true)
      eventType.append(contentsOf: value)
    } else if field.elementsEqual(Self.idName) {
      if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
    } else if field.elementsEqual(Self.retryName) {
      setRetry(value)
    }
  }

  /// A `retry` value: ASCII digits only (at least one), milliseconds; anything else is ignored.
  /// A value past `Int64` milliseconds saturates.
  private mutating func setRetry(_ value: UnsafeBufferPointer<UInt8>) {
    guard !value.isEmpty, value.allSatisfy({ $0 >= ASCII.zero && $0 <= ASCII.nine }) else {
      return
    }
    var milliseconds: Int64 = 0
    for digit in value {
      let (times, overflowTimes) = milliseconds.multipliedReportingOverflow(by: 10)
      let (sum, overflowSum) = times.addingReportingOverflow(Int64(digit - ASCII.zero))
      guard !overflowTimes, !overflowSum else {
        milliseconds = .max
        break
      }
      milliseconds = sum
    }
    retry = .milliseconds(milliseconds)
    reconnectionTime = retry
  }

  /// A blank line: dispatches the event, if its data buffer holds anything.
  /// Whether every byte is below 0x80, read a word at a time (an event's data is scanned once
  /// per event: bytewise, that scan was a tenth of a small event's framing).
  private static func isASCII(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { raw in
      var index = 0
      var high: UInt64 = 0
      while raw.count - index >= 8 {
        high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
      }
      while index < raw.count {
        high |= UInt64(raw[index])
        index += 1
      }
      return high & 0x8080_8080_8080_8080 == 0
    }
  }

  private mutating func dispatch(_ event: (Event) throws -> Void) rethrows {
    defer {
      data.removeAll(keepingCapacity: true)
      eventType.removeAll(keepingCapacity: true)
      retry = nil
    }
    dispatchedEventID = lastEventID
    guard !data.isEmpty else { return }
    data.removeLast()
    count += 1
    var type: String?
    if !eventType.isEmpty {
      if eventType != lastType.bytes {
        lastType = (eventType, String(decoding: eventType, as: UTF8.self))
      }
      type = lastType.text
    }
    let id = lastEventID.isEmpty ? nil : lastEventID
    if !Self.isASCII(data) {
      // Text as the standard decodes it: invalid UTF-8 becomes U+FFFD (valid text is unchanged).
      let text = String(decoding: data, as: UTF8.self)
      if !text.utf8.elementsEqual(data) { data = Array(text.utf8) }
    }
    try data.withUnsafeBufferPointer {
      try event(Event(event: type, id: id, retry: retry, data: $0))
    }
  }
}
