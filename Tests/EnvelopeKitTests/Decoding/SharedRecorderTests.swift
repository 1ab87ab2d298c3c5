import Foundation
import Testing

@testable import EnvelopeKit

/// A decode's `DecoderImpl` is its own report recorder, and a `superDecoder()` records into the
/// decoder it shares: entries made through super decoders (nested ones too) are neither lost nor
/// counted twice, are rolled back with the value they belong to when a lenient fallback drops,
/// nulls or defaults it, and count against the one `maxReportEntries` of the decode.
@Suite struct SharedRecorderTests {
  struct Failure: Error {}

  /// `id` read through `superDecoder(forKey:)`, `note` through `superDecoder()` → a nested super
  /// decoder; throws after both when `fail` is true.
  struct Outer: Decodable, Equatable {
    var id: Int
    var note: Int
    init(id: Int, note: Int) {
      self.id = id
      self.note = note
    }
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyKey.self)
      id = try Int(from: container.superDecoder(forKey: AnyKey("id")))
      let inner = try container.superDecoder(forKey: AnyKey("inner"))
      let nested = try inner.container(keyedBy: AnyKey.self)
      note = try Int(from: nested.superDecoder(forKey: AnyKey("note")))
      if try container.decodeIfPresent(Bool.self, forKey: AnyKey("fail")) == true {
        throw Failure()
      }
    }
  }

  /// An array of `Outer` read through a super decoder: its drops run on the shared decoder.
  struct Page: Decodable {
    var items: [Outer]
    var best: Outer?
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyKey.self)
      items = try container.superDecoder(forKey: AnyKey("items")).singleValueContainer().decode(
        [Outer].self)
      best = try container.decodeIfPresent(Outer.self, forKey: AnyKey("best"))
    }
  }

  /// A raw-value enum whose `init(from:)` records an entry through a super decoder, then fails.
  enum Mode: String, CaseDefaultable, Equatable {
    case on, off
    static var defaultCase: Mode { .off }
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: AnyKey.self)
      _ = try Int(from: container.superDecoder(forKey: AnyKey("n")))
      throw Failure()
    }
  }

  struct Holder: Decodable { var mode: Mode }

  /// Every element of `v` read through the unkeyed container's `superDecoder()`.
  struct Elements: Decodable {
    var v: [Int] = []
    init(from decoder: any Decoder) throws {
      var elements = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(
        forKey: AnyKey("v"))
      while !elements.isAtEnd { v.append(try Int(from: elements.superDecoder())) }
    }
  }

  static func report(_ json: String, maxEntries: Int = 1_000) throws -> [String] {
    var decoder = LenientDecoder()
    decoder.maxReportEntries = maxEntries
    return try decoder.decodeWithReport(Page.self, from: Data(json.utf8)).report.entries.map {
      "\($0.path) \($0.kind)"
    }
  }

  @Test func superDecoderEntriesAreRecordedOnce() throws {
    let entries = try Self.report(
      #"{"items":[{"id":"1","inner":{"note":"2"}}],"best":{"id":3,"inner":{"note":"4"}}}"#)
    #expect(
      entries == ["items[0].id coerced", "items[0].inner.note coerced", "best.inner.note coerced"])
  }

  @Test func aDroppedElementTakesItsSuperDecoderEntriesWithIt() throws {
    let entries = try Self.report(
      #"{"items":[{"id":"1","inner":{"note":2}},{"id":"5","inner":{"note":"6"},"fail":true},{"id":7,"inner":{"note":"8"}}]}"#
    )
    #expect(entries == ["items[0].id coerced", "items[1] dropped", "items[2].inner.note coerced"])
  }

  @Test func aNulledOptionalTakesItsSuperDecoderEntriesWithIt() throws {
    let entries = try Self.report(
      #"{"items":[],"best":{"id":"1","inner":{"note":"2"},"fail":true}}"#)
    #expect(entries == ["best nulled"])
  }

  @Test func aDefaultedCaseTakesItsSuperDecoderEntriesWithIt() throws {
    let decoded = try LenientDecoder().decodeWithReport(
      Holder.self, from: Data(#"{"mode":{"n":"3"}}"#.utf8))
    #expect(decoded.value.mode == .off)
    #expect(decoded.report.entries.map { "\($0.path) \($0.kind)" } == ["mode defaulted"])
  }

  @Test func unkeyedSuperDecoderEntriesAreRecordedOnce() throws {
    let decoded = try LenientDecoder().decodeWithReport(
      Elements.self, from: Data(#"{"v":["1",2,"3"]}"#.utf8))
    #expect(decoded.value.v == [1, 2, 3])
    #expect(
      decoded.report.entries.map { "\($0.path) \($0.kind)" } == ["v[0] coerced", "v[2] coerced"])
  }

  @Test func superDecoderEntriesCountAgainstTheDecodesLimit() throws {
    var decoder = LenientDecoder()
    decoder.maxReportEntries = 1
    let report = try decoder.decodeWithReport(
      Page.self,
      from: Data(
        #"{"items":[{"id":"1","inner":{"note":"2"}},{"id":"3","inner":{"note":"4"}}]}"#.utf8)
    ).report
    #expect(report.entries.map { "\($0.path) \($0.kind)" } == ["items[0].id coerced"])
    #expect(report.omittedCount == 3)
  }
}
