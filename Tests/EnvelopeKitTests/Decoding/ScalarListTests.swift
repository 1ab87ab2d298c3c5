import Foundation
import Testing

@testable import EnvelopeKit

// `ScalarKind` is the one list of the scalar types of the `Codable` container protocols. Each
// case is driven here through the concrete overloads of every container of the decoder (keyed
// and unkeyed `decode` and `decodeIfPresent`, single-value `decode`) and of the encoder (keyed
// `encode` and `encodeIfPresent`, unkeyed and single-value `encode`). The switches are
// exhaustive: a type added to the list must be added here, and a container without its
// overload falls back to the standard library's default, which these checks catch (a lenient
// `defaulted` 0 instead of a `nulled` nil, or "not implemented").

/// How a probe reaches its value.
enum ScalarAccess: Sendable, CaseIterable { case keyed, unkeyed, single }

extension CodingUserInfoKey {
  fileprivate static let scalarProbe = CodingUserInfoKey(rawValue: "EnvelopeKitTests.scalarProbe")
}

/// What a probe does: the kind, the access, and whether it reads with `decodeIfPresent`.
struct ScalarProbeSetting: Sendable {
  var kind: ScalarKind
  var access: ScalarAccess
  var optional: Bool
}

/// Reads key `"v"` (keyed), the first element (unkeyed) or the value (single) as the kind the
/// setting names, through the concrete overload, and keeps its text.
struct ScalarRead: Decodable {
  var text: String?

