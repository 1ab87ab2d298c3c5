// Whitespace for the reader's main loop (`JSONScanner.scanValues`): static functions of the
// bytes alone, like the scanner's other helpers, so that its state stays in registers.

extension JSONScanner {
  /// The first byte at or after `i` that is not whitespace (or the end of the input). The
  /// common case (no whitespace: every JSON whitespace byte is at most 0x20) is inlined; runs
  /// go to `skipWhitespaceRun`.
  @inline(__always)
  static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
    guard i < bytes.count, bytes[i] <= ASCII.space else { return i }
    return skipWhitespaceRun(bytes, i)
  }

  /// `skipWhitespace` where pretty printers start a new line (after an opening bracket, after a
  /// comma, before a closing bracket) indented by `unit` spaces a level, at `depth` levels: a
  /// newline and `depth * unit` spaces before a byte that is not whitespace are checked by
  /// compares whose outcome is only a branch, so the position after them is known before any of
  /// those bytes is read (from the first byte that is not a space, as `skipWhitespaceRun` finds
  /// it, the next token waits for a load, a count of trailing zeros and a shift). Anything else goes to `skipWhitespaceRun`, and a
  /// run that began with a newline sets `unit` for the next line. On twitter.json and
  /// citm_catalog.json all but one line after a comma is as predicted. Used after a comma
  /// first (twitter reader +6-9%, citm +6-7%, canada -2-3%), then also at both brackets (citm
  /// a further +5%, canada +2-4%; after an opening bracket alone, all three lost 1-2%).
  @inline(__always)
  static func skipLine(
    _ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, depth: Int, unit: inout Int
  ) -> Int {
    guard let base = bytes.baseAddress, i < bytes.count, bytes[i] <= ASCII.space else { return i }
    let count = bytes.count
    let first = i &+ 1
    // No overflow: a depth and a unit each come from an input of fewer than 2^32 bytes, and the
    // unit was learnt as a run of at most that many bytes spread over at least one level.
    let end = first &+ depth &* unit
    if base[i] == ASCII.newline, end < count, end >= 8, base[end] > ASCII.space {
      let spaces: UInt64 = 0x2020_2020_2020_2020
      var offset = first
      var same = true
      while end &- offset >= 8 {
        if UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self) != spaces {
          same = false
          break
        }
        offset &+= 8
      }
      // The last 1-7 spaces: the word that ends at `end`, its bytes before `offset` shifted out.
      let left = end &- offset
      if same, left > 0 {
        let word =
          UInt64(littleEndian: UnsafeRawPointer(base + (end &- 8)).loadUnaligned(as: UInt64.self))
          ^ spaces
        same = word &>> UInt64(8 &* (8 &- left)) == 0
      }
      if same { return end }
    }
    let after = skipWhitespaceRun(bytes, i)
    if base[i] == ASCII.newline, depth > 0 { unit = (after &- first) / depth }
    return after
  }

  /// Skips whitespace from `start`. After each whitespace byte, the spaces that follow are
  /// skipped a word at a time, the last partial word by counting its leading spaces:
  /// pretty-printed payloads such as twitter.json put a newline and a run of indentation before
  /// every line.
  static func skipWhitespaceRun(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
    guard let base = bytes.baseAddress else { return start }
    let count = bytes.count
    var cursor = start
    while cursor < count {
      switch base[cursor] {
      case ASCII.space, ASCII.newline, ASCII.carriageReturn, ASCII.tab:
        cursor &+= 1
        while count &- cursor >= 8 {
          let others =
            UInt64(littleEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
            ^ 0x2020_2020_2020_2020
          if others != 0 {
            cursor &+= others.trailingZeroBitCount &>> 3
            break
          }
          cursor &+= 8
        }
      default:
        return cursor
      }
    }
    return cursor
  }
}
