import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

// The oracle of the promise "same bytes as JSONEncoder": over generated values of every shape
// the `Encoder` API offers (keyed, unkeyed and single-value containers, nested containers,
// super encoders, duplicate keys, values that encode nothing, every scalar type, dates, data,
// URLs, decimals, dictionaries, non-finite floats, nesting near the 512 limit) and every
// option (pretty or compact, slashes escaped or not, key, date, data and non-finite float
// strategies), `ModelEncoder` writes what Foundation's `JSONEncoder` writes with sorted keys,
// byte for byte, or throws where it throws with the same path and message; without sorted keys
// it writes the same JSON in encoding order. The generated models of `PromiseOracle`, decoded
// from generated JSON, are checked the same way, and round-trip through a decoder's mapping;
// generated keys round-trip through `ModelEncoder(matching:)` (`KeyRoundTripOracle`); batches
// of generated numbers are written as JSONEncoder writes them (`FloatingPointOracle`).
// `Fuzz/EncodingFuzzTarget.swift` runs the same oracle.

/// A generated value, encoded through every part of the `Encoder` API.
indirect enum GValue: Encodable {
  case null
  case bool(Bool)
  case int(Int)
  case int8(Int8)
  case int64(Int64)
  case uint64(UInt64)
  case double(Double)
  case float(Float)
  case string(String)
  case date(Date)
  case data(Data)
  case url(URL)
  case decimal(Decimal)
  case array([GValue])
  case object([(String, GValue)])
  case stringDictionary([String: GValue])
  case intDictionary([Int: GValue])
  /// In an object: through `nestedContainer(keyedBy:forKey:)`; elsewhere an object.
  case nestedObject([(String, GValue)])
  /// In an object or array: through `nestedUnkeyedContainer`; elsewhere an array.
  case nestedArray([GValue])
  /// Through `superEncoder()` (in an array) or `superEncoder(forKey:)` (in an object).
  case viaSuper(GValue)
  /// Encodes nothing (JSONEncoder writes `{}`, or throws at the top level).
  case nothing
  /// Through `singleValueContainer().encode(inner)`.
  case wrapped(GValue)
  /// Arrays of scalars, which both encoders write by a shortcut.
  case doubles([Double])
  /// Rows of numbers (`[[Double]]`), which `ModelEncoder` writes by a shortcut of its own.
  case doubleRows([[Double]])
  case floats([Float])
  case ints([Int])
  case int64s([Int64])
  case strings([String])

  func encode(to encoder: any Encoder) throws {
    switch self {
    case .array(let elements), .nestedArray(let elements):
      var container = encoder.unkeyedContainer()
      try Self.encode(elements, into: &container)
    case .object(let members), .nestedObject(let members):
      var container = encoder.container(keyedBy: AnyKey.self)
      try Self.encode(members, into: &container)
    case .stringDictionary(let dictionary):
      var single = encoder.singleValueContainer()
      try single.encode(dictionary)
    case .intDictionary(let dictionary):
      var single = encoder.singleValueContainer()
      try single.encode(dictionary)
    case .viaSuper(let inner), .wrapped(let inner):
      var single = encoder.singleValueContainer()
      try single.encode(inner)
    case .nothing:
      break
    case .doubles(let values): try Self.single(values, encoder)
    case .doubleRows(let values): try Self.single(values, encoder)
    case .floats(let values): try Self.single(values, encoder)
    case .ints(let values): try Self.single(values, encoder)
    case .int64s(let values): try Self.single(values, encoder)
    case .strings(let values): try Self.single(values, encoder)
    default:
      var single = encoder.singleValueContainer()
      switch self {
      case .null: try single.encodeNil()
      case .bool(let value): try single.encode(value)
      case .int(let value): try single.encode(value)
      case .int8(let value): try single.encode(value)
      case .int64(let value): try single.encode(value)
      case .uint64(let value): try single.encode(value)
      case .double(let value): try single.encode(value)
      case .float(let value): try single.encode(value)
      case .string(let value): try single.encode(value)
      case .date(let value): try single.encode(value)
      case .data(let value): try single.encode(value)
      case .url(let value): try single.encode(value)
      case .decimal(let value): try single.encode(value)
      default: break
      }
    }
  }

  /// Whether a dictionary is anywhere inside (its iteration order is not fixed).
  var holdsADictionary: Bool {
    switch self {
    case .stringDictionary, .intDictionary: return true
    case .array(let elements), .nestedArray(let elements):
      return elements.contains { $0.holdsADictionary }
    case .object(let members), .nestedObject(let members):
      return members.contains { $0.1.holdsADictionary }
    case .viaSuper(let inner), .wrapped(let inner): return inner.holdsADictionary
    default: return false
    }
  }

  static func single(_ value: some Encodable, _ encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    try single.encode(value)
  }

  static func encode(
    _ members: [(String, GValue)], into container: inout KeyedEncodingContainer<AnyKey>
  ) throws {
    for (name, value) in members {
      let key = AnyKey(name)
      switch value {
      case .null: try container.encodeNil(forKey: key)
      case .bool(let value): try container.encode(value, forKey: key)
      case .int(let value): try container.encode(value, forKey: key)
      case .int8(let value): try container.encode(value, forKey: key)
      case .int64(let value): try container.encode(value, forKey: key)
      case .uint64(let value): try container.encode(value, forKey: key)
      case .double(let value): try container.encode(value, forKey: key)
      case .float(let value): try container.encode(value, forKey: key)
      case .string(let value): try container.encode(value, forKey: key)
      case .date(let value): try container.encode(value, forKey: key)
      case .url(let value): try container.encode(value, forKey: key)
      case .nestedObject(let inner):
        var nested = container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
        try encode(inner, into: &nested)
      case .nestedArray(let inner):
        var nested = container.nestedUnkeyedContainer(forKey: key)
        try encode(inner, into: &nested)
      case .viaSuper(let inner):
        try inner.encode(to: container.superEncoder(forKey: key))
      case .doubles(let values): try container.encode(values, forKey: key)
      case .doubleRows(let values): try container.encode(values, forKey: key)
      case .floats(let values): try container.encode(values, forKey: key)
      case .strings(let values): try container.encode(values, forKey: key)
      default: try container.encode(value, forKey: key)
      }
    }
  }

  static func encode(_ elements: [GValue], into container: inout any UnkeyedEncodingContainer)
    throws
  {
    for value in elements {
      switch value {
      case .null: try container.encodeNil()
      case .bool(let value): try container.encode(value)
      case .int(let value): try container.encode(value)
      case .double(let value): try container.encode(value)
      case .float(let value): try container.encode(value)
      case .string(let value): try container.encode(value)
      case .nestedObject(let inner):
        var nested = container.nestedContainer(keyedBy: AnyKey.self)
        try encode(inner, into: &nested)
      case .nestedArray(let inner):
        var nested = container.nestedUnkeyedContainer()
        try encode(inner, into: &nested)
      case .viaSuper(let inner):
        try inner.encode(to: container.superEncoder())
      case .doubles(let values): try container.encode(values)
      case .doubleRows(let values): try container.encode(values)
      case .ints(let values): try container.encode(values)
      case .strings(let values): try container.encode(values)
      default: try container.encode(value)
      }
    }
  }
}

