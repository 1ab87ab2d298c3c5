import Foundation

/// A scanned JSON input: its bytes and the tape of tokens over them (see JSONToken.swift).
///
/// Immutable after `init` (but for `ownBytes()`, see `scanning`); shared by reference between
/// the decoder's containers. The hot accessors index plain pointers.
///
/// `@unchecked Sendable`: the tokens and bytes are written only while one owner holds the
/// document and nothing else can reach it: in `init`; by `finish` after a call of `scanning`
/// or a decode of a `copying` document (the bytes replaced by a copy, or the document emptied
/// and kept for the thread's next scan when nothing else holds it: `SpareDocument`); and by
/// that next scan before it hands the document out. In between everything is read-only, so sharing across threads cannot race.
final class JSONDocument: @unchecked Sendable {
  /// The tape. Unchecked: written only as said above, when nothing else reads the document.
  @exclusivity(unchecked) private(set) var tokens: UnsafeBufferPointer<JSONToken>
  /// The capacity of the tape's buffer, for `SpareTape.giveBack`.
  @exclusivity(unchecked) private var tapeCapacity: Int
  /// The input; `scanning` swaps a borrowed input for an owned copy. Unchecked: it changes
  /// only there, when nothing else reads the document (see above).
  @exclusivity(unchecked) private var input: Input

  private struct Input {
    var bytes: UnsafeBufferPointer<UInt8>
    /// Whether `deinit` frees `bytes` (false while they are borrowed from a `Data`).
    var isOwned: Bool
    /// The capacity of the thread's spare input buffer `bytes` start at (`copying`), which
    /// goes back to the thread when the document lets go of the bytes; 0 for any other bytes.
    var spareCapacity = 0
  }

  /// The input bytes (UTF-8).
  @inline(__always)
  var bytes: UnsafeBufferPointer<UInt8> { input.bytes }

