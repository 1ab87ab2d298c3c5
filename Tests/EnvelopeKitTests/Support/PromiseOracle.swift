import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

// The oracle of the promise "never silently wrong", over the models below (one per shape the
// public API offers):
//
// - lenient's report has no drift exactly when strict decodes, and then to the same value
//   (an `unknownVariant` entry is not drift: the type itself accepts the tag);
// - lenient throws only where strict throws;
// - for models that use no EnvelopeKit feature, strict decodes exactly what Foundation's
//   `JSONDecoder` decodes, to the same value, except for the documented differences
//   (`PromiseOracle.documentedDifferences`, the DocC section "Differences from Foundation").

// MARK: - Models

enum PTone: String, Codable, Equatable, Sendable, CaseDefaultable {
  case calm, loud, unknown
  static var defaultCase: PTone { .unknown }
}

enum PFlavor: String, Codable, Equatable, Sendable { case sweet, sour }

enum PSlot: String, Codable, Hashable, Sendable, CodingKeyRepresentable { case am, pm }

struct PNumbers: Codable, Equatable {
  var i: Int
  var i8: Int8
  var i16: Int16
  var i32: Int32
  var i64: Int64
  var u: UInt
  var u8: UInt8
  var u16: UInt16
  var u32: UInt32
  var u64: UInt64
  var d: Double
  var f: Float
  var dec: Decimal?

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("i", .int(.int)), ("i8", .int(.int8)), ("i16", .int(.int16)), ("i32", .int(.int32)),
      ("i64", .int(.int64)), ("u", .int(.uint)), ("u8", .int(.uint8)), ("u16", .int(.uint16)),
      ("u32", .int(.uint32)), ("u64", .int(.uint64)), ("d", .double), ("f", .float),
      ("dec", .optional(.decimal)),
    ])
  }
}

struct PItem: Codable, Equatable {
  var id: Int
  var name: String?
  var price: Double
  var tags: [String]
  var flag: Bool?
  var flavor: PFlavor
  var meta: [String: Int]?
  var count: UInt8
  var ratio: Float?
  var nested: Int??

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("id", .int(.int)), ("name", .optional(.string)), ("price", .double),
      ("tags", .array(.string)), ("flag", .optional(.bool)), ("flavor", .flavor),
      ("meta", .optional(.dictionary(.int(.int)))), ("count", .int(.uint8)),
      ("ratio", .optional(.float)), ("nested", .optional(.optional(.int(.int)))),
    ])
  }
}

struct PPage: Codable, Equatable {
  var items: [PItem]
  var next: PItem?
  var total: Int64
  var ids: [Int?]
  var lookup: [String: PItem]
  var byNumber: [Int: String]
  var bySlot: [PSlot: Int]
  var cursor: String

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("items", .array(PItem.shape)), ("next", .optional(PItem.shape)), ("total", .int(.int64)),
      ("ids", .array(.optional(.int(.int)))), ("lookup", .dictionary(PItem.shape)),
      ("byNumber", .intDictionary(.string)), ("bySlot", .slotDictionary(.int(.int))),
      ("cursor", .string),
    ])
  }
}

struct PMedia: Codable, Equatable {
  var at: Date
  var blob: Data
  var link: URL
  var amount: Decimal
  var when: Date?

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("at", .date), ("blob", .data), ("link", .url), ("amount", .decimal),
      ("when", .optional(.date)),
    ])
  }
}

struct PDefaults: LenientDecodable, Codable, Equatable {
  var title = "untitled"
  var count = 3
  var ratio = 0.5
  var on = true
  var tags = ["x"]
  var flavor = PFlavor.sweet

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("title", .string), ("count", .int(.int)), ("ratio", .double), ("on", .bool),
      ("tags", .array(.string)), ("flavor", .flavor),
    ])
  }
}

struct PTagged: Decodable, Equatable {
  var tags: OneOrMany<String>
  var ids: OneOrMany<Int>
  var urls: OneOrMany<URL>?
  var tone: PTone
  var level: PTone?

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("tags", .oneOrMany(.string)), ("ids", .oneOrMany(.int(.int))),
      ("urls", .optional(.oneOrMany(.url))), ("tone", .tone), ("level", .optional(.tone)),
    ])
  }
}

