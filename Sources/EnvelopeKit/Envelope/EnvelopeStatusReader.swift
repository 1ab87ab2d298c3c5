import Foundation

/// The one answer to "what is this envelope's status", used by `decodeEnvelope`,
/// `envelopeStatus`, `decodeEnvelopeResult`, `RootModel` (under any `Decoder`) and
/// `EnvelopeCode`:
///
/// | at the code path | status |
/// |---|---|
/// | missing | `EnvelopeError.missingCode`, or success when the format's code is optional |
/// | an integer, however written and however large (`0`, `1.0`, `1e3`, `9223372036854775808.0`; `-0` is `0`), or a string or a bool | that code |
/// | null, an array, an object, a number with a fraction, an integer of more than 309 digits | `EnvelopeError.invalidCode(found:)` |
///
/// A number code is the integer it stands for, its text that integer's plain digits
/// (`integerText(_:)`): a code is compared as text, so `1e3`, `1000.0` and `1000` must be one
/// code, and a code past `Int` (`9223372036854775808.0`) is still that code (a business failure
/// for a success set of small codes), not a different answer for another spelling of it.
///
/// The message is the first message path holding a string, number or bool (as text); nil when
/// there is none.
enum EnvelopeStatusReader {
  /// The status from the value found at the format's code path (nil when missing) and the
  /// message (`message(_:)` of the values at the message paths).
  ///
  /// - Parameters:
  ///   - code: the value at the code path.
  ///   - message: the message.
  ///   - format: the format.
  /// - Returns: the status.
  /// - Throws: `EnvelopeError.missingCode` or `EnvelopeError.invalidCode(found:)`.
  static func status(code: JSON?, message: String?, format: EnvelopeFormat) throws
    -> EnvelopeStatus
  {
    guard let code else {
      guard format.codeIsOptional else { throw EnvelopeError.missingCode }
      return EnvelopeStatus(code: nil, message: message, isSuccess: true)
    }
    let value = try self.code(code).get()
    return EnvelopeStatus(code: value, message: message, isSuccess: format.isSuccess(value))
  }

  /// A code from a JSON value, or why it is not one.
  ///
  /// - Parameter value: the value at the code path.
  /// - Returns: the code, or `EnvelopeError.invalidCode(found:)`.
  static func code(_ value: JSON) -> Result<EnvelopeCode, EnvelopeError> {
    switch value {
    case .string(let text):
      return .success(EnvelopeCode(storage: .string(text)))
    case .bool(let flag):
      return .success(EnvelopeCode(storage: .bool(flag)))
    case .number(let number):
      // An integer as written, but `-0`: the integer 0, whose text is `0` (as Foundation's
      // decoder reads it, and as `-0.0` and `0e0` are read below).
      if number.isIntegerLiteral, number.text != "-0", number.text.utf8.count <= maxCodeDigits {
        return .success(EnvelopeCode(storage: .number(number.text)))
      }
      // An integral value written otherwise (`1.0`, `1e3`, `-0`, `9223372036854775808.0`) is
      // that integer, at any size up to `maxCodeDigits`.
      if let text = integerText(number) {
        return .success(EnvelopeCode(storage: .number(text)))
      }
      return .failure(.invalidCode(found: snippet(value)))
    case .null, .array, .object:
      return .failure(.invalidCode(found: snippet(value)))
    }
  }

  /// The most digits a number code may have: an integer past `Double`'s range (309 digits) is
  /// no code a server means, and `1e1000000` would be a megabyte of digits.
  static let maxCodeDigits = 309

  /// The integer a number stands for, in plain digits (`1.0`, `1e0` and `10e-1` are `1`;
  /// `-0.0` is `0`; `9223372036854775808.0` is `9223372036854775808`); nil when it has a
  /// fraction or more than `maxCodeDigits` digits.
  ///
  /// - Parameter number: a JSON number.
  /// - Returns: the integer's text, or nil.
  static func integerText(_ number: JSONNumber) -> String? {
    var text = number.text
    let parts = text.withUTF8 { DecimalParts($0) }
    guard let parts else { return nil }
    // Trailing zeros are in the exponent: a negative one is a fraction.
    if parts.digits.isEmpty { return "0" }
    guard parts.exponent >= 0, parts.digits.count + parts.exponent <= maxCodeDigits else {
      return nil
    }
    var bytes = parts.negative ? [ASCII.minus] : []
    bytes += parts.digits
    bytes += repeatElement(ASCII.zero, count: parts.exponent)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The first message that is a string, number or bool, as text: the value at each message
  /// path in turn (`value` of the path; nil when missing), and no value read after it.
  static func message<Path>(_ paths: [Path], _ value: (Path) throws -> JSON?) rethrows
    -> String?
  {
    for path in paths {
      if let text = message(try value(path)) { return text }
    }
    return nil
  }

  /// A message path's value as text when it is a string, number or bool; else nil.
  private static func message(_ value: JSON?) -> String? {
    switch value {
    case .string(let text)?: return text
    case .number(let number)?: return number.text
    case .bool(let flag)?: return flag ? "true" : "false"
    default: return nil
    }
  }

  /// `array [1]`, `null`, `number 1.5`: the kind and at most 40 characters of the text.
  static func snippet(_ value: JSON) -> String {
    value == .null ? "null" : value.kindName + " " + value.snippet()
  }
}