  /// Scans a copy of `data`.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON.
  ///   - maxDepth: the deepest container nesting accepted.
  ///   - allowsTrailingCommas: whether `[1,]` and `{"a":1,}` are accepted (as Foundation's
  ///     `JSONDecoder` accepts them); strict RFC 8259 when false.
  /// - Throws: `JSONReaderError` at the first problem.
  convenience init(data: Data, maxDepth: Int, allowsTrailingCommas: Bool = false)
    throws(JSONReaderError)
  {
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, data.count))
    _ = storage.initialize(from: data)
    try self.init(
      bytes: UnsafeBufferPointer(rebasing: storage[0..<data.count]), isOwned: true,
      maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas)
  }

  private init(
    bytes: UnsafeBufferPointer<UInt8>, isOwned: Bool, maxDepth: Int, allowsTrailingCommas: Bool
  ) throws(JSONReaderError) {
    do {
      (tokens, tapeCapacity) = try Self.tape(
        of: bytes, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas)
    } catch {
      if isOwned { bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() } }
      throw error
    }
    input = Input(bytes: bytes, isOwned: isOwned)
  }

  /// The tape of `bytes` and its buffer's capacity.
  private static func tape(
    of bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsTrailingCommas: Bool
  ) throws(JSONReaderError) -> (UnsafeBufferPointer<JSONToken>, Int) {
    let scanner = JSONScanner(
      bytes: bytes, maxDepth: max(1, maxDepth), allowsTrailingCommas: allowsTrailingCommas)
    let tape = try scanner.scan()
    return (UnsafeBufferPointer(tape.tokens), tape.capacity)
  }

  /// A document of borrowed `bytes`: the thread's spare document (`SpareDocument`) scanning
  /// them, or a new one.
  private static func borrowing(
    _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsTrailingCommas: Bool
  ) throws(JSONReaderError) -> JSONDocument {
    guard let spare = SpareDocument.take() else {
      return try JSONDocument(
        bytes: bytes, isOwned: false, maxDepth: maxDepth,
        allowsTrailingCommas: allowsTrailingCommas)
    }
    do {
      (spare.tokens, spare.tapeCapacity) = try tape(
        of: bytes, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas)
    } catch {
      SpareDocument.keep(spare)
      throw error
    }
    spare.input = Input(bytes: bytes, isOwned: false)
    return spare
  }

  /// Gives the tape back (`SpareTape`) and forgets the bytes, leaving the document empty, to
  /// be kept for the thread's next scan. Only for a document nothing else holds.
  fileprivate func empty() {
    if input.isOwned {
      bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    }
    giveBackSpareInput()
    input = Input(bytes: UnsafeBufferPointer(start: nil, count: 0), isOwned: false)
    tokens.baseAddress.map {
      SpareTape.giveBack(UnsafeMutablePointer(mutating: $0), capacity: tapeCapacity)
    }
    tokens = UnsafeBufferPointer(start: nil, count: 0)
    tapeCapacity = 0
  }

  /// A document holding `null`: where a decoder stands between the frames of a stream
  /// (`FrameDecoder`), so that it keeps no frame's document alive.
  static let placeholder = JSONDocument(null: ())

  private init(null: ()) {
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 4)
    _ = storage.initialize(from: "null".utf8)
    let tape = UnsafeMutableBufferPointer<JSONToken>.allocate(capacity: 1)
    tape.initialize(repeating: JSONToken(kind: .null, start: 0, end: 4, next: 1))
    tokens = UnsafeBufferPointer(tape)
    tapeCapacity = 1
    input = Input(bytes: UnsafeBufferPointer(storage), isOwned: true)
  }

  /// The largest input `copying` copies, in bytes.
  static var copiedInputLimit: Int { 8192 }

  /// A document of small UTF-8 `data`, scanned from a copy in the thread's spare input buffer
  /// (`SpareBuffer`); nil when `data` is larger than `copiedInputLimit` or another encoding
  /// (then `scanning` reads it). `scanning` decodes with it and then hands it to `finish(_:)`,
  /// on every path: the buffer goes back to the thread there.
  ///
  /// Tried before the rest of `scanning`, which passes the caller's result (of a generic type)
  /// through closures and a temporary allocation, which cost a 253 B envelope's decode a `Result`
  /// metadata lookup, runtime enum tag calls and four exclusivity checks (`Data`'s inlined
  /// `withUnsafeBytes`) per call; copying up to 8 KB costs less than that (the 4.9 KB page of
  /// 20 users decodes 2% faster copied).
  ///
  /// - Throws: `readerError` of the first reader problem.
  private static func copying(
    _ data: Data, maxDepth: Int, allowsTrailingCommas: Bool, readsUTF16And32: Bool,
    readerError: (JSONReaderError) -> any Error
  ) throws -> JSONDocument? {
    let count = data.count
    guard count <= copiedInputLimit else { return nil }
    let (base, capacity) = SpareBuffer.take(.input, minimumCapacity: max(1, count), of: UInt8.self)
    data.copyBytes(to: base, count: count)
    let bytes = UnsafeBufferPointer(start: base, count: count)
    // UTF-16 and UTF-32 are transcoded by `scanning` (two byte reads for UTF-8).
    guard !readsUTF16And32 || JSONInputEncoding.isUTF8(UnsafeRawBufferPointer(bytes)) else {
      SpareBuffer.giveBack(.input, base, capacity: capacity, largestKept: copiedInputLimit)
      return nil
    }
    let document: JSONDocument
    do throws(JSONReaderError) {
      document = try borrowing(
        bytes, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas)
    } catch {
      SpareBuffer.giveBack(.input, base, capacity: capacity, largestKept: copiedInputLimit)
      throw readerError(error)
    }
    // The document borrows the buffer until `finish` (`empty()` or `ownBytes()` give it back).
    document.input.spareCapacity = capacity
    return document
  }

  /// Gives the thread's spare input buffer back if the bytes are in it (`copying`); the
  /// caller then stops reading them.
  private func giveBackSpareInput() {
    guard input.spareCapacity > 0, let base = input.bytes.baseAddress else { return }
    SpareBuffer.giveBack(
      .input, UnsafeMutablePointer(mutating: base), capacity: input.spareCapacity,
      largestKept: Self.copiedInputLimit)
    input.spareCapacity = 0
  }

  /// Scans `data` without copying it and calls `body` with the document.
  ///
  /// The bytes are borrowed from `data` for the call (at 100 MB the copy was a sixth of the
  /// decoder's peak memory and 5% of the reader's time). A document still referenced when
  /// `body` returns (a model that kept its `Decoder`, say) first takes a copy of the bytes, so
  /// it never reads memory it does not own.
  ///
  /// - Parameters:
  ///   - data: UTF-8 JSON.
  ///   - maxDepth: the deepest container nesting accepted.
  ///   - allowsTrailingCommas: as for `init(data:maxDepth:allowsTrailingCommas:)`.
  ///   - readsUTF16And32: whether UTF-16 and UTF-32 input is read too, as Foundation's
  ///     `JSONDecoder` reads it (`JSONInputEncoding`); UTF-8 only when false (RFC 8259).
  ///   - readerError: what to throw for a `JSONReaderError`.
  ///   - body: the work to do with the document.
  /// - Returns: what `body` returns.
  /// - Throws: `readerError` of the first reader problem, or what `body` throws.
  @inline(__always)
  static func scanning<R>(
    _ data: Data, maxDepth: Int, allowsTrailingCommas: Bool = false,
    readsUTF16And32: Bool = false,
    readerError: (JSONReaderError) -> any Error = { $0 },
    _ body: (JSONDocument) throws -> R
  ) throws -> R {
    // Small input: scanned from a copy, before the generic plumbing below (see `copying`).
    // Moved into `using`: a binding left holding it would keep `finish` from reusing it.
    if let document = try copying(
      data, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas,
      readsUTF16And32: readsUTF16And32, readerError: readerError)
    {
      return try using(consume document, body)
    }
    return try scanningInPlace(
      data, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas,
      readsUTF16And32: readsUTF16And32, readerError: readerError, body)
  }

  /// `scanning` of input `copying` does not take: the bytes borrowed from `data`.
  private static func scanningInPlace<R>(
    _ data: Data, maxDepth: Int, allowsTrailingCommas: Bool, readsUTF16And32: Bool,
    readerError: (JSONReaderError) -> any Error, _ body: (JSONDocument) throws -> R
  ) throws -> R {
    // The result goes through stack space of `R`'s size, so that `Data.withUnsafeBytes` takes
    // a closure of a concrete type (`Void`) and is specialised and inlined here: with `R` it
    // was three unspecialised calls into Foundation and two thunks per decode (3% of a small
    // envelope's decode).
    return try withUnsafeTemporaryAllocation(of: R.self, capacity: 1) { result in
      try data.withUnsafeBytes { (raw) throws -> Void in
        if readsUTF16And32 {
          let utf8: Data?
          do throws(JSONReaderError) {
            utf8 = try JSONInputEncoding.transcoded(raw)
          } catch {
            throw readerError(error)
          }
          if let utf8 {
            result.initializeElement(
              at: 0,
              to: try scanning(
                utf8, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas,
                readerError: readerError, body))
            return
          }
        }
        let bytes = UnsafeBufferPointer(
          start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
        result.initializeElement(
          at: 0,
          to: try scanning(
            bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas,
            readerError: readerError, body))
      }
      // Initialised: the closure returned without throwing.
      return result.moveElement(from: 0)
    }
  }

  /// Scans UTF-8 `bytes` without copying them and calls `body` with the document; as
  /// `scanning(_:maxDepth:allowsTrailingCommas:readsUTF16And32:readerError:_:)`, for bytes
  /// that are not a `Data` (a frame of a stream, borrowed from its chunk).
  static func scanning<R>(
    bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, allowsTrailingCommas: Bool = false,
    readerError: (JSONReaderError) -> any Error = { $0 },
    _ body: (JSONDocument) throws -> R
  ) throws -> R {
    let document: JSONDocument
    do throws(JSONReaderError) {
      document = try borrowing(
        bytes, maxDepth: maxDepth, allowsTrailingCommas: allowsTrailingCommas)
    } catch {
      throw readerError(error)
    }
    return try using(consume document, body)
  }

  /// `body` with `document`, then `finish(_:)`, whether `body` returns or throws. The document
  /// is moved, not copied, into `finish`: a copy would be a retain and a release per call, and
  /// `finish` would find it referenced.
  @inline(__always)
  private static func using<R>(
    _ document: consuming JSONDocument, _ body: (JSONDocument) throws -> R
  ) throws -> R {
    let result: R
    do {
      result = try body(document)
    } catch {
      finish(consume document)
      throw error
    }
    finish(consume document)
    return result
  }

  /// After a call of `scanning` or a decode of a `copying` document: a document nothing else
  /// holds is kept, emptied, for the thread's next scan (no allocation then); one still held
  /// takes a copy of its bytes. Either way a `copying` document gives its buffer back.
  private static func finish(_ document: consuming JSONDocument) {
    var document = document
    if isKnownUniquelyReferenced(&document) {
      SpareDocument.keep(document)
    } else {
      document.ownBytes()
    }
  }

  /// A reader error about the value at token `index`, with its line and column.
  func error(_ reason: JSONReaderError.Reason, at index: Int) -> JSONReaderError {
    JSONReaderError(reason, offset: Int(tokens[index].start), in: bytes)
  }

  /// Whether the document owns its bytes (false while they are borrowed).
  var ownsBytes: Bool { input.isOwned }

  /// Replaces borrowed bytes by an owned copy.
  private func ownBytes() {
    guard !input.isOwned else { return }
    let borrowed = input.bytes
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, borrowed.count))
    _ = storage.initialize(from: borrowed)
    giveBackSpareInput()
    input = Input(
      bytes: UnsafeBufferPointer(rebasing: storage[0..<borrowed.count]), isOwned: true)
  }

  deinit {
    // A `copying` document's spare input went back in `finish`, which `using` runs on every
    // path (`empty()` or `ownBytes()`); no document reaches here still borrowing it.
    assert(input.spareCapacity == 0, "a spare input buffer outlived its call")
    if input.isOwned {
      bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    }
    tokens.baseAddress.map {
      SpareTape.giveBack(UnsafeMutablePointer(mutating: $0), capacity: tapeCapacity)
    }
  }

  // MARK: - Token access

  @inline(__always)
  func kind(_ index: Int) -> JSONToken.Kind { tokens[index].kind }

  @inline(__always)
  func next(_ index: Int) -> Int { Int(tokens[index].next) }

  /// The element count of an array, the pair count of an object (0 for scalars). Counted by
  /// walking the children only past 65,534, where the token's 16 bits saturate.
  @inline(__always)
  func count(_ index: Int) -> Int {
    let short = tokens[index].shortCount
    if short < .max { return Int(short) }
    let stride = kind(index) == .object ? 2 : 1
    var child = index + 1
    var count = 0
    let end = next(index)
    while child < end {
      child = next(child + stride - 1)
      count += 1
    }
    return count
  }

  /// Calls `body` with the raw bytes of a scalar token (a string's contents without quotes).
  @inline(__always)
  func withBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    let token = tokens[index]
    return try body(UnsafeBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.end)]))
  }

  /// The source text of a scalar token (numbers, literals, raw string contents).
  func rawText(_ index: Int) -> String {
    withBytes(index) { String(decoding: $0, as: UTF8.self) }
  }

  /// The decoded value of a string token.
  ///
  /// A string without escapes is copied without validating its UTF-8 again: the scanner made
  /// every token of the tape and validated every string's UTF-8 (`JSONStringTail`), and its
  /// `isNonASCII` flag says whether a byte is 0x80 or above. `ScannerFuzzDifferentialTests`
  /// and the `scanner` fuzz target hold both against Swift's own validation. (Validating again
  /// was 7% of twitter.json's decode.)
  func string(_ index: Int) -> String {
    let token = tokens[index]
    // (A container's flags say nothing of its bytes' UTF-8.)
    assert(token.kind == .string, "string(_:) of a \(token.kind)")
    let isNonASCII = token.flags.contains(.isNonASCII)
    if !token.flags.contains(.hasEscapes) {
      return withBytes(index) { validatedString($0, isASCII: !isNonASCII) }
    }
    return withBytes(index) { unescape($0, isNonASCII: isNonASCII) }
  }

  /// The members of the object at `object` as (key token, value token) pairs, in order.
  func members(of object: Int) -> some Sequence<(key: Int, value: Int)> {
    let end = Int(tokens[object].next)
    return sequence(state: object + 1) { child -> (key: Int, value: Int)? in
      guard child < end else { return nil }
      let member = (key: child, value: child + 1)
      child = Int(self.tokens[child + 1].next)
      return member
    }
  }

  /// The token index of element `position` of the array at `array`.
  func elementIndex(_ position: Int, inArray array: Int) -> Int? {
    guard position >= 0, position < count(array) else { return nil }
    var child = array + 1
    for _ in 0..<position { child = next(child) }
    return child
  }
}