  init(from decoder: any Decoder) throws {
    guard let key = CodingUserInfoKey.scalarProbe,
      let setting = decoder.userInfo[key] as? ScalarProbeSetting,
      #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    else { throw CocoaError(.coderInvalidValue) }
    switch setting.access {
    case .keyed:
      let container = try decoder.container(keyedBy: AnyCodingKey.self)
      let key = AnyCodingKey(stringValue: "v")
      text =
        try setting.optional
        ? Self.keyedIfPresent(setting.kind, container, key)
        : Self.keyed(setting.kind, container, key)
    case .unkeyed:
      var container = try decoder.unkeyedContainer()
      text =
        try setting.optional
        ? Self.unkeyedIfPresent(setting.kind, &container) : Self.unkeyed(setting.kind, &container)
    case .single:
      text = try Self.single(setting.kind, decoder.singleValueContainer())
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  static func keyedIfPresent(
    _ kind: ScalarKind, _ container: KeyedDecodingContainer<AnyCodingKey>, _ key: AnyCodingKey
  ) throws -> String? {
    switch kind {
    case .string: return try container.decodeIfPresent(String.self, forKey: key).map { "\($0)" }
    case .int: return try container.decodeIfPresent(Int.self, forKey: key).map { "\($0)" }
    case .double: return try container.decodeIfPresent(Double.self, forKey: key).map { "\($0)" }
    case .bool: return try container.decodeIfPresent(Bool.self, forKey: key).map { "\($0)" }
    case .int64: return try container.decodeIfPresent(Int64.self, forKey: key).map { "\($0)" }
    case .float: return try container.decodeIfPresent(Float.self, forKey: key).map { "\($0)" }
    case .uint64: return try container.decodeIfPresent(UInt64.self, forKey: key).map { "\($0)" }
    case .int32: return try container.decodeIfPresent(Int32.self, forKey: key).map { "\($0)" }
    case .uint: return try container.decodeIfPresent(UInt.self, forKey: key).map { "\($0)" }
    case .uint32: return try container.decodeIfPresent(UInt32.self, forKey: key).map { "\($0)" }
    case .int16: return try container.decodeIfPresent(Int16.self, forKey: key).map { "\($0)" }
    case .uint16: return try container.decodeIfPresent(UInt16.self, forKey: key).map { "\($0)" }
    case .int8: return try container.decodeIfPresent(Int8.self, forKey: key).map { "\($0)" }
    case .uint8: return try container.decodeIfPresent(UInt8.self, forKey: key).map { "\($0)" }
    case .int128: return try container.decodeIfPresent(Int128.self, forKey: key).map { "\($0)" }
    case .uint128: return try container.decodeIfPresent(UInt128.self, forKey: key).map { "\($0)" }
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  static func keyed(
    _ kind: ScalarKind, _ container: KeyedDecodingContainer<AnyCodingKey>, _ key: AnyCodingKey
  ) throws -> String {
    switch kind {
    case .string: return "\(try container.decode(String.self, forKey: key))"
    case .int: return "\(try container.decode(Int.self, forKey: key))"
    case .double: return "\(try container.decode(Double.self, forKey: key))"
    case .bool: return "\(try container.decode(Bool.self, forKey: key))"
    case .int64: return "\(try container.decode(Int64.self, forKey: key))"
    case .float: return "\(try container.decode(Float.self, forKey: key))"
    case .uint64: return "\(try container.decode(UInt64.self, forKey: key))"
    case .int32: return "\(try container.decode(Int32.self, forKey: key))"
    case .uint: return "\(try container.decode(UInt.self, forKey: key))"
    case .uint32: return "\(try container.decode(UInt32.self, forKey: key))"
    case .int16: return "\(try container.decode(Int16.self, forKey: key))"
    case .uint16: return "\(try container.decode(UInt16.self, forKey: key))"
    case .int8: return "\(try container.decode(Int8.self, forKey: key))"
    case .uint8: return "\(try container.decode(UInt8.self, forKey: key))"
    case .int128: return "\(try container.decode(Int128.self, forKey: key))"
    case .uint128: return "\(try container.decode(UInt128.self, forKey: key))"
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  static func unkeyedIfPresent(_ kind: ScalarKind, _ container: inout any UnkeyedDecodingContainer)
    throws -> String?
  {
    switch kind {
    case .string: return try container.decodeIfPresent(String.self).map { "\($0)" }
    case .int: return try container.decodeIfPresent(Int.self).map { "\($0)" }
    case .double: return try container.decodeIfPresent(Double.self).map { "\($0)" }
    case .bool: return try container.decodeIfPresent(Bool.self).map { "\($0)" }
    case .int64: return try container.decodeIfPresent(Int64.self).map { "\($0)" }
    case .float: return try container.decodeIfPresent(Float.self).map { "\($0)" }
    case .uint64: return try container.decodeIfPresent(UInt64.self).map { "\($0)" }
    case .int32: return try container.decodeIfPresent(Int32.self).map { "\($0)" }
    case .uint: return try container.decodeIfPresent(UInt.self).map { "\($0)" }
    case .uint32: return try container.decodeIfPresent(UInt32.self).map { "\($0)" }
    case .int16: return try container.decodeIfPresent(Int16.self).map { "\($0)" }
    case .uint16: return try container.decodeIfPresent(UInt16.self).map { "\($0)" }
    case .int8: return try container.decodeIfPresent(Int8.self).map { "\($0)" }
    case .uint8: return try container.decodeIfPresent(UInt8.self).map { "\($0)" }
    case .int128: return try container.decodeIfPresent(Int128.self).map { "\($0)" }
    case .uint128: return try container.decodeIfPresent(UInt128.self).map { "\($0)" }
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  static func unkeyed(_ kind: ScalarKind, _ container: inout any UnkeyedDecodingContainer)
    throws -> String
  {
    switch kind {
    case .string: return "\(try container.decode(String.self))"
    case .int: return "\(try container.decode(Int.self))"
    case .double: return "\(try container.decode(Double.self))"
    case .bool: return "\(try container.decode(Bool.self))"
    case .int64: return "\(try container.decode(Int64.self))"
    case .float: return "\(try container.decode(Float.self))"
    case .uint64: return "\(try container.decode(UInt64.self))"
    case .int32: return "\(try container.decode(Int32.self))"
    case .uint: return "\(try container.decode(UInt.self))"
    case .uint32: return "\(try container.decode(UInt32.self))"
    case .int16: return "\(try container.decode(Int16.self))"
    case .uint16: return "\(try container.decode(UInt16.self))"
    case .int8: return "\(try container.decode(Int8.self))"
    case .uint8: return "\(try container.decode(UInt8.self))"
    case .int128: return "\(try container.decode(Int128.self))"
    case .uint128: return "\(try container.decode(UInt128.self))"
    }
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  static func single(_ kind: ScalarKind, _ container: any SingleValueDecodingContainer) throws
    -> String
  {
    switch kind {
    case .string: return "\(try container.decode(String.self))"
    case .int: return "\(try container.decode(Int.self))"
    case .double: return "\(try container.decode(Double.self))"
    case .bool: return "\(try container.decode(Bool.self))"
    case .int64: return "\(try container.decode(Int64.self))"
    case .float: return "\(try container.decode(Float.self))"
    case .uint64: return "\(try container.decode(UInt64.self))"
    case .int32: return "\(try container.decode(Int32.self))"
    case .uint: return "\(try container.decode(UInt.self))"
    case .uint32: return "\(try container.decode(UInt32.self))"
    case .int16: return "\(try container.decode(Int16.self))"
    case .uint16: return "\(try container.decode(UInt16.self))"
    case .int8: return "\(try container.decode(Int8.self))"
    case .uint8: return "\(try container.decode(UInt8.self))"
    case .int128: return "\(try container.decode(Int128.self))"
    case .uint128: return "\(try container.decode(UInt128.self))"
    }
  }
}

/// Writes a sample of the kind through the concrete overloads of the access's container.
struct ScalarWrite: Encodable {
  var kind: ScalarKind
  var access: ScalarAccess

  func encode(to encoder: any Encoder) throws {
    guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else {
      throw CocoaError(.coderInvalidValue)
    }
    switch access {
    case .keyed:
      var container = encoder.container(keyedBy: AnyCodingKey.self)
      switch kind {
      case .string:
        let value: String = "a"
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as String?, forKey: AnyCodingKey(stringValue: "c"))
      case .int:
        let value: Int = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Int?, forKey: AnyCodingKey(stringValue: "c"))
      case .double:
        let value: Double = 1.5
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Double?, forKey: AnyCodingKey(stringValue: "c"))
      case .bool:
        let value: Bool = true
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Bool?, forKey: AnyCodingKey(stringValue: "c"))
      case .int64:
        let value: Int64 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Int64?, forKey: AnyCodingKey(stringValue: "c"))
      case .float:
        let value: Float = 1.5
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Float?, forKey: AnyCodingKey(stringValue: "c"))
      case .uint64:
        let value: UInt64 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as UInt64?, forKey: AnyCodingKey(stringValue: "c"))
      case .int32:
        let value: Int32 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Int32?, forKey: AnyCodingKey(stringValue: "c"))
      case .uint:
        let value: UInt = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as UInt?, forKey: AnyCodingKey(stringValue: "c"))
      case .uint32:
        let value: UInt32 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as UInt32?, forKey: AnyCodingKey(stringValue: "c"))
      case .int16:
        let value: Int16 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Int16?, forKey: AnyCodingKey(stringValue: "c"))
      case .uint16:
        let value: UInt16 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as UInt16?, forKey: AnyCodingKey(stringValue: "c"))
      case .int8:
        let value: Int8 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Int8?, forKey: AnyCodingKey(stringValue: "c"))
      case .uint8:
        let value: UInt8 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as UInt8?, forKey: AnyCodingKey(stringValue: "c"))
      case .int128:
        let value: Int128 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as Int128?, forKey: AnyCodingKey(stringValue: "c"))
      case .uint128:
        let value: UInt128 = 7
        try container.encode(value, forKey: AnyCodingKey(stringValue: "a"))
        try container.encodeIfPresent(value, forKey: AnyCodingKey(stringValue: "b"))
        try container.encodeIfPresent(nil as UInt128?, forKey: AnyCodingKey(stringValue: "c"))
      }
    case .unkeyed:
      var container = encoder.unkeyedContainer()
      switch kind {
      case .string: try container.encode("a" as String)
      case .int: try container.encode(7 as Int)
      case .double: try container.encode(1.5 as Double)
      case .bool: try container.encode(true as Bool)
      case .int64: try container.encode(7 as Int64)
      case .float: try container.encode(1.5 as Float)
      case .uint64: try container.encode(7 as UInt64)
      case .int32: try container.encode(7 as Int32)
      case .uint: try container.encode(7 as UInt)
      case .uint32: try container.encode(7 as UInt32)
      case .int16: try container.encode(7 as Int16)
      case .uint16: try container.encode(7 as UInt16)
      case .int8: try container.encode(7 as Int8)
      case .uint8: try container.encode(7 as UInt8)
      case .int128: try container.encode(7 as Int128)
      case .uint128: try container.encode(7 as UInt128)
      }
    case .single:
      var container = encoder.singleValueContainer()
      switch kind {
      case .string: try container.encode("a" as String)
      case .int: try container.encode(7 as Int)
      case .double: try container.encode(1.5 as Double)
      case .bool: try container.encode(true as Bool)
      case .int64: try container.encode(7 as Int64)
      case .float: try container.encode(1.5 as Float)
      case .uint64: try container.encode(7 as UInt64)
      case .int32: try container.encode(7 as Int32)
      case .uint: try container.encode(7 as UInt)
      case .uint32: try container.encode(7 as UInt32)
      case .int16: try container.encode(7 as Int16)
      case .uint16: try container.encode(7 as UInt16)
      case .int8: try container.encode(7 as Int8)
      case .uint8: try container.encode(7 as UInt8)
      case .int128: try container.encode(7 as Int128)
      case .uint128: try container.encode(7 as UInt128)
      }
    }
  }
}

