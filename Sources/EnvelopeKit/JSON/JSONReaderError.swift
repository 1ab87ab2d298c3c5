import Foundation

/// Why the JSON reader rejected its input, and where.
///
/// `JSON(data:)` throws it directly; the decoders wrap it in `DecodingError.dataCorrupted`
/// with this value as `underlyingError` and its text in the debug description:
/// `unexpected character '}', expected a value at line 3, column 14 (offset 57)`.
public struct JSONReaderError: Error, Equatable, Sendable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  enum Reason: Equatable, Sendable {
    case unexpectedEnd
    case unexpectedCharacter(UInt8, expected: String)
    case invalidLiteral
    case invalidNumber
    case invalidEscape
    case invalidUnicodeEscape
    case loneSurrogate
    case controlCharacterInString(UInt8)
    case invalidUTF8
    case tooDeep(limit: Int)
    case trailingContent
    case tooLarge
  }

  var reason: Reason
  /// The byte offset from the start of the input.
  public internal(set) var offset: Int
  /// The 1-based line number.
  public internal(set) var line: Int
  /// The 1-based column, counted in bytes.
  public internal(set) var column: Int

  init(_ reason: Reason, offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
    self.reason = reason
    self.offset = offset
    (line, column) = Self.lineAndColumn(of: offset, in: bytes)
  }

  /// An error at a position counted by its finder (a stream's framer, which keeps no bytes
  /// behind it to count lines in).
  init(_ reason: Reason, offset: Int, line: Int, column: Int) {
    self.reason = reason
    self.offset = offset
    self.line = line
    self.column = column
  }

  /// The 1-based line and byte column of `offset`.
  static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
    var line = 1
    var lineStart = 0
    var i = 0
    let limit = min(offset, bytes.count)
    while i < limit {
      if bytes[i] == ASCII.newline {
        line += 1
        lineStart = i + 1
      }
      i += 1
    }
    return (line, offset - lineStart + 1)
  }

  /// What went wrong, without the position: `invalid number`.
  public var reasonText: String {
    switch reason {
    case .unexpectedEnd: return "unexpected end of input"
    case .unexpectedCharacter(let byte, let expected):
      return "unexpected character \(Self.describe(byte)), expected \(expected)"
    case .invalidLiteral: return "invalid literal"
    case .invalidNumber: return "invalid number"
    case .invalidEscape: return "invalid escape sequence"
    case .invalidUnicodeEscape: return "invalid \\u escape"
    case .loneSurrogate: return "unpaired UTF-16 surrogate in \\u escape"
    case .controlCharacterInString(let byte):
      return "unescaped control character \(Self.describe(byte)) in string"
    case .invalidUTF8: return "invalid UTF-8"
    case .tooDeep(let limit): return "nesting deeper than \(limit) levels"
    case .trailingContent: return "unexpected content after the top-level value"
    case .tooLarge: return "input larger than 4 GiB"
    }
  }

  /// The reason and the position.
  public var description: String {
    "\(reasonText) at line \(line), column \(column) (offset \(offset))"
  }

  /// Same as `description`.
  public var debugDescription: String { description }

  private static func describe(_ byte: UInt8) -> String {
    if byte >= 0x20 && byte < 0x7F {
      return "'\(Character(Unicode.Scalar(byte)))'"
    }
    let hex = String(byte, radix: 16, uppercase: true)
    return "0x" + (hex.count == 1 ? "0" + hex : hex)
  }
}