/// A class whose subclass decodes it through `superDecoder()`.
class PAnimal: Decodable, Equatable {
  let legs: Int

  required init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    legs = try container.decode(Int.self, forKey: AnyKey("legs"))
  }

  static func == (lhs: PAnimal, rhs: PAnimal) -> Bool {
    guard lhs.legs == rhs.legs else { return false }
    if let left = lhs as? PDog, let right = rhs as? PDog { return left.name == right.name }
    return type(of: lhs) == type(of: rhs)
  }
}

final class PDog: PAnimal {
  let name: String

  required init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    name = try container.decode(String.self, forKey: AnyKey("name"))
    try super.init(from: container.superDecoder())
  }

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("name", .string), ("super", .object([("legs", .int(.int8))])),
    ])
  }
}

/// A coding key of any name.
struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Mapped keys with alternatives, and transforms (one that throws on what it cannot read).
struct PEvent: Decodable, Equatable {
  var title: String
  var cents: Int
  var at: Date
  var note: String?
  var tags: [String]

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("meta", .optional(.object([("title", .string)]))), ("name", .string),
      ("cents", .string), ("at", .double), ("note", .optional(.string)), ("tags", .string),
    ])
  }

  static func configure(_ decoder: inout LenientDecoder) {
    decoder.map(PEvent.self, key: "title", to: "meta.title", "name")
    decoder.transform(
      PEvent.self, key: "cents",
      .integerText(expected: "cents"))
    decoder.transform(PEvent.self, key: "at", .secondsSince1970)
    decoder.transform(PEvent.self, key: "tags", .separated(by: ","))
  }
}

struct PSweet: Codable, Equatable { var grams: Int16 }
struct PSour: Codable, Equatable { var ph: Double }

/// A tagged value: one variant from the whole object, one from `payload`; unknown tags throw.
enum PTaste: TaggedDecodable, Equatable {
  case sweet(PSweet)
  case sour(PSour)

  static var tagPath: JSONPath { "kind" }
  static var variants: [String: TaggedVariant<PTaste>] {
    [
      "sweet": TaggedVariant(PSweet.self) { .sweet($0) },
      "sour": TaggedVariant(PSour.self, at: "payload") { .sour($0) },
    ]
  }

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("kind", .flavor), ("grams", .int(.int16)),
      ("payload", .optional(.object([("ph", .double)]))),
    ])
  }
}

/// `PTaste` whose unknown tags are kept (reported `unknownVariant`, which is not drift).
enum PTasteKept: TaggedDecodable, Equatable {
  case known(PTaste)
  case other(tag: String?, json: JSON)

  static var tagPath: JSONPath { "kind" }
  static var variants: [String: TaggedVariant<PTasteKept>] {
    [
      "sweet": TaggedVariant(PSweet.self) { .known(.sweet($0)) },
      "sour": TaggedVariant(PSour.self, at: "payload") { .known(.sour($0)) },
    ]
  }
  static func unknown(tag: String?, json: JSON) -> PTasteKept? { .other(tag: tag, json: json) }
}

struct PSnake: Codable, Equatable {
  var userId: Int
  var displayName: String
  var isActive: Bool
  var lastSeenAt: Double?
  /// A digit inside a component (`item2_count`: the conversion's slow path), one letter, and a
  /// leading underscore, which the conversion keeps.
  var item2Count: Int?
  var x: Int?
  var _hidden: Bool?

  // A computed property: a stored static would be a one-time allocation LeakSanitizer
  // reports in the fuzz target.
  static var shape: Shape {
    Shape.object([
      ("userId", .int(.int)), ("displayName", .string), ("isActive", .bool),
      ("lastSeenAt", .optional(.double)), ("item2Count", .optional(.int(.int))),
      ("x", .optional(.int(.int))), ("_hidden", .optional(.bool)),
    ])
  }
}

