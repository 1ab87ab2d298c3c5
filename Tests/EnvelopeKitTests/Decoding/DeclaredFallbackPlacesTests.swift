import Foundation
import Testing

@testable import EnvelopeKit

// Where a `LenientDecodable`'s declared initial values apply: the keyed container of the type
// being decoded takes its own type's values, wherever that value sits (nested, in an array, a
// dictionary, an Optional, at a path, behind a single-value container) and whatever the position
// was read as before. Each model's declared values differ from the empty values (0, "") and
// from one another, so a value taken from the wrong type, or none, shows.

private struct FbPrefs: Codable, Equatable, Sendable, LenientDecodable {
  var size = 20
  var theme = "light"
}

/// The same property names as `FbPrefs`, other declared values.
private struct FbShell: Codable, Equatable, Sendable, LenientDecodable {
  var size = 99
  var theme = "shell"
  init() {}
  /// Reads a `FbPrefs` at its own position through a single-value container.
  init(from decoder: any Decoder) throws {
    let prefs = try decoder.singleValueContainer().decode(FbPrefs.self)
    size = prefs.size
    theme = prefs.theme
  }
}

/// A plain model reading a `FbPrefs` at its own position.
private struct FbPlainShell: Decodable, Equatable {
  var prefs: FbPrefs
  init(from decoder: any Decoder) throws {
    prefs = try decoder.singleValueContainer().decode(FbPrefs.self)
  }
}

/// A `LenientDecodable` whose `init(from:)` hands its decoder to a plain type's `init(from:)`:
/// the keyed container is made at a position of `FbForward`'s, and takes `FbForward`'s values.
private struct FbForward: Decodable, Equatable, LenientDecodable {
  var size = 55
  var theme = "forward"
  init() {}
  private struct Raw: Decodable { var size: Int; var theme: String }
  init(from decoder: any Decoder) throws {
    let raw = try Raw(from: decoder)
    size = raw.size
    theme = raw.theme
  }
}

private struct FbPage<T: Codable & Equatable & Sendable>: Codable, Equatable, Sendable,
  LenientDecodable
{
  var items: [T] = []
  var count = 7
}

private struct FbHolder<T: Decodable>: Decodable {
  var v: T
}

private struct FbOptionalHolder: Codable, Equatable, Sendable {
  var v: FbPrefs?
}

/// `FbPrefs` read through a `superDecoder(forKey:)`, by its `init(from:)` and by a single-value
/// container.
private struct FbSuper: Decodable, Equatable {
  var direct: FbPrefs
  var unboxed: FbPrefs
  enum CodingKeys: String, CodingKey { case direct, unboxed }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    direct = try FbPrefs(from: container.superDecoder(forKey: .direct))
    unboxed = try container.superDecoder(forKey: .unboxed).singleValueContainer().decode(
      FbPrefs.self)
  }
}

private func decodeLeniently<T: Decodable>(
  _ type: T.Type, _ json: String, at path: JSONPath? = nil, _ decoder: LenientDecoder = .init()
) throws -> (value: T, report: [String]) {
  let data = Data(json.utf8)
  let result =
    try path.map { try decoder.decodeWithReport(type, from: data, at: $0) }
    ?? decoder.decodeWithReport(type, from: data)
  return (result.value, result.report.entries.map { "\($0.path) \($0.kind)" })
}

@Suite struct DeclaredFallbackPlacesTests {
  private static let bad = #"{"size":"lots","theme":null}"#
  private static let declared = FbPrefs()

  @Test func atTheRoot() throws {
    let result = try decodeLeniently(FbPrefs.self, Self.bad)
    #expect(result.value == Self.declared)
    #expect(result.report == ["size defaulted", "theme defaulted"])
  }

