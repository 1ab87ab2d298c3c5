import Foundation

/// A value whose JSON says which of several shapes it has: a tag (`"type": "PushEvent"`) picks
/// the variant, and the variant's value is the whole object or the value at a path beside the
/// tag (`"payload"`).
///
/// Name the tag's path and the variants; the default `init(from:)` does the rest, with any
/// `Decoder` (it uses only the `Decoder` API, so Foundation's `JSONDecoder` decodes the type
/// too):
///
/// ```swift
/// enum Event: TaggedDecodable {
///   case push(PushPayload)
///   case watch(WatchPayload)
///   case other(tag: String?, json: JSON)
///
///   static let tagPath: JSONPath = "type"
///   static let variants: [String: TaggedVariant<Event>] = [
///     "PushEvent": TaggedVariant(PushPayload.self, at: "payload") { .push($0) },
///     "WatchEvent": TaggedVariant(WatchPayload.self, at: "payload") { .watch($0) },
///   ]
///   static func unknown(tag: String?, json: JSON) -> Event? { .other(tag: tag, json: json) }
/// }
/// ```
///
/// The tag's path is read through keyed containers, as a coding key is: under a key decoding
/// strategy such as `.convertFromSnakeCase`, write its keys as the strategy makes them
/// (`"eventType"` for `"event_type"`). Paths are made of keys only.
///
/// - A missing (or null) tag throws `DecodingError.keyNotFound` naming the tag path, in both
///   policies.
/// - A tag no variant names is `unknown(tag:json:)` when that gives a value (the whole object
///   kept as `JSON`; `LenientDecoder`'s report gets an `unknownVariant` entry in both policies,
///   which is not drift). When it gives nil, decoding throws `DecodingError.dataCorrupted`:
///   strict policy fails, and lenient policy drops the value where it drops any value that
///   throws (an array element, reported `dropped`; a present Optional, reported `nulled`) and
///   fails elsewhere.
public protocol TaggedDecodable: Decodable {
  /// Where the tag is, from the value's object: `"type"`, `"meta.kind"`.
  static var tagPath: JSONPath { get }
  /// The variants by tag value.
  static var variants: [String: TaggedVariant<Self>] { get }
  /// The value for a tag no variant names; nil (the default) makes such a tag an error.
  ///
  /// - Parameters:
  ///   - tag: the tag read.
  ///   - json: the whole object, as it was in the document.
  /// - Returns: the value to use, or nil to reject the tag.
  static func unknown(tag: String?, json: JSON) -> Self?
}

extension TaggedDecodable {
  /// No value for unknown tags: they are an error.
  ///
  /// - Parameters:
  ///   - tag: the tag read.
  ///   - json: the whole object.
  /// - Returns: nil.
  public static func unknown(tag: String?, json: JSON) -> Self? { nil }

  /// Reads the tag at `tagPath`, then decodes the variant it names.
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError.keyNotFound` when the tag is missing or null;
  ///   `DecodingError.dataCorrupted` for a tag no variant names when `unknown(tag:json:)`
  ///   gives nil; whatever decoding the variant's value throws.
  public init(from decoder: any Decoder) throws {
    let tag = try TaggedPath.readTag(at: Self.tagPath, of: Self.self, in: decoder)
    if let variant = Self.variants[tag] {
      self = try variant.decode(from: decoder)
      return
    }
    let json = try decoder.singleValueContainer().decode(JSON.self)
    guard let kept = Self.unknown(tag: tag, json: json) else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription:
            "Unknown tag \"\(tag)\" at \(Self.tagPath) for \(Self.self); expected one of "
            + Self.variants.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ") + "."))
    }
    (decoder as? DecoderImpl)?.recordUnknownVariant(tag)
    self = kept
  }
}

extension DecoderImpl {
  /// Reports a tag that no variant names, kept by the type's `unknown(tag:json:)`.
  func recordUnknownVariant(_ tag: String) {
    let position = self.position
    recorder.add {
      DecodingReport.Entry(
        path: formatCodingPath(position.codingPath), kind: .unknownVariant,
        expected: String(describing: position.type), found: "tag \"\(tag)\"")
    }
  }
}