/// A recursive model, decoded near a small `maxDepth`.
struct PNode: Codable, Equatable {
  var children: [PNode]
}

/// A model with an Optional at `data`: what `DecodableWrapper<PItem?>` at `data` must agree with.
struct PItemAtData: Decodable {
  var data: PItem?
}

/// An envelope's outcome, comparable.
struct PEnvelope<T: Decodable & Equatable>: Decodable, Equatable {
  var code: EnvelopeCode?
  var message: String?
  var data: T?

  init(from decoder: any Decoder) throws {
    let root = try RootModel<T>(from: decoder)
    code = root.code
    message = root.message
    data = root.data
  }
}

// MARK: - The oracle

enum PromiseOracle {
  /// The differences from Foundation's `JSONDecoder` that are ours on purpose, as the DocC
  /// article "Differences from Foundation" lists them.
  static var documentedDifferences: [String] {
    [
      "An integer type from a literal that underflows (1e-400): Foundation gives 0, we throw.",
      "An integer type from a non-integral literal beyond 2^53 (7538207106762121.49): Foundation rounds through Double, we throw.",
      "An integer type from an integral literal beyond 2^53 written with a fraction or exponent (9007199254740993.0): Foundation rounds through Double, we are exact.",
      "A zero written with an exponent (0e5, -0.0e-5) into Double: we decode 0, the Linux toolchain's JSONDecoder throws (never generated).",
      "Float from a literal: we round once from the text (Float(String)); Foundation rounds through Double.",
      "A top-level string in UTF-16 without a byte order mark: we decode it, Foundation's detection fails.",
      "UTF-32LE after a byte order mark: we decode it, as swift-foundation's tests expect; the Linux toolchain's JSONDecoder throws (never generated: the generator writes UTF-8).",
    ]
  }

  /// What one case found.
  struct Outcome {
    var violations: [String] = []
    var strictDecoded = false
    var lenientReported = false
    var comparedWithFoundation = false
    /// Inputs whose effective depth (strings read as JSON included) passed `maxDepth`.
    var depthLimitsPassed = 0
  }

  /// Checks the invariant for one input and one decode; `foundation` (nil for models that use
  /// EnvelopeKit features) is the reference for strict.
  static func check<T: Equatable>(
    _ name: String, _ json: String, _ lenient: LenientDecoder,
    decode: (LenientDecoder, Data) throws -> Decoded<T>,
    foundation: ((Data) throws -> T)? = nil, into outcome: inout Outcome
  ) {
    let data = Data(json.utf8)
    var strict = lenient
    strict.policy = .strict
    let strictResult = Result { try decode(strict, data) }
    let lenientResult = Result { try decode(lenient, data) }
    func fail(_ rule: String) { outcome.violations.append("\(name): \(rule): \(json)") }
    switch (strictResult, lenientResult) {
    case (.success(let strictValue), .success(let lenientValue)):
      outcome.strictDecoded = true
      if lenientValue.report.hasDrift {
        fail(
          "strict decoded but lenient reported \(lenientValue.report.entries.first.map { "\($0)" } ?? "")"
        )
      } else if strictValue.value != lenientValue.value {
        fail("values differ with an empty report")
      }
      if strictValue.report.hasDrift { fail("strict made a report") }
    case (.failure, .success(let lenientValue)):
      if !lenientValue.report.hasDrift { fail("strict threw but lenient's report is empty") }
      outcome.lenientReported = true
    case (.success, .failure(let error)):
      fail("lenient threw \(error) where strict decoded")
    case (.failure, .failure):
      break
    }
    guard let foundation else { return }
    outcome.comparedWithFoundation = true
    switch (strictResult, Result { try foundation(data) }) {
    case (.success(let ours), .success(let theirs)):
      if ours.value != theirs { fail("strict and Foundation decode different values") }
    case (.failure, .failure):
      break
    case (.success, .failure(let error)):
      fail("strict decoded where Foundation threw \(error)")
    case (.failure(let error), .success):
      fail("strict threw \(error) where Foundation decoded")
    }
  }