  @Test func nestedInAModel() throws {
    let result = try decodeLeniently(FbHolder<FbPrefs>.self, #"{"v":\#(Self.bad)}"#)
    #expect(result.value.v == Self.declared)
    #expect(result.report == ["v.size defaulted", "v.theme defaulted"])
  }

  @Test func inAnArrayAndADictionary() throws {
    let array = try decodeLeniently([FbPrefs].self, #"[\#(Self.bad),{"size":3,"theme":"x"}]"#)
    #expect(array.value == [Self.declared, FbPrefs(size: 3, theme: "x")])
    #expect(array.report == ["[0].size defaulted", "[0].theme defaulted"])
    let dictionary = try decodeLeniently([String: FbPrefs].self, #"{"a":\#(Self.bad)}"#)
    #expect(dictionary.value == ["a": Self.declared])
    #expect(dictionary.report == ["a.size defaulted", "a.theme defaulted"])
  }

  @Test func inAnOptionalPropertyAndOptionalElements() throws {
    let property = try decodeLeniently(FbOptionalHolder.self, #"{"v":\#(Self.bad)}"#)
    #expect(property.value.v == Self.declared)
    #expect(property.report == ["v.size defaulted", "v.theme defaulted"])
    let elements = try decodeLeniently([FbPrefs?].self, #"[null,\#(Self.bad),"x"]"#)
    // An unusable present value is nil, not the declared model: an Optional takes no fallback.
    #expect(elements.value == [nil, Self.declared, nil])
    #expect(elements.report == ["[1].size defaulted", "[1].theme defaulted", "[2] nulled"])
    let nested = try decodeLeniently(FbHolder<FbPrefs??>.self, #"{"v":\#(Self.bad)}"#)
    #expect(nested.value.v == .some(.some(Self.declared)))
  }

  @Test func atAPath() throws {
    let result = try decodeLeniently(FbPrefs.self, #"{"data":{"p":\#(Self.bad)}}"#, at: "data.p")
    #expect(result.value == Self.declared)
    #expect(result.report == ["data.p.size defaulted", "data.p.theme defaulted"])
  }

  @Test func inAGenericModel() throws {
    let result = try decodeLeniently(FbPage<FbPrefs>.self, #"{"items":[\#(Self.bad)],"count":"x"}"#)
    #expect(result.value == FbPage(items: [Self.declared], count: 7))
    #expect(
      result.report == ["items[0].size defaulted", "items[0].theme defaulted", "count defaulted"])
  }

  /// A model read through another `LenientDecodable`'s single-value container takes its own
  /// values, not the outer model's (same property names, other values).
  @Test func throughASingleValueContainer() throws {
    let shell = try decodeLeniently(FbShell.self, Self.bad)
    #expect(shell.value.size == 20)
    #expect(shell.value.theme == "light")
    let inArray = try decodeLeniently([FbShell].self, "[\(Self.bad)]")
    #expect(inArray.value.map(\.size) == [20])
    let plain = try decodeLeniently(FbPlainShell.self, Self.bad)
    #expect(plain.value.prefs == Self.declared)
    #expect(plain.report == ["size defaulted", "theme defaulted"])
  }

  /// A plain type's `init(from:)` called with a `LenientDecodable`'s decoder reads that model's
  /// values (the container is made at the model's position), as before the flag.
  @Test func aPlainInitFromWithAModelsDecoder() throws {
    let result = try decodeLeniently(FbForward.self, Self.bad)
    #expect(result.value == FbForward())
    let nested = try decodeLeniently(FbHolder<FbForward>.self, #"{"v":\#(Self.bad)}"#)
    #expect(nested.value.v == FbForward())
  }

  /// A `superDecoder` is a position of the container's: `FbPrefs(from:)` called with it is not
  /// a decode of a `FbPrefs` value by the decoder (no declared values, as Foundation would have
  /// none), while a single-value read of it is.
  @Test func throughASuperDecoder() throws {
    let result = try decodeLeniently(
      FbSuper.self, #"{"direct":\#(Self.bad),"unboxed":\#(Self.bad)}"#)
    #expect(result.value.direct == FbPrefs(size: 0, theme: ""))
    #expect(result.value.unboxed == Self.declared)
  }

  @Test func withKeyMappings() throws {
    var decoder = LenientDecoder()
    decoder.map(FbHolder<FbPrefs>.self, key: "v", to: "nested.p")
    decoder.map(FbPrefs.self, key: "size", to: "s.z")
    let result = try decodeLeniently(
      FbHolder<FbPrefs>.self, #"{"nested":{"p":{"s":{"z":"lots"},"theme":null}}}"#, decoder)
    #expect(result.value.v == Self.declared)
    #expect(result.report == ["nested.p.s.z defaulted", "nested.p.theme defaulted"])
  }

  /// The behaviour change of the flag: a keyed container a `.custom` date strategy opens while
  /// a `LenientDecodable` reads a `Date` through its single-value container reads the date's
  /// object, and takes no declared value of the model (before, the model's `seconds` stood in).
  @Test func aCustomDateStrategysContainerTakesNoValuesOfTheModel() throws {
    struct Stamp: Decodable, LenientDecodable {
      var at = Date(timeIntervalSince1970: 5)
      var seconds = 77.0
      init() {}
      init(from decoder: any Decoder) throws {
        at = try decoder.singleValueContainer().decode(Date.self)
      }
    }
    enum Keys: String, CodingKey { case seconds }
    var decoder = LenientDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.container(keyedBy: Keys.self)
      return Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .seconds))
    }
    let result = try decodeLeniently(Stamp.self, #"{"seconds":"x"}"#, decoder)
    #expect(result.value.at == Date(timeIntervalSince1970: 0))
    #expect(result.report == ["seconds defaulted"])
    let read = try decodeLeniently(Stamp.self, #"{"seconds":12}"#, decoder)
    #expect(read.value.at == Date(timeIntervalSince1970: 12))
  }
}

/// Arrays in JSON held in a string (lenient): each reads its own document, nested ones
/// included, and reports name the string's key.
@Suite struct EmbeddedArrayDocumentTests {
  private struct Lists: Codable, Equatable, Sendable {
    var xs: [Int]
    var names: [String]
    var items: [Item]
  }

  @Test func arraysOfEveryElementKind() throws {
    let ints = try decodeLeniently(FbHolder<[Int]>.self, #"{"v":"[1,\"x\",3]"}"#)
    #expect(ints.value.v == [1, 3])
    #expect(ints.report == ["v coerced", "v[1] dropped"])
    let doubles = try decodeLeniently(FbHolder<[Double]>.self, #"{"v":"[1.5,2]"}"#)
    #expect(doubles.value.v == [1.5, 2])
    let strings = try decodeLeniently(FbHolder<[String]>.self, #"{"v":"[\"a\",{}]"}"#)
    #expect(strings.value.v == ["a"])
    #expect(strings.report == ["v coerced", "v[1] dropped"])
    let int64s = try decodeLeniently(FbHolder<[Int64]>.self, #"{"v":"[9,8]"}"#)
    #expect(int64s.value.v == [9, 8])
    let optionals = try decodeLeniently(FbHolder<[Int?]>.self, #"{"v":"[1,null,\"x\"]"}"#)
    #expect(optionals.value.v == [1, nil, nil])
    #expect(optionals.report == ["v coerced", "v[2] nulled"])
    let items = try decodeLeniently(
      FbHolder<[Item]>.self, #"{"v":"[{\"id\":1,\"name\":\"a\"},{\"id\":\"x\",\"name\":\"b\"}]"}"#)
    #expect(items.value.v == [Item(id: 1, name: "a"), Item(id: 0, name: "b")])
    #expect(items.report == ["v coerced", "v[1].id defaulted"])
  }

  /// An array inside an embedded object, and an array held in a string inside an embedded
  /// array: each reads the document it is in.
  @Test func arraysInsideEmbeddedDocuments() throws {
    let inObject = try decodeLeniently(
      FbHolder<Lists>.self,
      #"{"v":"{\"xs\":[4,5],\"names\":[\"n\"],\"items\":[{\"id\":2,\"name\":\"c\"}]}"}"#)
    #expect(inObject.value.v == Lists(xs: [4, 5], names: ["n"], items: [Item(id: 2, name: "c")]))
    #expect(inObject.report == ["v coerced"])
    let nested = try decodeLeniently(
      FbHolder<[[Int]]>.self, #"{"v":"[[1],\"[2,\\\"y\\\",3]\",[4]]"}"#)
    #expect(nested.value.v == [[1], [2, 3], [4]])
    #expect(nested.report == ["v coerced", "v[1] coerced", "v[1][1] dropped"])
    let dictionary = try decodeLeniently(
      FbHolder<[String: [Int]]>.self, #"{"v":"{\"a\":\"[7]\"}"}"#)
    #expect(dictionary.value.v == ["a": [7]])
    #expect(dictionary.report == ["v coerced", "v.a coerced"])
  }

  /// An unkeyed container over an embedded array, nested in one over the outer document.
  @Test func unkeyedContainersOverEmbeddedArrays() throws {
    struct Pairs: Decodable, Equatable {
      var values: [Int] = []
      init(from decoder: any Decoder) throws {
        var outer = try decoder.unkeyedContainer()
        while !outer.isAtEnd {
          var inner = try outer.nestedUnkeyedContainer()
          while !inner.isAtEnd { values.append(try inner.decode(Int.self)) }
        }
      }
    }
    let result = try decodeLeniently(Pairs.self, #"[[1,2],"[3,4]",[5]]"#)
    #expect(result.value.values == [1, 2, 3, 4, 5])
    #expect(result.report == ["[1] coerced"])
  }
}