/// One empty `JSONDocument` per thread, reused by the next scan of borrowed bytes on that
/// thread (`JSONDocument.scanning`), so that a small decode allocates and frees no document
/// object. A document is kept only when nothing else holds it once its call returns, and kept
/// empty (its tape goes back to `SpareTape`, its bytes are forgotten), so a thread keeps one
/// object of a few words and nothing of the input. A scan takes the spare out of the slot:
/// a nested scan on the same thread (JSON held in a string) makes its own document. Off with
/// every spare buffer (`SpareTape.isEnabled`).
enum SpareDocument {
  /// The thread's spare document, taken out of its slot; nil when there is none.
  static func take() -> JSONDocument? {
    SpareBuffer.takeObject(.document, as: JSONDocument.self)
  }

  /// Empties `document` and keeps it as the thread's spare when the slot is free. Only for a
  /// document nothing else holds (`isKnownUniquelyReferenced`).
  static func keep(_ document: JSONDocument) {
    document.empty()
    SpareBuffer.keepObject(document, .document)
  }
}

/// Entry points for the benchmark executable; not API.
package enum ReaderBenchmark {
  /// Scans `data` into a tape and returns the token count.
  package static func scan(_ data: Data, maxDepth: Int = 512) throws -> Int {
    try JSONDocument.scanning(data, maxDepth: maxDepth) { $0.tokens.count }
  }
}
