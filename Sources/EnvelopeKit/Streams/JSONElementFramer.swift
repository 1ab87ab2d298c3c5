import Foundation

// The elements of one array of a JSON document that arrives in chunks, each handed out as soon
// as its last byte has arrived, while the rest of the document is still on its way.
//
// The scan is the reader's grammar as a push state machine (JSONElementFramer+Scan.swift): it
// validates every byte as `JSONScanner` does with trailing commas allowed (strings and their
// escapes, UTF-8, numbers, literals, nesting capped at `maxDepth`), so a malformed document is
// a `DecodingError.dataCorrupted` with the byte offset, line and column, never a wrong element.
// UTF-8 only (a BOM at the start is skipped, as the reader does); the UTF-16 and UTF-32 input
// the whole-body decoder transcodes is not read here.
//
// What it keeps: one flag per open container, and for the containers on a watched path (the
// array's path, an envelope's code and message paths) the paths still matching and the keys
// already seen, so that the first of duplicate keys wins as in `JSONDocument`. Bytes are kept
// only for a value in flight that began in an earlier chunk (an element, a watched value, a
// watched key): memory is the largest element plus this small state, never the body.
//
// An element that ends inside the chunk it began in is handed out straight from the chunk
// (no copy); one that spans chunks from the carry buffer.

