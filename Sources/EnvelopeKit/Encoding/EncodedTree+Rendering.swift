import Foundation

/// Rendering scalars as JSON text: the one place EnvelopeKit's escaping and number formatting
/// live. Both equal `JSONEncoder`'s: `"`, `\`, `/` (unless slashes are left alone) and the
/// control characters are escaped (`\b \f \n \r \t`, others `\u00XX` in lower-case hex), every
/// other character is written as UTF-8; integers in decimal; floating-point numbers as Swift's
/// `description` prints them (the shortest text that reads back the same value) without a
/// trailing `.0`, by `ShortestDecimal`.
extension EncodedTree {
  /// Appends `string` as a quoted JSON string.
  ///
  /// - Returns: whether any character needed escaping.
  @discardableResult
  func appendString(_ string: String) -> Bool {
    append(UInt8(ascii: "\""))
    let escaped = appendStringContents(string)
    append(UInt8(ascii: "\""))
    return escaped
  }

  /// Appends `string`'s escaped contents, without quotes.
  ///
  /// - Returns: whether any character needed escaping.
  func appendStringContents(_ string: String) -> Bool {
    if let escaped = string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) {
      return escaped
    }
    var copy = string
    return copy.withUTF8 { appendEscaped($0) }
  }

  private func appendEscaped(_ source: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = source.baseAddress else { return false }
    let count = source.count
    reserve(count)
    var mark = 0
    var index = 0
    var escaped = false
    let slashes = escapesSlashes
    while index < count {
      // Eight bytes at a time while none needs escaping (most text).
      if index + 8 <= count,
        !Self.mayNeedEscape(
          UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self), slashes: slashes)
      {
        index += 8
        continue
      }
      let byte = base[index]
      guard byte < 0x20 || byte == 0x22 || byte == 0x5C || (byte == 0x2F && slashes) else {
        index += 1
        continue
      }
      escaped = true
      append(UnsafeRawBufferPointer(start: base + mark, count: index - mark))
      appendEscape(for: byte)
      index += 1
      mark = index
    }
    append(UnsafeRawBufferPointer(start: base + mark, count: count - mark))
    return escaped
  }

  /// Whether any of eight bytes is a control character, `"`, `\` or (when escaped) `/`:
  /// exact, with the "has a zero byte" bit trick on each pattern.
  @inline(__always)
  private static func mayNeedEscape(_ word: UInt64, slashes: Bool) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    @inline(__always) func hasZero(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
    var found = (word &- ones &* 0x20) & ~word & highs  // a byte below 0x20
    found |= hasZero(word ^ (ones &* 0x22))
    found |= hasZero(word ^ (ones &* 0x5C))
    if slashes { found |= hasZero(word ^ (ones &* 0x2F)) }
    return found != 0
  }

  private func appendEscape(for byte: UInt8) {
    append(UInt8(ascii: "\\"))
    switch byte {
    case 0x22: append(UInt8(ascii: "\""))
    case 0x5C: append(UInt8(ascii: "\\"))
    case 0x2F: append(UInt8(ascii: "/"))
    case 0x08: append(UInt8(ascii: "b"))
    case 0x0C: append(UInt8(ascii: "f"))
    case 0x0A: append(UInt8(ascii: "n"))
    case 0x0D: append(UInt8(ascii: "r"))
    case 0x09: append(UInt8(ascii: "t"))
    default:
      let hex: StaticString = "0123456789abcdef"
      append("u00")
      append(hex.utf8Start[Int(byte >> 4)])
      append(hex.utf8Start[Int(byte & 0xF)])
    }
  }

  /// Appends an integer in decimal.
  @inline(__always)
  func appendInteger<Integer: FixedWidthInteger>(_ value: Integer) {
    if Integer.bitWidth <= 64 {
      if Integer.isSigned {
        appendDecimal(Int64(truncatingIfNeeded: value))
      } else {
        appendDecimal(UInt64(truncatingIfNeeded: value), negative: false)
      }
    } else {
      var text = value.description
      text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }
  }

  private func appendDecimal(_ value: Int64) {
    appendDecimal(value.magnitude, negative: value < 0)
  }

  /// Writes the digits straight into the arena, two per division, after counting them.
  private func appendDecimal(_ magnitude: UInt64, negative: Bool) {
    appendWritten(atMost: 21) { start in
      var cursor = start
      if negative {
        cursor.pointee = UInt8(ascii: "-")
        cursor += 1
      }
      var length = 1
      var threshold: UInt64 = 10
      while length < 20, magnitude >= threshold {
        length += 1
        if length == 20 { break }
        threshold &*= 10
      }
      let zero = UInt8(ascii: "0")
      var end = cursor + length
      var rest = magnitude
      while rest >= 100 {
        let pair = UInt8(truncatingIfNeeded: rest % 100)
        rest /= 100
        end -= 2
        end[0] = zero &+ pair / 10
        end[1] = zero &+ pair % 10
      }
      if rest >= 10 {
        let pair = UInt8(truncatingIfNeeded: rest)
        end[-2] = zero &+ pair / 10
        end[-1] = zero &+ pair % 10
      } else {
        end[-1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
      }
      return cursor + length - start
    }
  }

  /// Appends a finite floating-point number as `JSONEncoder` writes it (`ShortestDecimal`).
  @inline(__always)
  func appendFloatingPoint<Number: JSONFloatingPoint>(_ value: Number) {
    appendWritten(atMost: ShortestDecimal.room) { Number.writeJSON(value, to: $0) }
  }

  /// Appends a key's escaped contents.
  ///
  /// - Returns: where it starts and how long it is.
  @inline(__always)
  func appendKey(_ key: String) -> (start: Int, length: Int, escaped: Bool) {
    let start = byteCount
    let escaped = appendStringContents(key)
    return (start, byteCount - start, escaped)
  }
}

extension EncodedTree {
  /// Makes `member` hold `json`, numbers as their exact text, without recursion.
  func appendJSON(_ json: JSON, into member: Int, depth: Int) {
    var pending: [(value: JSON, member: Int, depth: Int)] = [(json, member, depth)]
    while let (value, slot, level) = pending.popLast() {
      let start = byteCount
      switch value {
      case .null: append("null")
      case .bool(let flag): append(flag ? "true" : "false")
      case .number(let number):
        var text = number.text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
      case .string(let string): appendString(string)
      case .array(let elements):
        let container = attachContainer(to: slot, isObject: false, depth: level)
        for element in elements {
          let item = appendMember(to: container, keyStart: -1, keyLength: 0)
          pending.append((element, item, level + 1))
        }
        continue
      case .object(let object):
        let container = attachContainer(to: slot, isObject: true, depth: level)
        for (key, element) in object {
          let item = appendMember(named: key, to: container)
          pending.append((element, item, level + 1))
        }
        continue
      }
      finishValue(of: slot, from: start)
    }
  }
}

extension JSONNumber {
  /// The number as `ModelEncoder` and `JSONEncoder` write `value` (`1.0` as `1`).
  ///
  /// - Throws: `EncodingError.invalidValue` for an infinity or NaN, which JSON cannot hold.
  init(encoding value: Double) throws {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: [], debugDescription: "Unable to encode Double.\(value) directly in JSON."))
    }
    self.init(validated: ShortestDecimal.text(value))
  }
}