  /// The provider's reading of an envelope (`decodeEnvelope(_:from:format:at:status:report:)`,
  /// in one pass) against the public
  /// `decodeEnvelopeWithReport` in both policies: the same value and report, or the same error;
  /// and the status they hand back is `envelopeStatus(from:)`'s whenever the code was read
  /// (a business failure, missing data and a decode error say it; nil when the code was not
  /// read).
  static func checkReadings<T: Codable>(
    _ type: T.Type, _ json: String, _ lenient: LenientDecoder, at path: JSONPath = .root,
    into outcome: inout Outcome
  ) {
    let data = Data(json.utf8)
    var strict = lenient
    strict.policy = .strict
    for decoder in [lenient, strict] {
      for format in [nil, readingsFormat, .plain] {
        checkReadings(T.self, data, decoder, format, at: path) { rule in
          let name =
            format == nil
            ? "the decoder's format" : format?.isPlain == true ? "plain" : "a mapped format"
          outcome.violations.append(
            "readings of \(T.self) at \(path), \(decoder.policy), \(name): \(rule): \(json)")
        }
      }
    }
  }

  /// A format with codes of both kinds and its own error, for `checkReadings`.
  static let readingsFormat = EnvelopeFormat(
    code: "code", messages: ["msg"], data: "data", success: [0, "ok"]
  ).mappingErrors { ReadingsRefused(code: "\($0.code.map { "\($0)" } ?? "none")") }

  struct ReadingsRefused: Error { var code: String }

  private static func checkReadings<T: Codable>(
    _ type: T.Type, _ data: Data, _ decoder: LenientDecoder, _ format: EnvelopeFormat?,
    at path: JSONPath, fail: (String) -> Void
  ) {
    func same(_ one: Result<Decoded<T>, any Error>, _ other: Result<Decoded<T>, any Error>) -> Bool
    {
      switch (one, other) {
      case (.success(let a), .success(let b)):
        guard let mine = canonical(a.value), let theirs = canonical(b.value) else {
          fail("a value that does not encode: \(a.value)")
          return false
        }
        return mine == theirs && a.report.entries == b.report.entries
          && "\(a.report)" == "\(b.report)"
      case (.failure(let a), .failure(let b)): return "\(a)" == "\(b)"
      default: return false
      }
    }
    let reference = Result {
      try decoder.decodeEnvelopeWithReport(T.self, from: data, format: format, at: path)
    }
    // No envelope: exactly the decode of the body at the path, and no status kept.
    let plain = format?.isPlain == true
    if plain,
      !same(reference, Result { try decoder.decodeWithReport(T.self, from: data, at: path) })
    {
      fail("plain decodeEnvelope \(reference) but decode(at:) differs")
    }
    let readStatus = plain ? nil : try? decoder.envelopeStatus(from: data, format: format)
    var onceStatus: EnvelopeStatus?
    let once = Result { () throws -> Decoded<T> in
      var report = DecodingReport()
      let value = try decoder.decodeEnvelope(
        T.self, from: data, format: format, at: path, status: &onceStatus, report: &report)
      return Decoded(value: value, report: report)
    }
    if !same(once, reference) { fail("one pass \(once) but decodeEnvelope \(reference)") }
    if onceStatus != readStatus { fail("one pass read \(String(describing: onceStatus))") }
  }

