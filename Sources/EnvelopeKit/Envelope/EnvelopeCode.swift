/// A business status code as the JSON had it: an integer, a string or a bool.
///
/// A number code is the integer it stands for, as its plain digits, however the JSON wrote it
/// (`1.0`, `1e0` and `10e-1` are the code `1`; `9223372036854775808.0` is `9223372036854775808`).
///
/// Codes are equal when their canonical text is equal, so `0 == "0"` and `false == "false"`,
/// but `"000" != 0`: a code is never reinterpreted.
public struct EnvelopeCode: Hashable, Sendable, CustomStringConvertible, Codable,
  ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
  /// What the JSON held.
  enum Storage: Sendable {
    /// The exact number text.
    case number(String)
    case string(String)
    case bool(Bool)
  }

  let storage: Storage

  init(storage: Storage) {
    self.storage = storage
  }

  /// Creates a numeric code.
  ///
  /// - Parameter value: the code.
  public init(integerLiteral value: Int) { storage = .number(String(value)) }

  /// Creates a string code.
  ///
  /// - Parameter value: the code.
  public init(stringLiteral value: String) { storage = .string(value) }

  /// Creates a bool code.
  ///
  /// - Parameter value: the code.
  public init(booleanLiteral value: Bool) { storage = .bool(value) }

  /// The code as an `Int` when its text is an integer (`200`, `"200"`); else nil.
  public var intValue: Int? {
    switch storage {
    case .number(let text), .string(let text): return Int(text)
    case .bool: return nil
    }
  }

  /// The canonical text: a number as written, a string as is, a bool as `true`/`false`.
  public var stringValue: String {
    switch storage {
    case .number(let text), .string(let text): return text
    case .bool(let value): return value ? "true" : "false"
    }
  }

  /// Whether the JSON held a string.
  public var isString: Bool {
    if case .string = storage { return true }
    return false
  }

  /// A number or bool as its text; a string in quotes: `1001`, `"000"`, `false`.
  public var description: String {
    if case .string(let text) = storage { return "\"\(text)\"" }
    return stringValue
  }

  /// Equal when the canonical texts are equal.
  public static func == (lhs: EnvelopeCode, rhs: EnvelopeCode) -> Bool {
    lhs.stringValue == rhs.stringValue
  }

  /// Hashes the canonical text.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(stringValue)
  }

  /// Reads an integer, string or bool, keeping which one it was, by the status reader every
  /// envelope entry point shares (with `LenientDecoder` the number text is kept exactly).
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError.dataCorrupted` with `EnvelopeError.invalidCode(found:)` as its
  ///   underlying error for null, arrays, objects, numbers with a fraction and integers of more
  ///   than 309 digits. An integral number is its integer, however written (`1e3` is `1000`).
  public init(from decoder: any Decoder) throws {
    switch EnvelopeStatusReader.code(try JSON(from: decoder)) {
    case .success(let code):
      self = code
    case .failure(let error):
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error))
    }
  }

  /// Writes the code as the JSON kind it came from.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: the encoder's errors.
  public func encode(to encoder: any Encoder) throws {
    // A number as `JSON` writes one (integers up to `UInt64` as they are, others as `Decimal`,
    // which keeps 38 digits: a longer code is written as another one): through `Double`, a code
    // past `Int` (`9223372036854775808`) read back as another, invalid, code.
    if case .number(let text) = storage, let number = JSONNumber(text) {
      return try JSON.number(number).encode(to: encoder)
    }
    var container = encoder.singleValueContainer()
    switch storage {
    case .number(let text): try container.encode(Double(text) ?? 0)
    case .string(let text): try container.encode(text)
    case .bool(let value): try container.encode(value)
    }
  }
}