/// The options of one generated encode, set the same on both encoders.
struct GOptions {
  var pretty = false
  var withoutEscapingSlashes = false
  var keys = 0  // default, snake case, custom
  var dates = 0  // deferred, seconds, milliseconds, iso8601, formatted, custom
  var data = 0  // base64, deferred, custom
  var floats = 0  // throw, convert to string

  func apply(to encoder: JSONEncoder) {
    encoder.outputFormatting = formatting(sorted: true)
    encoder.keyEncodingStrategy =
      [.useDefaultKeys, .convertToSnakeCase, .custom(Self.customKey)][
        keys]
    encoder.dateEncodingStrategy = dateStrategy
    encoder.dataEncodingStrategy = [.base64, .deferredToData, .custom(Self.customData)][data]
    encoder.nonConformingFloatEncodingStrategy = floatStrategy
  }

  func modelEncoder(sorted: Bool = true) -> ModelEncoder {
    var encoder = ModelEncoder()
    encoder.outputFormatting = formatting(sorted: sorted)
    encoder.keyEncodingStrategy =
      [.useDefaultKeys, .convertToSnakeCase, .custom(Self.customKey)][
        keys]
    encoder.dateEncodingStrategy = dateStrategy
    encoder.dataEncodingStrategy = [.base64, .deferredToData, .custom(Self.customData)][data]
    encoder.nonConformingFloatEncodingStrategy = floatStrategy
    return encoder
  }