  /// A value as sorted JSON, to compare values that hold a NaN (not equal to itself) or a
  /// dictionary (described in no fixed order).
  static func canonical(_ value: some Encodable) -> Data? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return try? encoder.encode(value)
  }

  /// How deep `json` nests, reading strings that hold a JSON array or object as that
  /// container (as lenient reads them where a container is expected): counted on the text, so
  /// that any number literal passes. Nil if a string literal does not decode.
  static func effectiveDepth(_ json: String) -> Int? {
    let bytes = Array(json.utf8)
    var open = 0
    var deepest = 0
    var i = 0
    while i < bytes.count {
      switch bytes[i] {
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        open += 1
        deepest = max(deepest, open)
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        open -= 1
      case UInt8(ascii: "\""):
        var end = i + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
          end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard end < bytes.count,
          let text = try? JSONSerialization.jsonObject(
            with: Data(bytes[i...end]), options: .fragmentsAllowed) as? String
        else { return nil }
        if let first = text.first(where: { !$0.isWhitespace }), first == "[" || first == "{",
          let inner = effectiveDepth(text)
        {
          deepest = max(deepest, open + inner)
        }
        i = end
      default:
        break
      }
      i += 1
    }
    return deepest
  }

  /// A Foundation decoder with the strategies of `decoder`.
  static func foundationDecoder(like decoder: LenientDecoder) -> JSONDecoder {
    let foundation = JSONDecoder()
    switch decoder.keyDecodingStrategy {
    case .convertFromSnakeCase: foundation.keyDecodingStrategy = .convertFromSnakeCase
    default: break
    }
    switch decoder.dateDecodingStrategy {
    case .secondsSince1970: foundation.dateDecodingStrategy = .secondsSince1970
    case .millisecondsSince1970: foundation.dateDecodingStrategy = .millisecondsSince1970
    case .iso8601: foundation.dateDecodingStrategy = .iso8601
    default: foundation.dateDecodingStrategy = .deferredToDate
    }
    switch decoder.dataDecodingStrategy {
    case .deferredToData: foundation.dataDecodingStrategy = .deferredToData
    default: foundation.dataDecodingStrategy = .base64
    }
    foundation.userInfo = decoder.userInfo
    return foundation
  }

  /// Generates one input for one shape of the public API and checks it.
  static func runOne<S: EntropySource>(
    _ generator: inout PromiseGenerator<S>, into outcome: inout Outcome
  ) {
    generator.documentedDifference = false
    generator.snakeCaseKeys = false
    generator.dates = .seconds
    let lenient = LenientDecoder()
    func plain<T: Codable & Equatable>(_ type: T.Type, _ json: String, _ decoder: LenientDecoder) {
      let foundation = foundationDecoder(like: decoder)
      check(
        "\(T.self)", json, decoder, decode: { try $0.decodeWithReport(T.self, from: $1) },
        foundation: generator.documentedDifference
          ? nil : { try foundation.decode(T.self, from: $0) },
        into: &outcome)
    }
    func plain1<T: Decodable & Equatable>(_ type: T.Type, _ json: String) {
      let foundation = JSONDecoder()
      check(
        "\(T.self)", json, lenient, decode: { try $0.decodeWithReport(T.self, from: $1) },
        foundation: generator.documentedDifference
          ? nil : { try foundation.decode(T.self, from: $0) },
        into: &outcome)
    }
    switch generator.source.next(15) {
    case 0:
      plain(PNumbers.self, generator.value(PNumbers.shape), lenient)
    case 1:
      plain(PItem.self, generator.value(PItem.shape), lenient)
    case 2:
      plain(PPage.self, generator.value(PPage.shape), lenient)
    case 3:
      plain([PItem].self, generator.value(.array(PItem.shape)), lenient)
    case 4:
      var decoder = lenient
      let style = generator.pick([
        (
          PromiseGenerator<S>.DateStyle.seconds,
          LenientDecoder.DateDecodingStrategy.secondsSince1970
        ),
        (.milliseconds, .millisecondsSince1970), (.iso8601, .iso8601), (.deferred, .deferredToDate),
      ])
      generator.dates = style.0
      decoder.dateDecodingStrategy = style.1
      if generator.chance(20) { decoder.dataDecodingStrategy = .deferredToData }
      plain(PMedia.self, generator.value(PMedia.shape), decoder)
    case 5:
      plain(PDefaults.self, generator.value(PDefaults.shape), lenient)
    case 6:
      let json = generator.value(PTagged.shape)
      check(
        "PTagged", json, lenient, decode: { try $0.decodeWithReport(PTagged.self, from: $1) },
        into: &outcome)
    case 7:
      let json = generator.value(PDog.shape)
      let foundation = JSONDecoder()
      check(
        "PDog", json, lenient, decode: { try $0.decodeWithReport(PDog.self, from: $1).asAnimal },
        foundation: generator.documentedDifference
          ? nil : { try foundation.decode(PDog.self, from: $0) as PAnimal }, into: &outcome)
    case 8:
      var decoder = lenient
      PEvent.configure(&decoder)
      let json = generator.value(PEvent.shape)
      check(
        "PEvent", json, decoder, decode: { try $0.decodeWithReport(PEvent.self, from: $1) },
        into: &outcome)
    case 9:
      var decoder = lenient
      decoder.keyDecodingStrategy = .convertFromSnakeCase
      generator.snakeCaseKeys = !generator.chance(10)
      plain(PSnake.self, generator.value(PSnake.shape), decoder)
    case 10:
      // Near the depth limit, with stringified levels.
      var decoder = lenient
      decoder.maxDepth = 6 + generator.source.next(10)
      generator.driftedBeyondStrings = false
      let json = generator.value(.node)
      check(
        "PNode", json, decoder, decode: { try $0.decodeWithReport(PNode.self, from: $1) },
        into: &outcome)
      // A depth limit is never a fallback: lenient throws a depth error exactly when the input,
      // with the JSON its strings hold, nests deeper than maxDepth (checked where the input
      // drifts only by stringifying: other drift can leave parts unread).
      if !generator.driftedBeyondStrings, let depth = effectiveDepth(json) {
        let threwDepthError: Bool
        do {
          _ = try decoder.decode(PNode.self, from: Data(json.utf8))
          threwDepthError = false
        } catch {
          threwDepthError = "\(error)".contains("deep")
        }
        if depth > decoder.maxDepth { outcome.depthLimitsPassed += 1 }
        if threwDepthError != (depth > decoder.maxDepth) {
          outcome.violations.append(
            "PNode: depth \(depth), maxDepth \(decoder.maxDepth), depth error \(threwDepthError): \(json)"
          )
        }
      }
    case 11:
      // Envelopes: decodeEnvelope and RootModel.
      let code = generator.pick(["0", #""0""#, "1", "null", #""ok""#, "0.0"])
      let data = generator.chance(10) ? "null" : generator.value(PItem.shape)
      let json = #"{"code":"# + code + #","msg":"ok","data":"# + data + "}"
      check(
        "decodeEnvelope", json, lenient,
        decode: { try $0.decodeEnvelopeWithReport(PItem.self, from: $1) }, into: &outcome)
      check(
        "RootModel", json, lenient,
        decode: { try $0.decodeWithReport(PEnvelope<PItem>.self, from: $1) }, into: &outcome)
      let list =
        #"{"code":"# + code + #","data":"# + generator.value(.optional(.array(PItem.shape))) + "}"
      check(
        "decodeEnvelope list", list, lenient,
        decode: { try $0.decodeEnvelopeWithReport([PItem].self, from: $1) }, into: &outcome)
      // The provider's readings of the same bodies: one pass, and read-then-decode.
      checkReadings(PItem.self, json, lenient, into: &outcome)
      checkReadings([PItem].self, list, lenient, into: &outcome)
      let inData = #"{"code":"# + code + #","data":"# + generator.pick(["null", "{}", list]) + "}"
      checkReadings([PItem]?.self, inData, lenient, at: "data", into: &outcome)
      checkReadings([PItem].self, inData, lenient, at: "data", into: &outcome)
      // A body that is the value itself, as a plain API sends it.
      checkReadings(PItem.self, generator.value(PItem.shape), lenient, into: &outcome)
    case 12:
      // Key paths and DecodableWrapper.
      let json = #"{"data":{"list":"# + generator.value(.array(PItem.shape)) + "}}"
      let foundation = JSONDecoder()
      check(
        "at data.list", json, lenient,
        decode: { try $0.decodeWithReport([PItem].self, from: $1, at: "data.list") },
        foundation: generator.documentedDifference
          ? nil
          : {
            try foundation.decode([String: [String: [PItem]]].self, from: $0)["data"]?["list"] ?? []
          },
        into: &outcome)
      var wrapped = lenient
      wrapped.userInfo[.decodingPath] = JSONPath("data.list")
      check(
        "DecodableWrapper", json, wrapped,
        decode: { try $0.decodeWithReport(DecodableWrapper<[PItem]>.self, from: $1).map(\.value) },
        into: &outcome)
      // An Optional at a path: what JSONDecoder decodes for a model with a `PItem?` there, the
      // document being an object or (drifting) any other value.
      generator.documentedDifference = false
      let item = generator.value(.optional(PItem.shape))
      let document = generator.chance(80) ? #"{"data":"# + item + "}" : item
      var optional = lenient
      optional.userInfo[.decodingPath] = JSONPath("data")
      check(
        "DecodableWrapper of an Optional", document, optional,
        decode: { try $0.decodeWithReport(DecodableWrapper<PItem?>.self, from: $1).map(\.value) },
        foundation: generator.documentedDifference
          ? nil : { try foundation.decode(PItemAtData.self, from: $0).data },
        into: &outcome)
    case 13:
      // Tagged variants, alone and in arrays (where lenient drops an unknown tag).
      if generator.chance(50) {
        plain1(PTaste.self, generator.value(PTaste.shape))
        generator.documentedDifference = false
        plain1([PTaste].self, generator.value(.array(PTaste.shape)))
      } else {
        let json = generator.value(.array(PTaste.shape))
        check(
          "[PTasteKept]", json, lenient,
          decode: { try $0.decodeWithReport([PTasteKept].self, from: $1) }, into: &outcome)
      }
    default:
      // Numbers alone, at the root, into every number type.
      let literal = generator.numberLiteral()
      generator.noteDifference(literal)
      let integerDifference = generator.documentedDifference
      generator.documentedDifference = false
      generator.noteFloatDifference(literal)
      let floatDifference = generator.documentedDifference
      func number<T: Codable & Equatable>(_ type: T.Type, documented: Bool) {
        let foundation = JSONDecoder()
        check(
          "\(T.self)", "[" + literal + "]", lenient,
          decode: { try $0.decodeWithReport([T].self, from: $1) },
          foundation: documented ? nil : { try foundation.decode([T].self, from: $0) },
          into: &outcome)
      }
      number(Double.self, documented: false)
      number(Float.self, documented: floatDifference)
      number(Decimal.self, documented: false)
      number(Int.self, documented: integerDifference)
      number(Int8.self, documented: integerDifference)
      number(UInt64.self, documented: integerDifference)
      number(Int64.self, documented: integerDifference)
      // Double and Float equal Double(String) and Float(String), correctly rounded, to the bit
      // (the sign of zero included).
      if let value = try? LenientDecoder(policy: .strict).decode(
        [Double].self, from: Data("[\(literal)]".utf8)
      ).first,
        value.bitPattern != Double(literal)?.bitPattern
      {
        outcome.violations.append(
          "Double \(literal) gave \(value), Double(String) \(String(describing: Double(literal)))")
      }
      if let value = try? LenientDecoder(policy: .strict).decode(
        [Float].self, from: Data("[\(literal)]".utf8)
      ).first,
        value.bitPattern != Float(literal)?.bitPattern
      {
        outcome.violations.append(
          "Float \(literal) gave \(value), Float(String) \(String(describing: Float(literal)))")
      }
    }
  }
}

extension ValueTransform where Value == Int {
  /// A test transform that reads an integer from a string or number's text and throws for
  /// anything else.
  static func integerText(expected: String) -> ValueTransform<Int> {
    ValueTransform { json in
      guard let text = json.stringValue, let value = Int(text) else {
        throw ValueTransformError(expected: expected, found: json)
      }
      return value
    }
  }
}

extension Decoded {
  /// The same report with the value transformed.
  func map<U>(_ transform: (T) -> U) -> Decoded<U> {
    Decoded<U>(value: transform(value), report: report)
  }
}

extension Decoded where T: PAnimal {
  var asAnimal: Decoded<PAnimal> { map { $0 as PAnimal } }
}