@Suite struct ScalarListTests {
  /// The JSON text of the sample each kind writes and reads.
  static func sample(_ kind: ScalarKind) -> String {
    switch kind {
    case .string: return #""a""#
    case .bool: return "true"
    case .double, .float: return "1.5"
    default: return "7"
    }
  }

  /// The sample as the probe reads it back (`"\(value)"`).
  static func sampleText(_ kind: ScalarKind) -> String {
    kind == .string ? "a" : sample(kind)
  }

  static func read(
    _ kind: ScalarKind, _ access: ScalarAccess, optional: Bool, _ json: String,
    _ policy: DecodingPolicy
  ) throws -> Decoded<ScalarRead> {
    var decoder = LenientDecoder(policy: policy)
    if let key = CodingUserInfoKey.scalarProbe {
      decoder.userInfo[key] = ScalarProbeSetting(kind: kind, access: access, optional: optional)
    }
    let document: String
    switch access {
    case .keyed: document = json.isEmpty ? "{}" : #"{"v":"# + json + "}"
    case .unkeyed: document = "[" + json + "]"
    case .single: document = json
    }
    return try decoder.decodeWithReport(ScalarRead.self, from: Data(document.utf8))
  }

  /// The list holds the 16 scalar types of the container protocols, each once.
  @Test func theListIsTheContainerProtocolsScalars() {
    #expect(ScalarKind.allCases.count == 16)
    #expect(Set(ScalarKind.allCases.map { "\($0)" }).count == 16)
  }