  func formatting(sorted: Bool) -> JSONEncoder.OutputFormatting {
    var formatting: JSONEncoder.OutputFormatting = sorted ? [.sortedKeys] : []
    if pretty { formatting.insert(.prettyPrinted) }
    if withoutEscapingSlashes { formatting.insert(.withoutEscapingSlashes) }
    return formatting
  }

  var dateStrategy: JSONEncoder.DateEncodingStrategy {
    switch dates {
    case 1: return .secondsSince1970
    case 2: return .millisecondsSince1970
    case 3: return .iso8601
    case 4: return .formatted(Self.formatter)
    case 5: return .custom(Self.customDate)
    default: return .deferredToDate
    }
  }

  var floatStrategy: JSONEncoder.NonConformingFloatEncodingStrategy {
    floats == 0
      ? .throw : .convertToString(positiveInfinity: "+∞", negativeInfinity: "-∞", nan: "NaN")
  }

  /// The path's length and the key: a custom strategy sees the same path in both encoders.
  static let customKey: @Sendable ([any CodingKey]) -> any CodingKey = { path in
    AnyKey("\(path.count)\(path.last?.stringValue.uppercased() ?? "")")
  }

  static let customDate: @Sendable (Date, any Encoder) throws -> Void = { date, encoder in
    // An hour: nothing (JSONEncoder writes {}); otherwise an object with two members.
    guard date.timeIntervalSince1970.truncatingRemainder(dividingBy: 3_600) != 0 else { return }
    var container = encoder.container(keyedBy: AnyKey.self)
    try container.encode(date.timeIntervalSince1970, forKey: AnyKey("t"))
    try container.encode("/date", forKey: AnyKey("kind"))
  }

  static let customData: @Sendable (Data, any Encoder) throws -> Void = { data, encoder in
    var container = encoder.unkeyedContainer()
    for byte in data.prefix(3) { try container.encode(Int(byte) * 1_000) }
  }

  static let formatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS/Z"
    return formatter
  }()
}

/// Generates values and options from an entropy source.
struct EncodingGenerator<Source: EntropySource> {
  var source: Source

  init(_ source: Source) { self.source = source }

  mutating func chance(_ percent: Int) -> Bool { source.next(100) < percent }
  mutating func pick<T>(_ choices: [T]) -> T { choices[source.next(choices.count)] }

  mutating func options() -> GOptions {
    GOptions(
      pretty: chance(40), withoutEscapingSlashes: chance(30), keys: source.next(3),
      dates: source.next(6), data: source.next(3), floats: source.next(2))
  }

  static var keyPieces: [String] {
    [
      "a", "b", "B", "aB", "a_b", "id", "URL", "Key", "é", "\"", "/", "10", "2", "", "_", "x",
      "ǅ", "ß", "😀", "\u{1}", " ", "Ab", "ABc",
    ]
  }

  static var stringPieces: [String] {
    [
      "a", "Z", "é", "/", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "\u{7f}", "😀", "\u{2028}",
      " ", "1", "_", "\u{8}", "\u{c}", "\r", "€",
    ]
  }

  mutating func key() -> String {
    (0..<(1 + source.next(3))).map { _ in pick(Self.keyPieces) }.joined()
  }

  mutating func string() -> String {
    (0..<source.next(6)).map { _ in pick(Self.stringPieces) }.joined()
  }

