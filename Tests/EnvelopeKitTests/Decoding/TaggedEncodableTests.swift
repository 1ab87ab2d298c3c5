import Foundation
import Testing

@testable import EnvelopeKit

/// Encoding tagged values whose variant's value is not an object where the tag is written into
/// it: a clear `EncodingError` under every encoder (JSONEncoder used to stop the process), and
/// a value that writes an object through a single-value container still written and read back.
@Suite struct TaggedEncodableTests {
  struct Circle: Codable, Equatable, Sendable {
    var radius: Double
  }

  /// A model read and written through a single-value container: an object all the same.
  struct Boxed: Codable, Equatable, Sendable {
    var circle: Circle
    init(_ circle: Circle) { self.circle = circle }
    init(from decoder: any Decoder) throws {
      circle = try decoder.singleValueContainer().decode(Circle.self)
    }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(circle)
    }
  }

  /// A `meta` that is a string where the tag (`meta.kind`) needs an object.
  struct Labelled: Codable, Equatable, Sendable {
    var meta: String
  }

  /// Variants of the whole object (the tag `kind` is written into their values).
  enum Whole: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case word(String)
    case list([Int])
    case nothing(Circle?)
    case boxed(Boxed)

    static let tagPath: JSONPath = "kind"
    static let variants: [String: TaggedVariant<Whole>] = [
      "word": TaggedVariant(String.self) { .word($0) },
      "list": TaggedVariant([Int].self) { .list($0) },
      "nothing": TaggedVariant(Circle?.self) { .nothing($0) },
      "boxed": TaggedVariant(Boxed.self) { .boxed($0) },
    ]
    var tag: String {
      switch self {
      case .word: "word"
      case .list: "list"
      case .nothing: "nothing"
      case .boxed: "boxed"
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .word(let word): word
      case .list(let list): list
      case .nothing(let circle): circle
      case .boxed(let boxed): boxed
      }
    }
  }

  /// Variants at `payload` with the tag inside it (`payload.type`).
  enum Inside: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case word(String)
    case list([Int])
    case circle(Circle)

    static let tagPath: JSONPath = "payload.type"
    static let variants: [String: TaggedVariant<Inside>] = [
      "word": TaggedVariant(String.self, at: "payload") { .word($0) },
      "list": TaggedVariant([Int].self, at: "payload") { .list($0) },
      "circle": TaggedVariant(Circle.self, at: "payload") { .circle($0) },
    ]
    var tag: String {
      switch self {
      case .word: "word"
      case .list: "list"
      case .circle: "circle"
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .word(let word): word
      case .list(let list): list
      case .circle(let circle): circle
      }
    }
  }

  /// The tag at `meta.kind`, variants of the whole object: `meta` must be an object.
  enum Nested: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case labelled(Labelled)
    case circle(Circle)

    static let tagPath: JSONPath = "meta.kind"
    static let variants: [String: TaggedVariant<Nested>] = [
      "labelled": TaggedVariant(Labelled.self) { .labelled($0) },
      "circle": TaggedVariant(Circle.self) { .circle($0) },
    ]
    var tag: String {
      switch self {
      case .labelled: "labelled"
      case .circle: "circle"
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .labelled(let labelled): labelled
      case .circle(let circle): circle
      }
    }
  }

  /// A variant inside its own tag: `kind` is a string, `kind.value` cannot be under it.
  enum UnderTheTag: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case circle(Circle)

    static let tagPath: JSONPath = "kind"
    static let variants: [String: TaggedVariant<UnderTheTag>] = [
      "circle": TaggedVariant(Circle.self, at: "kind.value") { .circle($0) }
    ]
    var tag: String { "circle" }
    var variantValue: any Encodable {
      switch self {
      case .circle(let circle): circle
      }
    }
  }

  /// Values that are not objects behind a single-value wrapper (`Optional`), where the tag is
  /// written into them: at `payload` (the tag at `payload.type`) and of the whole object.
  enum Wrapped: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case maybeList([Int]?)
    case maybeWord(String?)

    static let tagPath: JSONPath = "payload.type"
    static let variants: [String: TaggedVariant<Wrapped>] = [
      "maybeList": TaggedVariant([Int]?.self, at: "payload") { .maybeList($0) },
      "maybeWord": TaggedVariant(String?.self) { .maybeWord($0) },
    ]
    var tag: String {
      switch self {
      case .maybeList: "maybeList"
      case .maybeWord: "maybeWord"
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .maybeList(let list): list
      case .maybeWord(let word): word
      }
    }
  }

  struct RefusedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var value: any Encodable & Sendable
    /// What the error's message must say.
    var message: [String]
    var testDescription: String { name }
  }

  static let refused: [RefusedCase] = [
    RefusedCase(name: "whole object, a string", value: Whole.word("w"), message: ["a String"]),
    RefusedCase(name: "whole object, an array", value: Whole.list([1, 2]), message: ["an array"]),
    RefusedCase(name: "whole object, an empty array", value: Whole.list([]), message: ["an array"]),
    RefusedCase(name: "whole object, null", value: Whole.nothing(nil), message: ["null"]),
    RefusedCase(
      name: "in an array", value: [Whole.boxed(Boxed(Circle(radius: 1))), .word("w")],
      message: ["a String"]),
    RefusedCase(name: "tag inside, a string", value: Inside.word("w"), message: ["a String"]),
    RefusedCase(name: "tag inside, an array", value: Inside.list([]), message: ["an array"]),
    RefusedCase(
      name: "tag's object a string", value: Nested.labelled(Labelled(meta: "m")),
      message: ["a String"]),
    RefusedCase(
      name: "value under the tag", value: UnderTheTag.circle(Circle(radius: 1)),
      message: ["inside its tag"]),
    RefusedCase(
      name: "tag inside, an optional empty array", value: Wrapped.maybeList([]),
      message: ["an array"]),
    RefusedCase(
      name: "tag inside, an optional array", value: Wrapped.maybeList([1]), message: ["an array"]),
    RefusedCase(
      name: "tag's object an optional string", value: Wrapped.maybeWord("w"),
      message: ["a String"]),
  ]

  /// Encodes `value` with ModelEncoder and JSONEncoder (sorted keys).
  static func encodings(_ value: some Encodable) -> [(
    encoder: String, result: Result<Data, any Error>
  )] {
    var ours = ModelEncoder()
    ours.outputFormatting = [.sortedKeys]
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys]
    return [
      ("ModelEncoder", Result { try ours.encode(value) }),
      ("JSONEncoder", Result { try foundation.encode(value) }),
    ]
  }

  /// A variant's value that cannot hold the tag throws `EncodingError.invalidValue` naming the
  /// variant and what it wrote, under ModelEncoder and JSONEncoder alike (JSONEncoder stopped
  /// the process on the tag's keyed container).
  @Test(arguments: refused)
  func aVariantThatCannotHoldItsTagThrowsUnderEveryEncoder(_ example: RefusedCase) {
    for (encoder, result) in Self.encodings(example.value) {
      switch result {
      case .success(let data):
        Issue.record("\(encoder) wrote \(String(decoding: data, as: UTF8.self))")
      case .failure(EncodingError.invalidValue(_, let context)):
        for part in example.message {
          #expect(
            context.debugDescription.contains(part), "\(encoder): \(context.debugDescription)")
        }
      case .failure(let error):
        Issue.record("\(encoder) threw \(error)")
      }
    }
  }

  /// The error names where the value is.
  @Test func theRefusalNamesTheCodingPath() throws {
    struct Holder: Encodable { var shapes: [Whole] }
    for (encoder, result) in Self.encodings(
      Holder(shapes: [.boxed(Boxed(Circle(radius: 1))), .word("w")]))
    {
      guard case .failure(EncodingError.invalidValue(_, let context)) = result else {
        Issue.record("\(encoder): \(result)")
        continue
      }
      let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
      #expect(path == ["shapes", "[1]"], "\(encoder)")
      #expect(context.debugDescription.contains(#"variant "word""#), "\(encoder)")
    }
  }

  struct RoundTripCase: Sendable, CustomTestStringConvertible {
    var name: String
    var encode: @Sendable () -> [(encoder: String, result: Result<Data, any Error>)]
    var decodeAndCompare: @Sendable (Data, DecodingPolicy?) throws -> Bool
    var json: String
    var testDescription: String { name }

    init<T: Codable & Equatable & Sendable>(_ name: String, _ value: T, _ json: String) {
      self.name = name
      self.json = json
      encode = { TaggedEncodableTests.encodings(value) }
      decodeAndCompare = { data, policy in
        guard let policy else { return try JSONDecoder().decode(T.self, from: data) == value }
        return try LenientDecoder(policy: policy).decode(T.self, from: data) == value
      }
    }
  }

  /// A variant that writes an object, through a single-value container or beside a tag nested
  /// in an object, is written with its tag and reads back, with every encoder and decoder.
  @Test(arguments: [
    RoundTripCase(
      "through a single-value container", Whole.boxed(Boxed(Circle(radius: 1.5))),
      #"{"kind":"boxed","radius":1.5}"#),
    RoundTripCase(
      "the tag's object made", Nested.circle(Circle(radius: 2)),
      #"{"meta":{"kind":"circle"},"radius":2}"#),
    RoundTripCase(
      "tag inside the value", Inside.circle(Circle(radius: 3)),
      #"{"payload":{"radius":3,"type":"circle"}}"#),
  ])
  func aVariantThatWritesAnObjectRoundTrips(_ example: RoundTripCase) throws {
    for (encoder, result) in example.encode() {
      let data = try result.get()
      #expect(String(decoding: data, as: UTF8.self) == example.json, "\(encoder)")
      for policy in [DecodingPolicy.strict, .lenient, nil] {
        #expect(
          try example.decodeAndCompare(data, policy), "\(encoder) \(String(describing: policy))")
      }
    }
  }

  /// A model with a key that a `ModelEncoder` maps (`fullTitle` → `title`).
  struct Titled: Codable, Equatable, Sendable {
    var fullTitle: String
  }

  /// Variants at `payload` with the tag inside it, of types an encoder writes by their own
  /// rules: a mapped model (bare, optional, boxed) and a dictionary, whose keys no key
  /// strategy converts.
  enum Typed: TaggedDecodable, TaggedEncodable, Equatable, Sendable {
    case titled(Titled)
    case maybe(Titled?)
    case counts([String: Int])

    static let tagPath: JSONPath = "payload.type"
    static let variants: [String: TaggedVariant<Typed>] = [
      "titled": TaggedVariant(Titled.self, at: "payload") { .titled($0) },
      "maybe": TaggedVariant(Titled?.self, at: "payload") { .maybe($0) },
      "counts": TaggedVariant([String: Int].self, at: "payload") { .counts($0) },
    ]
    var tag: String {
      switch self {
      case .titled: "titled"
      case .maybe: "maybe"
      case .counts: "counts"
      }
    }
    var variantValue: any Encodable {
      switch self {
      case .titled(let titled): titled
      case .maybe(let titled): titled
      case .counts(let counts): counts
      }
    }
  }

  /// What the tag check must not change: a variant's value is written as the encoder writes
  /// that value on its own (its type's key mappings, a dictionary's keys kept under a key
  /// strategy), with the tag added. The oracle is the same encoder writing the bare value.
  @Test(arguments: [
    Typed.titled(Titled(fullTitle: "T")), .maybe(Titled(fullTitle: "M")),
    .counts(["myCount": 1, "otherCount": 2]),
  ])
  func aVariantInsideItsPathIsWrittenAsItsOwnTypeIsWritten(_ value: Typed) throws {
    var ours = ModelEncoder()
    ours.outputFormatting = [.sortedKeys]
    ours.keyEncodingStrategy = .convertToSnakeCase
    ours.map(Titled.self, key: "fullTitle", to: "title")
    let foundation = JSONEncoder()
    foundation.outputFormatting = [.sortedKeys]
    foundation.keyEncodingStrategy = .convertToSnakeCase
    struct Holder: Encodable {
      var payload: any Encodable
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(payload, forKey: AnyCodingKey(stringValue: "payload"))
      }
    }
    let encoders: [(String, (any Encodable) throws -> Data)] = [
      ("ModelEncoder", { try ours.encode($0) }), ("JSONEncoder", { try foundation.encode($0) }),
    ]
    for (name, encode) in encoders {
      let bare = String(decoding: try encode(Holder(payload: value.variantValue)), as: UTF8.self)
      // `{"payload":{…}}` with `"type":"…"` added last (sorted keys: `type` sorts after the rest).
      let expected = bare.dropLast(2) + #","type":"\#(value.tag)"}}"#
      #expect(String(decoding: try encode(value), as: UTF8.self) == expected, "\(name)")
    }
  }

  /// A dictionary variant of the whole object (the tag `kind` written into it).
  enum WholeCounts: TaggedEncodable, Sendable {
    case counts([String: Int])
    static let tagPath: JSONPath = "kind"
    var tag: String { "counts" }
    var variantValue: any Encodable {
      switch self {
      case .counts(let counts): counts
      }
    }
  }

  /// A variant of the whole object is written as its own `encode(to:)` writes into the tagged
  /// value's encoder, as it always was: a dictionary's keys go through the key strategy there
  /// (the object is the tagged value's, not the dictionary's), with the tag beside them.
  @Test func aWholeObjectVariantIsWrittenAsItsOwnEncodeWritesIt() throws {
    struct Direct: Encodable {
      var value: any Encodable
      func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }
    var ours = ModelEncoder()
    ours.keyEncodingStrategy = .convertToSnakeCase
    let foundation = JSONEncoder()
    foundation.keyEncodingStrategy = .convertToSnakeCase
    let encoders: [(String, (any Encodable) throws -> Data)] = [
      ("ModelEncoder", { try ours.encode($0) }), ("JSONEncoder", { try foundation.encode($0) }),
    ]
    let counts = ["myCount": 1, "otherCount": 2]
    for (name, encode) in encoders {
      let bare = try #require(
        JSONSerialization.jsonObject(with: encode(Direct(value: counts))) as? [String: Any])
      var expected = bare
      expected["kind"] = "counts"
      let written = try #require(
        JSONSerialization.jsonObject(with: encode(WholeCounts.counts(counts))) as? [String: Any])
      #expect(NSDictionary(dictionary: written) == NSDictionary(dictionary: expected), "\(name)")
      #expect(bare["my_count"] != nil, "\(name): the oracle converts the keys")
    }
  }

  /// The tag at `meta_info.kind`, a variant of the whole object writing `metaInfo`.
  enum SnakeNested: TaggedEncodable, Sendable {
    case labelled(JSON)

    static let tagPath: JSONPath = "meta_info.kind"
    var tag: String { "labelled" }
    var variantValue: any Encodable {
      switch self {
      case .labelled(let json): json
      }
    }
  }

  /// Under `.convertToSnakeCase` a value's `metaInfo` is the tag path's `meta_info`: a string
  /// there is refused with a clear error (JSONEncoder stopped the process on the tag's
  /// container), and an object there gets the tag beside its members.
  @Test func aKeyTheStrategyTurnsIntoTheTagPathIsHeldToAnObject() throws {
    var ours = ModelEncoder()
    ours.keyEncodingStrategy = .convertToSnakeCase
    ours.outputFormatting = [.sortedKeys]
    let foundation = JSONEncoder()
    foundation.keyEncodingStrategy = .convertToSnakeCase
    foundation.outputFormatting = [.sortedKeys]
    let encoders: [(String, (any Encodable) throws -> Data)] = [
      ("ModelEncoder", { try ours.encode($0) }), ("JSONEncoder", { try foundation.encode($0) }),
    ]
    for (name, encode) in encoders {
      #expect(throws: EncodingError.self, "\(name)") {
        try encode(SnakeNested.labelled(JSON(data: Data(#"{"metaInfo":"x"}"#.utf8))))
      }
      let object = try JSON(data: Data(#"{"metaInfo":{"note":"n"}}"#.utf8))
      let written = try encode(SnakeNested.labelled(object))
      #expect(
        String(decoding: written, as: UTF8.self)
          == #"{"meta_info":{"kind":"labelled","note":"n"}}"#, "\(name)")
    }
  }
}