/// Frames the elements of the array at a path of a JSON document fed in chunks, and captures
/// the values at watched paths (an envelope's code and message) wherever they occur.
///
/// ```swift
/// var framer = JSONElementFramer(elementsAt: "items", in: .default)
/// for chunk in chunks {
///   try framer.feed(chunk) { element in /* decode element.bytes */ }
///   if let status = try framer.envelopeStatus(), !status.isSuccess { /* stop early */ }
/// }
/// try framer.finish()
/// ```
///
/// After a throw the framer is spent: feed it nothing more.
package struct JSONElementFramer {
  /// One element of the array.
  package struct Element {
    /// The element's JSON text, borrowed for the call to the handler.
    package let bytes: UnsafeBufferPointer<UInt8>
    /// Its index in the array, from 0.
    package let index: Int
    /// The byte offset of its first byte in the document.
    package let offset: Int
  }

  /// The elements one chunk completed, as one JSON array (`[e1,e2,…]`), to decode in one go.
  package struct Batch {
    /// The array's text, borrowed for the call to the handler.
    package let bytes: UnsafeBufferPointer<UInt8>
    /// The index of the first element in the document's array.
    package let firstIndex: Int
    /// Where each element is in `bytes`.
    package let ranges: [Range<Int>]
  }

  /// What the scan has found at the array's path.
  package enum Target: Equatable, Sendable {
    /// Nothing yet (at the end: the path is missing).
    case notSeen
    /// The array has begun; `count` elements so far.
    case open(count: Int)
    /// The array has ended with `count` elements.
    case closed(count: Int)
    /// The value at the path is not an array; `found` is Foundation's phrase for its kind.
    case notArray(found: String)
  }

  /// A container on a watched path.
  struct Level {
    let isObject: Bool
    /// Whether this is the array whose elements are framed.
    let isTarget: Bool
    /// The watched paths (bit i: `paths[i]`) that go on below this container.
    let mask: UInt64
    /// Object: the watched paths whose key here has been seen (the first occurrence wins).
    var claimed: UInt64 = 0
    /// Object: the watched paths the current member's value is on.
    var valueMask: UInt64 = 0
    /// Array: how many elements have begun.
    var count = 0
  }

  /// Where the byte scan stands between two bytes.
  enum ScanState {
    case start, bom, value, key, colon, afterValue, string, escape, unicode, utf8, number
    case literal, done
  }

  // MARK: - Configuration

  /// The array's path (0) and the watched paths (1...), as components.
  let paths: [[JSONPath.Component]]
  /// `lengthMasks[n]`: the paths with `n` components.
  let lengthMasks: [UInt64]
  /// The envelope whose code and messages are watched, or nil.
  let envelope: EnvelopeFormat?
  let arrayPath: JSONPath
  let maxDepth: Int
  let allowsTrailingCommas: Bool

  // MARK: - Results

  /// What has been found at the array's path.
  package internal(set) var target = Target.notSeen
  /// The value found at each watched path (index as in `paths`; 0 is unused).
  package internal(set) var captured: [JSON?]
  /// Whether the envelope's code came after the array's path was reached (the data before the
  /// code): its failure then ends the stream after the elements, however the body was chunked.
  package internal(set) var codeFollowsData = false

  // MARK: - Scan state

  var state = ScanState.start
  /// `.value`: whether `]` may come instead (first element, trailing comma); `.key`: `}`.
  var closes = false
  var stringIsKey = false
  var numberState = NumberState.afterMinus
  var literalBytes: [UInt8] = []
  var literalMatched = 0
  var bomMatched = 0
  var hexCount = 0
  var hexUnit: UInt16 = 0
  /// After a `\u` lead surrogate: the next escape must be its trail.
  var expectsTrail = false
  var utf8Remaining = 0
  var utf8Lower: UInt8 = 0x80
  var utf8Upper: UInt8 = 0xBF
  /// The byte offset of the chunk being read, and the line being read (for errors).
  var chunkOffset = 0
  var line = 1
  var lineStart = 0
  /// Whether each open container is an object, innermost last.
  var kinds: [Bool] = []
  /// The open containers on a watched path: always the outermost `levels.count` of `kinds`.
  var levels: [Level] = []
  /// The container `beginValue` found for the value it began: its mask and whether it is the
  /// array.
  var pendingMask: UInt64 = 0
  var pendingIsTarget = false
  var element = Capture()
  var value = Capture()
  var key = Capture()
  var keyIsWatched = false
  /// The nesting depth of the watched value being captured and the paths it is at.
  var valueDepth = 0
  var valueMask: UInt64 = 0
  var elementCount = 0
  /// The text of the last batch, kept for its capacity.
  var batchText: [UInt8] = []

  /// A framer for the elements of the array at `path`.
  ///
  /// - Parameters:
  ///   - path: where the array is: inside the envelope's data when `envelope` is given (as
  ///     `decodeEnvelope(_:from:format:at:)` reads it), else from the root.
  ///   - envelope: the envelope format whose code and message paths are watched; nil for a
  ///     plain body.
  ///   - maxDepth: the deepest nesting accepted, as `LenientDecoder.maxDepth`.
  ///   - allowsTrailingCommas: whether `[1,]` is accepted (LenientDecoder accepts it).
  package init(
    elementsAt path: JSONPath, in envelope: EnvelopeFormat? = nil, maxDepth: Int = 512,
    allowsTrailingCommas: Bool = true
  ) {
    let arrayPath = envelope.map { $0.data.appending(path) } ?? path
    var paths = [arrayPath.components]
    if let envelope {
      // Sixty-three watched paths at most (one bit each); formats have two or three.
      paths += ([envelope.code] + envelope.messages).prefix(63).map(\.components)
    }
    self.paths = paths
    var masks = [UInt64](repeating: 0, count: (paths.map(\.count).max() ?? 0) + 1)
    for (bit, path) in paths.enumerated() { masks[path.count] |= 1 << UInt64(bit) }
    lengthMasks = masks
    self.envelope = envelope
    self.arrayPath = arrayPath
    self.maxDepth = max(1, maxDepth)
    self.allowsTrailingCommas = allowsTrailingCommas
    captured = [JSON?](repeating: nil, count: paths.count)
  }

  // MARK: - Feeding

  /// Reads the next chunk of the document and hands out every element it completes, in order.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes, split anywhere.
  ///   - element: called with each element completed by this chunk.
  /// - Throws: `DecodingError.dataCorrupted` (with the `JSONReaderError`: offset, line,
  ///   column) when the document is malformed, and what `element` throws.
  package mutating func feed(
    _ chunk: UnsafeRawBufferPointer, _ element: (Element) throws -> Void
  ) throws {
    let bytes = chunk.bindMemory(to: UInt8.self)
    try scan(bytes, element)
    self.element.spill(bytes)
    value.spill(bytes)
    key.spill(bytes)
    chunkOffset += bytes.count
  }

  /// Reads the next chunk and hands out the elements it completes as one batch (none when it
  /// completes none): a stream decodes a batch in one decode (`FrameDecoder`), which costs a
  /// small element far less than a decode of its own.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes, split anywhere.
  ///   - batch: called once with the elements completed by this chunk, if any.
  /// - Throws: as `feed(_:_:)`, and what `batch` throws.
  package mutating func feedBatch(
    _ chunk: UnsafeRawBufferPointer, _ batch: (Batch) throws -> Void
  ) throws {
    // Taken out of `self` for the call: the element handler may not touch the framer.
    var text = batchText
    batchText = []
    text.removeAll(keepingCapacity: true)
    text.append(ASCII.openBracket)
    var ranges: [Range<Int>] = []
    var firstIndex = 0
    // The elements before a malformed byte are handed out before its error, as `feed` does.
    var failure: (any Error)?
    do {
      try feed(chunk) { element in
        if ranges.isEmpty {
          firstIndex = element.index
        } else {
          text.append(ASCII.comma)
        }
        let start = text.count
        text.append(contentsOf: element.bytes)
        ranges.append(start..<text.count)
      }
    } catch {
      failure = error
    }
    text.append(ASCII.closeBracket)
    defer { batchText = text }
    if !ranges.isEmpty {
      try text.withUnsafeBufferPointer {
        try batch(Batch(bytes: $0, firstIndex: firstIndex, ranges: ranges))
      }
    }
    if let failure { throw failure }
  }

  /// `feed(_:_:)` for a chunk held in `Data`.
  ///
  /// - Parameters:
  ///   - chunk: the next bytes.
  ///   - element: called with each element completed by this chunk.
  /// - Throws: as `feed(_:_:)`.
  package mutating func feed(_ chunk: Data, _ element: (Element) throws -> Void) throws {
    try chunk.withUnsafeBytes { try feed($0, element) }
  }

  /// Ends the document: it must be complete.
  ///
  /// - Throws: `DecodingError.dataCorrupted` (unexpected end of input) when the document is
  ///   not complete. Whether the array was there is `arrayError()`.
  package mutating func finish() throws {
    if state == .number, numberState.canEnd {
      // A number at the root ends with the input (an element never is at the root).
      try endValue(at: 0, in: UnsafeBufferPointer(start: nil, count: 0)) { _ in }
    }
    guard state == .done else { throw failure(.unexpectedEnd, atAbsolute: chunkOffset) }
  }

  // MARK: - Answers

  /// The error for an array that is not there, or nil: `DecodingError.keyNotFound` when the
  /// path is missing (at the end), `DecodingError.typeMismatch` when its value is not an array
  /// (known as soon as the value begins).
  ///
  /// - Parameter atEnd: whether the document has ended (`finish()` returned).
  /// - Returns: the error, or nil while the array is there or may still come.
  package func arrayError(atEnd: Bool) -> DecodingError? {
    let codingPath = arrayPath.components.map { AnyCodingKey($0) }
    switch target {
    case .open, .closed:
      return nil
    case .notArray(let found):
      return DecodingError.typeMismatch(
        [Any].self,
        DecodingError.Context(
          codingPath: codingPath,
          debugDescription: "Expected to decode Array<Any> but found \(found) instead."))
    case .notSeen:
      guard atEnd, let last = codingPath.last else { return nil }
      return DecodingError.keyNotFound(
        last,
        DecodingError.Context(
          codingPath: Array(codingPath.dropLast()),
          debugDescription: "No value at path \(arrayPath)."))
    }
  }

  /// The envelope's status as far as the document has been read: nil while the code has not
  /// been seen (and, at the end, for a plain body). The message is the first message path's
  /// value seen so far; a message that comes later in the document is only in the status asked
  /// at the end.
  ///
  /// - Parameter atEnd: whether the document has ended (a missing code is then final).
  /// - Returns: the status, or nil.
  /// - Throws: `EnvelopeError.missingCode` (at the end) or `EnvelopeError.invalidCode`, as
  ///   `decodeEnvelope` throws them.
  package func envelopeStatus(atEnd: Bool = false) throws -> EnvelopeStatus? {
    guard let envelope else { return nil }
    let code = captured[1]
    guard code != nil || atEnd else { return nil }
    let message = EnvelopeStatusReader.message(Array(2..<paths.count)) { captured[$0] }
    return try EnvelopeStatusReader.status(code: code, message: message, format: envelope)
  }

  /// How many elements have been handed out.
  package var count: Int { elementCount }

  // MARK: - Errors

  func failure(_ reason: JSONReaderError.Reason, atAbsolute offset: Int) -> DecodingError {
    let error = JSONReaderError(
      reason, offset: offset, line: line, column: max(1, offset - lineStart + 1))
    return LenientDecoder.dataCorrupted(error)
  }
}