  mutating func double() -> Double {
    switch source.next(9) {
    case 8:
      var numbers = FloatingPointGenerator(source)
      defer { source = numbers.source }
      return numbers.double()
    case 0:
      return pick([
        0, -0.0, 1, -1, 0.1, 1e16, 1e15, 1e-5, 1e-4, 123_456_789_012_345_683_968,
        .leastNonzeroMagnitude,
        .greatestFiniteMagnitude, .leastNormalMagnitude, 2.5, 100, 1e21, 1e22,
      ])
    case 1: return pick([.nan, .infinity, -.infinity])
    case 2, 3: return Double(bitPattern: UInt64(source.next(Int.max)) &* 2_654_435_761)
    case 4: return Double(source.next(2_000_001) - 1_000_000) / pick([1, 10, 100, 1_000, 3])
    default: return Double(source.next(1 << 40)) * pick([1, 0.5, 1e-9, 1e9, -1])
    }
  }

  mutating func float() -> Float {
    switch source.next(5) {
    case 4:
      var numbers = FloatingPointGenerator(source)
      defer { source = numbers.source }
      return numbers.float()
    case 0: return pick([0, 0.1, 1e16, 3.4e38, .nan, .infinity, .leastNonzeroMagnitude, 1.5])
    case 1: return Float(bitPattern: UInt32(truncatingIfNeeded: source.next(Int.max)))
    default: return Float(source.next(100_000)) / pick([1, 7, 1_000])
    }
  }

  mutating func date() -> Date {
    switch source.next(4) {
    case 0: return Date(timeIntervalSince1970: Double(source.next(2_000_000_000)))
    case 1: return Date(timeIntervalSince1970: Double(source.next(100)) * 3_600)
    case 2: return Date(timeIntervalSinceReferenceDate: double().isFinite ? double() : 0.25)
    default: return Date(timeIntervalSince1970: Double(source.next(1 << 40)) / 1_000)
    }
  }

  mutating func scalar() -> GValue {
    switch source.next(16) {
    case 14:
      let count = source.next(5)
      switch source.next(6) {
      case 5:
        return .doubleRows((0..<count).map { _ in (0..<source.next(4)).map { _ in double() } })
      case 0: return .doubles((0..<count).map { _ in double() })
      case 1: return .floats((0..<count).map { _ in float() })
      case 2: return .ints((0..<count).map { _ in source.next(1 << 40) - (1 << 39) })
      case 3: return .int64s((0..<count).map { _ in Int64(source.next(Int.max)) })
      default: return .strings((0..<count).map { _ in string() })
      }
    case 0: return .null
    case 1: return .bool(chance(50))
    case 2: return .int(pick([0, -1, Int.max, Int.min, source.next(1_000_000)]))
    case 3: return .int8(pick([Int8.min, Int8.max, 0, 7]))
    case 4: return .int64(Int64(source.next(Int.max)) * (chance(50) ? -1 : 1))
    case 5: return .uint64(pick([UInt64.max, 0, UInt64(source.next(Int.max)) * 2]))
    case 6, 7: return .double(double())
    case 8: return .float(float())
    case 9: return .string(string())
    case 10: return .date(date())
    case 11: return .data(Data((0..<source.next(7)).map { _ in UInt8(source.next(256)) }))
    case 12:
      let link = pick(["https://a.example/b?c=d&e=/f", "rel/path", "mailto:x@y", "/p#frag"])
      return URL(string: link).map(GValue.url) ?? .null
    default:
      let text = pick(["0", "12.50", "-0.00001", "123456789012345678901234567890", "3.14"])
      return Decimal(string: text).map(GValue.decimal) ?? .null
    }
  }

  mutating func value(depth: Int = 0) -> GValue {
    guard depth < 4, chance(45) else { return scalar() }
    let count = source.next(5)
    switch source.next(10) {
    case 0, 1: return .array((0..<count).map { _ in value(depth: depth + 1) })
    case 2, 3: return .object(members(count, depth: depth))
    case 4:
      return .stringDictionary(
        Dictionary((0..<count).map { _ in (key(), value(depth: depth + 1)) }) { $1 })
    case 5:
      return .intDictionary(
        Dictionary((0..<count).map { _ in (source.next(30) - 5, value(depth: depth + 1)) }) { $1 })
    case 6: return .nestedObject(members(count, depth: depth))
    case 7: return .nestedArray((0..<count).map { _ in value(depth: depth + 1) })
    case 8: return chance(50) ? .viaSuper(value(depth: depth + 1)) : .nothing
    default: return .wrapped(value(depth: depth + 1))
    }
  }

