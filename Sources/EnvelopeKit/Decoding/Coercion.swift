import Foundation

// The lenient rules for scalars live here, apart from the strict path: `strictValue` is what
// Foundation's JSONDecoder would accept; `coerce` is only asked when that fails and the policy is
// lenient, and returns a value only when the conversion loses nothing.

/// The outcome of the strict read of a scalar.
enum StrictRead<T> {
  case value(T)
  /// The JSON kind was wrong.
  case mismatch
  /// A number that does not fit (out of range or not integral).
  case unrepresentable
}

/// A Swift scalar the decoder reads directly from tokens.
protocol JSONScalar: Decodable {
  /// The value a lenient fallback gives: 0, "", false.
  static var emptyValue: Self { get }
  /// What Foundation's JSONDecoder accepts.
  static func strictValue(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions)
    -> StrictRead<Self>
  /// A lossless conversion from another JSON kind, or nil.
  static func coerce(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions) -> Self?
}

enum Coercion {
  /// Calls `body` with the trimmed bytes of a string token that is a JSON number, else nil.
  static func numericString<R>(
    _ document: JSONDocument, _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R?
  ) -> R? {
    guard document.kind(index) == .string else { return nil }
    if document.tokens[index].flags.contains(.hasEscapes) {
      var text = Array(document.string(index).utf8)
      return text.withUnsafeMutableBufferPointer { trimmedNumber(UnsafeBufferPointer($0), body) }
    }
    return document.withBytes(index) { trimmedNumber($0, body) }
  }

  private static func trimmedNumber<R>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R?
  ) -> R? {
    var start = 0
    var end = bytes.count
    func isSpace(_ byte: UInt8) -> Bool {
      byte == ASCII.space || byte == ASCII.tab || byte == ASCII.newline
        || byte == ASCII.carriageReturn
    }
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    let trimmed = UnsafeBufferPointer(rebasing: bytes[start..<end])
    guard NumberParsing.isJSONNumber(trimmed) else { return nil }
    return body(trimmed)
  }

  /// Words for NaN and the infinities a lenient `Double` or `Float` accepts, lowercased.
  static let nonFiniteWords: [String: Double] = [
    "nan": .nan, "inf": .infinity, "+inf": .infinity, "infinity": .infinity,
    "+infinity": .infinity, "-inf": -.infinity, "-infinity": -.infinity,
  ]

  /// Words a lenient `Bool` accepts in a string, lowercased.
  static let trueWords: Set<String> = ["true", "yes", "y", "t", "1"]
  static let falseWords: Set<String> = ["false", "no", "n", "f", "0"]
}

// MARK: - Integers

extension FixedWidthInteger where Self: JSONScalar {
  static var emptyValue: Self { 0 }

  @inline(__always)
  static func strictValue(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions)
    -> StrictRead<Self>
  {
    let token = document.tokens[index]
    guard token.kind == .number else { return .mismatch }
    let result = document.withBytes(index) {
      NumberParsing.integer($0, isInteger: token.flags.contains(.isInteger), as: Self.self)
    }
    switch result {
    case .success(let value): return .value(value)
    case .failure: return .unrepresentable
    }
  }

  static func coerce(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions) -> Self? {
    switch document.kind(index) {
    case .true: return 1
    case .false: return 0
    case .string:
      return Coercion.numericString(document, index) {
        try? NumberParsing.integer($0, isInteger: isIntegerLexeme($0), as: Self.self).get()
      }
    default: return nil
    }
  }
}

extension Int: JSONScalar {}
extension Int8: JSONScalar {}
extension Int16: JSONScalar {}
extension Int32: JSONScalar {}
extension Int64: JSONScalar {}
extension UInt: JSONScalar {}
extension UInt8: JSONScalar {}
extension UInt16: JSONScalar {}
extension UInt32: JSONScalar {}
extension UInt64: JSONScalar {}
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension Int128: JSONScalar {}
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension UInt128: JSONScalar {}

// MARK: - Floating point

/// `Double` and `Float`: the same rules, each parsed from the text at its own precision.
protocol JSONFloatingScalar: BinaryFloatingPoint, JSONScalar {
  /// A valid JSON number lexeme, rounded once to this type.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Self, NumberConversionFailure>
}

extension JSONFloatingScalar {
  static var emptyValue: Self { 0 }

  @inline(__always)
  static func strictValue(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions)
    -> StrictRead<Self>
  {
    switch document.kind(index) {
    case .number:
      switch document.withBytes(index, { parse($0) }) {
      case .success(let value): return .value(value)
      case .failure: return .unrepresentable
      }
    case .string:
      guard let value = options.nonConformingFloat(document, index) else { return .mismatch }
      return .value(Self(value))
    default: return .mismatch
    }
  }

  static func coerce(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions) -> Self? {
    switch document.kind(index) {
    case .true: return 1
    case .false: return 0
    case .string:
      if let number = Coercion.numericString(document, index, { try? parse($0).get() }) {
        return number
      }
      return Coercion.nonFiniteWords[document.string(index).lowercased()].map { Self($0) }
    default: return nil
    }
  }
}

extension Double: JSONFloatingScalar {
  @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Double, NumberConversionFailure>
  {
    NumberParsing.double(bytes)
  }
}

extension Float: JSONFloatingScalar {
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Float, NumberConversionFailure> {
    NumberParsing.float(bytes)
  }
}

// MARK: - String and Bool

extension String: JSONScalar {
  static var emptyValue: String { "" }

  @inline(__always)
  static func strictValue(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions)
    -> StrictRead<String>
  {
    guard document.kind(index) == .string else { return .mismatch }
    return .value(document.string(index))
  }

  static func coerce(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions) -> String?
  {
    switch document.kind(index) {
    case .number: return document.rawText(index)
    case .true: return "true"
    case .false: return "false"
    default: return nil
    }
  }
}

extension Bool: JSONScalar {
  static var emptyValue: Bool { false }

  @inline(__always)
  static func strictValue(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions)
    -> StrictRead<Bool>
  {
    switch document.kind(index) {
    case .true: return .value(true)
    case .false: return .value(false)
    default: return .mismatch
    }
  }

  static func coerce(_ document: JSONDocument, _ index: Int, _ options: DecodingOptions) -> Bool? {
    switch document.kind(index) {
    case .number:
      switch document.rawText(index) {
      case "0": return false
      case "1": return true
      default: return nil
      }
    case .string:
      let word = document.string(index).trimmingCharacters(in: .whitespaces).lowercased()
      if Coercion.trueWords.contains(word) { return true }
      if Coercion.falseWords.contains(word) { return false }
      return nil
    default: return nil
    }
  }
}