  /// `decodeIfPresent` of every kind, keyed and unkeyed, as `Int64?` behaves: missing or null
  /// is nil with no entry in both policies; a present value of another kind throws in strict and
  /// is a `nulled` nil in lenient; a sample reads back. (Keyed `Int128?`/`UInt128?` gave a
  /// `defaulted` 0 and unkeyed ones threw "not implemented"; unkeyed lenient threw for all.)
  @Test(arguments: ScalarKind.allCases, [ScalarAccess.keyed, .unkeyed])
  func optionalScalarsOfEveryKindBehaveAsInt64OptionalsDo(_ kind: ScalarKind, access: ScalarAccess)
    throws
  {
    for policy in [DecodingPolicy.strict, .lenient] {
      for absent in ["", "null"] {
        let none = try Self.read(kind, access, optional: true, absent, policy)
        #expect(none.value.text == nil, "\(policy) \(absent)")
        #expect(none.report.isEmpty, "\(policy) \(absent): \(none.report)")
      }
      let sample = try Self.read(kind, access, optional: true, Self.sample(kind), policy)
      #expect(sample.value.text == Self.sampleText(kind))
      #expect(sample.report.isEmpty)
    }
    #expect(throws: DecodingError.self) {
      try Self.read(kind, access, optional: true, "{}", .strict)
    }
    let lenient = try Self.read(kind, access, optional: true, "{}", .lenient)
    #expect(lenient.value.text == nil)
    #expect(lenient.report.entries.map(\.kind) == [.nulled], "\(lenient.report)")
  }

  /// `decode` of every kind through every container reads the sample, and throws a type error
  /// in strict for a value of another kind (not the standard library's "not implemented").
  @Test(arguments: ScalarKind.allCases, ScalarAccess.allCases)
  func scalarsOfEveryKindDecodeThroughEveryContainer(_ kind: ScalarKind, access: ScalarAccess)
    throws
  {
    let read = try Self.read(kind, access, optional: false, Self.sample(kind), .strict)
    #expect(read.value.text == Self.sampleText(kind))
    do {
      _ = try Self.read(kind, access, optional: false, "{}", .strict)
      Issue.record("decoded {} as \(kind)")
    } catch {
      #expect(!"\(error)".contains("not implemented"), "\(error)")
    }
  }

  /// The encoder writes a sample of every kind through every container.
  @Test(arguments: ScalarKind.allCases, ScalarAccess.allCases)
  func scalarsOfEveryKindEncodeThroughEveryContainer(_ kind: ScalarKind, access: ScalarAccess)
    throws
  {
    let text = try ModelEncoder().encodeString(ScalarWrite(kind: kind, access: access))
    let sample = Self.sample(kind)
    switch access {
    case .keyed: #expect(text == #"{"a":"# + sample + #","b":"# + sample + "}")
    case .unkeyed: #expect(text == "[" + sample + "]")
    case .single: #expect(text == sample)
    }
  }
}
