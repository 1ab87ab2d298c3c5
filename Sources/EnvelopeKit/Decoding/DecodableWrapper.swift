/// Decodes `T` at the `JSONPath` in `userInfo[.decodingPath]`, with any `Decoder`.
///
/// Works with Foundation's `JSONDecoder` in one pass, with no re-serialisation:
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.userInfo[.decodingPath] = JSONPath("data.items")
/// let items = try decoder.decode(DecodableWrapper<[Item]>.self, from: body).value
/// ```
public struct DecodableWrapper<T: Decodable>: Decodable {
  /// The decoded value.
  public var value: T

  /// Decodes the value at the path in `userInfo[.decodingPath]` (the root when absent).
  ///
  /// A step of the path that meets a value of another kind (`true` where `data` is looked up)
  /// is a type error, as for a model with an Optional property at that key: for an Optional `T`,
  /// only a missing key or null gives nil.
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError.keyNotFound` naming the path when it is missing (unless `T` is
  ///   Optional, which gives nil), `DecodingError.typeMismatch` for a step that is not an object
  ///   or array, and the errors of decoding `T`.
  public init(from decoder: any Decoder) throws {
    let path = decoder.userInfo[.decodingPath] as? JSONPath ?? .root
    if let found = try decodeValue(T.self, at: path, in: decoder, steps: .otherKindIsAnError) {
      value = found
    } else if let optional = T.self as? any DecodableOptional.Type,
      let none = optional.nilValue as? T
    {
      value = none
    } else {
      throw DecodingError.keyNotFound(
        AnyCodingKey(stringValue: path.description),
        DecodingError.Context(
          codingPath: decoder.codingPath, debugDescription: "No value at path \(path)."))
    }
  }
}

extension DecodableWrapper: Sendable where T: Sendable {}

/// A JSON value that is either one `T` or an array of `T`.
///
/// ```swift
/// struct Post: Decodable { var tags: OneOrMany<String> }
/// // {"tags": "swift"} and {"tags": ["swift", "json"]} both decode.
/// ```
public struct OneOrMany<T: Decodable>: Decodable {
  /// The values: one element for a single value.
  public var values: [T]

  /// Creates a value.
  ///
  /// - Parameter values: the values.
  public init(_ values: [T]) {
    self.values = values
  }

  /// Decodes an array of `T`, or a single `T`.
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: the errors of decoding `T`.
  public init(from decoder: any Decoder) throws {
    // Asked of the value itself where the decoder can tell, so that a lenient decoder's
    // one-element-array coercion never stands in for the single value strict reads.
    let elements: (any UnkeyedDecodingContainer)?
    if let source = decoder as? any JSONValueSource {
      if !source.currentKindIsArray, let single = try source.oneOrManySingle(T.self) {
        values = [single]
        return
      }
      elements = try decoder.unkeyedContainer()
    } else {
      do {
        elements = try decoder.unkeyedContainer()
      } catch DecodingError.typeMismatch, DecodingError.valueNotFound {
        elements = nil  // not an array (null included): a single value
      }
    }
    guard var elements else {
      values = [try decoder.singleValueContainer().decode(T.self)]
      return
    }
    var values: [T] = []
    while !elements.isAtEnd { values.append(try elements.decode(T.self)) }
    self.values = values
  }
}

extension OneOrMany: Sendable where T: Sendable {}
extension OneOrMany: Equatable where T: Equatable {}
extension OneOrMany: Hashable where T: Hashable {}