/// The bytes of one value in flight: from the chunk it began in, plus what earlier chunks
/// held when it spans them.
struct Capture {
  private(set) var isActive = false
  /// Where it begins in the chunk being read (0 once it has spilled from an earlier one).
  private var start = 0
  /// The bytes of earlier chunks; empty when it began in this one.
  private var carry: [UInt8] = []
  /// The byte offset of its first byte in the document.
  private(set) var offset = 0

  mutating func begin(at index: Int, chunkOffset: Int) {
    isActive = true
    start = index
    offset = chunkOffset + index
    carry.removeAll(keepingCapacity: true)
  }

  /// At the end of a chunk: keeps the bytes read so far.
  mutating func spill(_ chunk: UnsafeBufferPointer<UInt8>) {
    guard isActive else { return }
    carry.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start...]))
    start = 0
  }

  /// Ends the value before `end` in `chunk` and calls `body` with all its bytes.
  mutating func end<R>(
    at end: Int, in chunk: UnsafeBufferPointer<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>) throws -> R
  ) rethrows -> R {
    isActive = false
    guard !carry.isEmpty else {
      return try body(UnsafeBufferPointer(rebasing: chunk[start..<end]))
    }
    carry.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<end]))
    return try carry.withUnsafeBufferPointer(body)
  }
}

/// Where a number stands after its last byte.
enum NumberState {
  case afterMinus, zero, integer, afterPoint, fraction, afterExponent, afterSign, exponent

  /// Whether the number may end here.
  var canEnd: Bool {
    switch self {
    case .zero, .integer, .fraction, .exponent: return true
    case .afterMinus, .afterPoint, .afterExponent, .afterSign: return false
    }
  }
}