  /// An object's members. A nested container at a key already holding a value traps in
  /// JSONEncoder: nested containers get keys of their own.
  mutating func members(_ count: Int, depth: Int) -> [(String, GValue)] {
    (0..<count).map { position in
      let member = value(depth: depth + 1)
      switch member {
      case .nestedObject, .nestedArray: return ("nest\(position)", member)
      default: return (key(), member)
      }
    }
  }

  /// Arrays nested around JSONEncoder's limit of 512 levels.
  mutating func deep() -> GValue {
    var value = chance(50) ? GValue.int(1) : GValue.object([("k", .array([]))])
    for _ in 0..<(505 + source.next(10)) { value = .array([value]) }
    return value
  }
}

enum EncodingOracle {
  /// What one generated case found.
  struct Outcome {
    var violations: [String] = []
    var encoded = 0
    var threw = 0
    var roundTrips = 0
  }

  /// Encodes `value` with both encoders under `options` and compares.
  static func compare<T: Encodable>(
    _ name: String, _ value: T, _ options: GOptions, into outcome: inout Outcome
  ) {
    let foundation = JSONEncoder()
    options.apply(to: foundation)
    let ours = options.modelEncoder()
    let expected = Result { () throws -> Data in try foundation.encode(value) }
    let actual = Result { () throws -> Data in try ours.encode(value) }
    switch (expected, actual) {
    case (.success(let expected), .success(let actual)):
      outcome.encoded += 1
      if expected != actual {
        let at =
          zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset
          ?? min(expected.count, actual.count)
        func window(_ data: Data) -> String {
          String(decoding: data[max(0, at - 60)..<min(data.count, at + 60)], as: UTF8.self)
        }
        outcome.violations.append(
          "\(name) \(options): at byte \(at) JSONEncoder wrote …\(window(expected))…, "
            + "ModelEncoder …\(window(actual))…")
        return
      }
      // Without sorting: the same JSON, in encoding order.
      if let unsorted = try? options.modelEncoder(sorted: false).encode(value),
        let a = try? JSON(data: unsorted), let b = try? JSON(data: actual)
      {
        if a.prettyText(sortedKeys: true) != b.prettyText(sortedKeys: true) {
          outcome.violations.append(
            "\(name) \(options): unsorted \(String(decoding: unsorted, as: UTF8.self)) differs")
        }
      } else {
        outcome.violations.append("\(name) \(options): unsorted output does not parse")
      }
    case (.failure(let expected), .failure(let actual)):
      outcome.threw += 1
      // Which of several non-finite floats in one dictionary is met first depends on the
      // dictionary's iteration order, which JSONEncoder's copy of it may not share.
      let eitherOfSeveral =
        describe(expected).contains("directly in JSON")
        && describe(actual).contains("directly in JSON")
        && ((value as? GValue)?.holdsADictionary ?? false)
      if describe(expected) != describe(actual), !eitherOfSeveral {
        outcome.violations.append(
          "\(name) \(options): JSONEncoder threw \(describe(expected)), ModelEncoder \(describe(actual))"
        )
      }
    case (.success(let expected), .failure(let actual)):
      outcome.violations.append(
        "\(name) \(options): JSONEncoder wrote \(String(decoding: expected, as: UTF8.self)), "
          + "ModelEncoder threw \(describe(actual))")
    case (.failure(let expected), .success(let actual)):
      outcome.violations.append(
        "\(name) \(options): JSONEncoder threw \(describe(expected)), ModelEncoder wrote "
          + String(decoding: actual, as: UTF8.self))
    }
  }

  /// An error's kind, path and message: what a caller can see.
  static func describe(_ error: any Error) -> String {
    guard case EncodingError.invalidValue(_, let context) = error else { return "\(error)" }
    let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    return "invalidValue at \(path): \(context.debugDescription)"
  }

