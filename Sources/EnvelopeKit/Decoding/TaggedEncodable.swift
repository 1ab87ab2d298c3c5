import Foundation

/// A value that writes a tag and its variant's value: the encoding side of `TaggedDecodable`.
///
/// The default `encode(to:)` writes `tag` at `tagPath` and `variantValue` where the variant
/// named by the tag reads it (for a type that is also `TaggedDecodable`): at its path, or
/// merged into the object with the tag for a variant of the whole object. A tag no variant
/// names with a `JSON` value (the object kept by `unknown(tag:json:)`) is written as it is,
/// so decode → encode → decode gives the same value. Works with `ModelEncoder`, Foundation's
/// `JSONEncoder` and any other encoder. Where the tag is written into the variant's value (no
/// path, or the tag inside the value's path), that value must encode an object: anything else
/// throws `EncodingError.invalidValue`.
public protocol TaggedEncodable: Encodable {
  /// Where the tag is written, from the value's object.
  static var tagPath: JSONPath { get }
  /// The tag of this value's variant.
  var tag: String { get }
  /// This value's variant's value.
  var variantValue: any Encodable { get }
}

extension TaggedEncodable {
  /// Writes `variantValue`'s members and `tag` at `tagPath` into one object.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: `EncodingError.invalidValue` when the variant's value is not an object (the tag
  ///   is written into it); whatever encoding the variant's value throws.
  public func encode(to encoder: any Encoder) throws {
    try TaggedPath.encode(self, variantPath: nil, to: encoder)
  }
}

extension TaggedEncodable where Self: TaggedDecodable {
  /// Writes `tag` at `tagPath` and `variantValue` where its variant reads it; an unknown
  /// variant's `JSON` as it is.
  ///
  /// - Parameter encoder: any encoder.
  /// - Throws: `EncodingError.invalidValue` when the variant's value is not an object where
  ///   the tag is written into it, or its path runs through the tag; whatever encoding the
  ///   variant's value throws.
  public func encode(to encoder: any Encoder) throws {
    guard let variant = Self.variants[tag] else {
      if let json = variantValue as? JSON { return try json.encode(to: encoder) }
      return try TaggedPath.encode(self, variantPath: nil, to: encoder)
    }
    try TaggedPath.encode(self, variantPath: variant.path, to: encoder)
  }
}
