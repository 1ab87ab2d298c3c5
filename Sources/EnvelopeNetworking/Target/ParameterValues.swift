import EnvelopeKit
import Foundation

/// Turns the `[String: any Sendable]` of ``RequestTask/parameters(_:encoding:)`` into a `JSON`
/// object once, checking every value: the query, form and JSON writers then read one typed tree
/// and never meet a value they cannot write. Keys are sorted (UTF-8 byte order) at every level.
enum ParameterValues {
  /// Nesting deeper than this is refused, so that a structure built from input cannot exhaust
  /// the stack (the same cap as `LenientDecoder.maxDepth`'s default).
  static let maxDepth = 512

  /// The parameters as a JSON object with sorted keys.
  ///
  /// - Throws: ``ParameterEncodingError`` naming the first key whose value cannot be encoded.
  static func object(_ parameters: [String: any Sendable]) throws -> JSONObject {
    var object = JSONObject()
    for key in parameters.keys.sorted(by: precedes) {
      guard let value = parameters[key] else { continue }
      object.append(key, try json(value, key: key, depth: 1))
    }
    return object
  }

  /// One order for keys everywhere: UTF-8 bytes, as `JSONEncoder`'s `.sortedKeys`.
  static func precedes(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
  }

  // MARK: - Values

  private static func json(_ value: Any, key: String, depth: Int) throws -> JSON {
    if let optional = value as? any OptionalParameter {
      guard let wrapped = optional.wrappedParameter else { return .null }
      return try json(wrapped, key: key, depth: depth)
    }
    // An NSNumber object is read before the Swift types: it would cast to Bool and Int alike.
    if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
      return try json(number, key: key)
    }
    switch value {
    case is NSNull: return .null
    case let flag as Bool: return .bool(flag)
    case let text as String: return .string(text)
    case let text as Substring: return .string(String(text))
    case let character as Character: return .string(String(character))
    case let integer as any BinaryInteger: return .number(JSONNumber(integer))
    case let number as Double: return .number(try finite(number, key: key))
    case let number as Float: return .number(try finite(number, key: key))
    case let number as any BinaryFloatingPoint: return .number(try finite(Double(number), key: key))
    case let decimal as Decimal:
      guard !decimal.isNaN, let number = JSONNumber(decimal.description) else {
        throw failure(key, value, "NaN has no text form.")
      }
      return .number(number)
    case let url as URL: return .string(url.absoluteString)
    case let uuid as UUID: return .string(uuid.uuidString)
    case is Date:
      throw failure(
        key, value,
        "a Date has no single text form; pass a String (e.g. ISO 8601) or a number of seconds"
          + " instead.")
    case is Data:
      throw failure(key, value, "pass Data as a String (e.g. base64) or use a .data task.")
    default:
      return try container(value, key: key, depth: depth)
    }
  }

  /// Arrays, `[String: …]` dictionaries and raw values (each a level deeper); anything else is
  /// refused.
  private static func container(_ value: Any, key: String, depth: Int) throws -> JSON {
    guard depth < maxDepth else {
      throw failure(key, value, "nesting deeper than \(maxDepth) levels.")
    }
    let style = Mirror(reflecting: value).displayStyle
    if let dictionary = value as? [String: Any] {
      var object = JSONObject()
      for name in dictionary.keys.sorted(by: precedes) {
        guard let child = dictionary[name] else { continue }
        object.append(name, try json(child, key: key + "[" + name + "]", depth: depth + 1))
      }
      return .object(object)
    }
    if style == .dictionary {
      throw failure(key, value, "a dictionary's keys must be strings.")
    }
    if style == .set {
      throw failure(key, value, "a Set has no order; pass an array (sorted, for a stable query).")
    }
    if let array = value as? [Any] {
      var elements: [JSON] = []
      elements.reserveCapacity(array.count)
      for (index, element) in array.enumerated() {
        elements.append(try json(element, key: key + "[\(index)]", depth: depth + 1))
      }
      return .array(elements)
    }
    if let raw = value as? any RawRepresentable {
      return try json(raw.rawValue, key: key, depth: depth + 1)
    }
    throw failure(
      key, value,
      "\(typeName(value)) is not a string, number, Bool, URL, UUID, raw value, or an array or"
        + " dictionary of those; pass its text, or send a model with .json(value).")
  }

  private static func json(_ number: NSNumber, key: String) throws -> JSON {
    let kind = String(cString: number.objCType)
    // Booleans are `c` (a char) on every platform; a char that is not 0 or 1 stays a number.
    if kind == "c", number.int64Value == 0 || number.int64Value == 1 {
      return .bool(number.boolValue)
    }
    if kind == "f" || kind == "d" { return .number(try finite(number.doubleValue, key: key)) }
    if kind == "Q" { return .number(JSONNumber(number.uint64Value)) }
    return .number(JSONNumber(number.int64Value))
  }

  /// The number's text: an integral value without a fraction (`1.0` → `1`, as Alamofire and
  /// `JSONSerialization` write it), any other the shortest text that reads back the same.
  private static func finite<F: BinaryFloatingPoint & LosslessStringConvertible>(
    _ value: F, key: String
  ) throws -> JSONNumber {
    guard value.isFinite else {
      throw failure(key, value, "\(value) is not a finite number.")
    }
    if value == value.rounded(), let integer = Int64(exactly: value) {
      return JSONNumber(integer)
    }
    guard let number = JSONNumber(String(value)) else {
      throw failure(key, value, "\(value) has no JSON number form.")
    }
    return number
  }

  private static func failure(_ key: String, _ value: Any, _ reason: String)
    -> ParameterEncodingError
  {
    ParameterEncodingError(key: key, valueType: typeName(value), reason: reason)
  }

  private static func typeName(_ value: Any) -> String { String(describing: type(of: value)) }
}

/// An `Optional` seen through `Any`: its value, or nil.
private protocol OptionalParameter {
  var wrappedParameter: Any? { get }
}

extension Optional: OptionalParameter {
  fileprivate var wrappedParameter: Any? {
    switch self {
    case .some(let wrapped): wrapped
    case .none: nil
    }
  }
}