  /// One generated case: a generated value, or a generated model decoded from generated JSON.
  static func runOne<S: EntropySource>(_ source: inout S, into outcome: inout Outcome) {
    var generator = EncodingGenerator(source)
    defer { source = generator.source }
    let options = generator.options()
    switch generator.source.next(12) {
    case 0:
      compare("deep", generator.deep(), options, into: &outcome)
    case 11:
      FloatingPointOracle.runBatch(&generator.source, count: 8, into: &outcome)
    case 3:
      KeyRoundTripOracle.runOne(&generator.source, into: &outcome)
    case 1, 2:
      var models = PromiseGenerator(generator.source)
      defer { generator.source = models.source }
      runModel(&models, options, into: &outcome)
    default:
      compare("value", generator.value(), options, into: &outcome)
    }
  }

  /// A model of `PromiseOracle`, decoded leniently from generated JSON, encoded by both, then
  /// read back through `ModelEncoder(matching:)`: the same value.
  static func runModel<S: EntropySource>(
    _ generator: inout PromiseGenerator<S>, _ options: GOptions, into outcome: inout Outcome
  ) {
    func check<T: Codable & Equatable>(
      _ type: T.Type, _ shape: Shape, configure: (inout LenientDecoder) -> Void = { _ in }
    ) {
      var decoder = LenientDecoder()
      configure(&decoder)
      guard let model = try? decoder.decode(T.self, from: Data(generator.value(shape).utf8)) else {
        return
      }
      compare("\(T.self)", model, options, into: &outcome)
      roundTrip(model, decoder, into: &outcome)
    }
    switch generator.source.next(9) {
    case 0: check(PNumbers.self, PNumbers.shape)
    case 1: check(PItem.self, PItem.shape)
    case 2: check(PPage.self, PPage.shape)
    case 3:
      let strategy = generator.pick([
        LenientDecoder.DateDecodingStrategy.secondsSince1970, .millisecondsSince1970,
        .deferredToDate,
      ])
      check(PMedia.self, PMedia.shape) { $0.dateDecodingStrategy = strategy }
    case 4: check(PDefaults.self, PDefaults.shape)
    case 5:
      generator.snakeCaseKeys = true
      defer { generator.snakeCaseKeys = false }
      check(PSnake.self, PSnake.shape) { $0.keyDecodingStrategy = .convertFromSnakeCase }
    case 6: check(PNode.self, .node)
    default: check(PEvent.self, PEvent.shape) { PEvent.configure(&$0) }
    }
  }

  /// Decoded with `decoder`, encoded with `ModelEncoder(matching: decoder)`, decoded again:
  /// the same value.
  static func roundTrip<T: Codable & Equatable>(
    _ model: T, _ decoder: LenientDecoder, into outcome: inout Outcome
  ) {
    do {
      let encoded = try ModelEncoder(matching: decoder).encode(model)
      let again = try decoder.decode(T.self, from: encoded)
      outcome.roundTrips += 1
      if normalized(again) != normalized(model) {
        outcome.violations.append(
          "\(T.self) round trip: \(model) wrote \(String(decoding: encoded, as: UTF8.self)), read back \(again)"
        )
      }
    } catch {
      // Only a value JSON cannot hold may fail (a non-finite Double under `.throw`).
      if !"\(error)".contains("directly in JSON") {
        outcome.violations.append("\(T.self) round trip threw \(error) for \(model)")
      }
    }
  }
}

/// JSON has one `null`: an `Int??` holding `.some(nil)` reads back as `nil`, in Foundation's
/// coders too. Everything else must come back as it was.
private func normalized<T>(_ model: T) -> T {
  func item(_ item: PItem) -> PItem {
    var copy = item
    if case .some(.none) = copy.nested { copy.nested = .none }
    return copy
  }
  switch model {
  case let value as PItem: return (item(value) as? T) ?? model
  case let value as PPage:
    var copy = value
    copy.items = copy.items.map(item)
    copy.next = copy.next.map(item)
    copy.lookup = copy.lookup.mapValues(item)
    return (copy as? T) ?? model
  default: return model
  }
}

extension PEvent: Encodable {
  enum EncodingKeys: String, CodingKey { case title, cents, at, note, tags }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: EncodingKeys.self)
    try container.encode(title, forKey: .title)
    try container.encode(cents, forKey: .cents)
    try container.encode(at, forKey: .at)
    try container.encodeIfPresent(note, forKey: .note)
    try container.encode(tags, forKey: .tags)
  }
}
