import Foundation
import Testing

@testable import EnvelopeKit

/// A thread's next scan of borrowed bytes reuses the document object of its last scan when
/// nothing else held it (see `SpareDocument`); a document something still holds is never
/// reused, and the kept one holds nothing of its input.
@Suite struct SpareDocumentTests {
  static let text = #"{"name":"spare","numbers":[1,2,3],"nested":{"a":[true,false,null]}}"#

  /// Scans `text` on the current thread: the document's identity, and its first string.
  static func scan(_ text: String) throws -> (ObjectIdentifier, String) {
    try JSONDocument.scanning(Data(text.utf8), maxDepth: 8) {
      (ObjectIdentifier($0), $0.string(2))
    }
  }

  /// The thread's spare document: its identity, and whether it is empty; put back after.
  static func spare() throws -> (ObjectIdentifier, Bool) {
    let spare = try #require(SpareDocument.take())
    defer { SpareDocument.keep(spare) }
    return (ObjectIdentifier(spare), spare.tokens.isEmpty && spare.bytes.isEmpty)
  }

  @Test func aScannedDocumentIsKeptEmptyAndTheNextScanTakesIt() throws {
    let (first, name) = try Self.scan(Self.text)
    let (kept, isEmpty) = try Self.spare()
    #expect(kept == first && isEmpty)
    let (second, again) = try Self.scan(#"{"name":"other"}"#)
    #expect(second == first)
    #expect(name == "spare" && again == "other")
  }

  /// Input past `JSONDocument.copiedInputLimit` is scanned in place, and its document is kept
  /// as well: nothing holds it when the call ends, so its bytes are never copied. (A binding
  /// left holding the document made `finish` copy every input past 8 KB at the end of its
  /// decode: an input-sized buffer and a memcpy per call, 2% of a twitter.json decode.)
  @Test(arguments: [1, 4]) func aLargeInputsDocumentIsKeptWithoutACopy(_ multiple: Int) throws {
    // (`ENVELOPEKIT_NO_SPARE_TAPE`, set for one of the sanitizer runs, keeps no spare at all.)
    guard SpareTape.isEnabled else { return }
    let copies = JSONDocument.copiedInputLimit * multiple / Self.text.utf8.count + 1
    let large = Data(
      ("[" + Array(repeating: Self.text, count: copies).joined(separator: ",") + "]").utf8)
    #expect(large.count > JSONDocument.copiedInputLimit)
    _ = SpareDocument.take()
    let (first, ownsBytes) = try JSONDocument.scanning(large, maxDepth: 8) {
      (ObjectIdentifier($0), $0.ownsBytes)
    }
    #expect(!ownsBytes)
    let (kept, isEmpty) = try Self.spare()
    #expect(kept == first && isEmpty)
    // The same through a decoder: the document is the thread's spare afterwards.
    _ = SpareDocument.take()
    let values = try LenientDecoder().decode([[String: JSON]].self, from: large)
    #expect(values.count == copies)
    #expect(SpareDocument.take() != nil)
  }

  @Test func aDocumentStillHeldIsNeverReused() throws {
    let data = Data(Self.text.utf8)
    let kept = try JSONDocument.scanning(data, maxDepth: 8) { $0 }
    let (next, name) = try Self.scan(#"{"name":"next"}"#)
    #expect(next != ObjectIdentifier(kept))
    #expect(name == "next")
    // The escaped document still reads its own text (a copy of the borrowed bytes).
    #expect(kept.ownsBytes)
    #expect(try JSON(document: kept, index: 0)["name"] == .string("spare"))
  }

  @Test func aNestedScanGetsItsOwnDocument() throws {
    _ = try Self.scan(Self.text)
    let data = Data(Self.text.utf8)
    let (outer, inner) = try JSONDocument.scanning(data, maxDepth: 8) { outer in
      try JSONDocument.scanning(Data(#"{"name":"inner"}"#.utf8), maxDepth: 8) { inner in
        #expect(outer.string(2) == "spare" && inner.string(2) == "inner")
        return (ObjectIdentifier(outer), ObjectIdentifier(inner))
      }
    }
    #expect(outer != inner)
  }

  @Test func aFailedScanKeepsTheSpareForTheNext() throws {
    let (first, _) = try Self.scan(Self.text)
    #expect(throws: JSONReaderError.self) { try Self.scan(#"{"name":"#) }
    let (kept, isEmpty) = try Self.spare()
    #expect(kept == first && isEmpty)
    let (next, name) = try Self.scan(Self.text)
    #expect(first == next && name == "spare")
  }

  /// A model that keeps its `Decoder` and reads it after the decode: the next decode on the
  /// same thread must not take the document it still reads.
  struct KeepsItsDecoder: Decodable {
    let decoder: any Decoder
    init(from decoder: any Decoder) throws { self.decoder = decoder }
    func name() throws -> String {
      try decoder.container(keyedBy: AnyCodingKey.self).decode(
        String.self, forKey: AnyCodingKey(stringValue: "name"))
    }
  }

  @Test func aModelThatKeepsItsDecoderStillReadsItsOwnDocument() throws {
    let decoder = LenientDecoder()
    let first = try decoder.decode(KeepsItsDecoder.self, from: Data(#"{"name":"first"}"#.utf8))
    let second = try decoder.decode(KeepsItsDecoder.self, from: Data(#"{"name":"second"}"#.utf8))
    _ = try decoder.decode([String: String].self, from: Data(#"{"name":"third"}"#.utf8))
    #expect(try first.name() == "first")
    #expect(try second.name() == "second")
  }

  struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var tags: [String]
  }

  struct Envelope<T: Decodable & Sendable>: Decodable, Sendable {
    var code: Int
    var msg: String
    var data: T?
  }

  /// One `LenientDecoder` value shared by many tasks, every entry point at once: each decode
  /// gives the value and report a lone decode of its own body gives (each body is different,
  /// so a document or decoder shared between two decodes would show).
  @Test func oneDecoderSharedByManyTasksGivesEachDecodeItsOwnValue() async throws {
    let decoder = LenientDecoder()
    func body(_ index: Int) -> Data {
      Data(
        #"{"code":0,"msg":"ok \#(index)","data":{"id":"\#(index)","name":"user \#(index)","tags":["t\#(index)",\#(index)]}}"#
          .utf8)
    }
    func expected(_ index: Int) -> User {
      User(id: index, name: "user \(index)", tags: ["t\(index)", "\(index)"])
    }
    let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
      for task in 0..<16 {
        group.addTask {
          var mismatches = 0
          for round in 0..<150 {
            let index = task * 1_000 + round
            let data = body(index)
            let envelope = try decoder.decode(Envelope<User>.self, from: data)
            if envelope.data != expected(index) || envelope.msg != "ok \(index)" { mismatches += 1 }
            if try decoder.decodeEnvelope(User.self, from: data) != expected(index) {
              mismatches += 1
            }
            if try decoder.decode(User.self, from: data, at: "data") != expected(index) {
              mismatches += 1
            }
            let reported = try decoder.decodeWithReport(User.self, from: data, at: "data")
            // "id" and the number in tags are coerced: two entries, at this decode's paths.
            let paths = reported.report.entries.map(\.path)
            if reported.value != expected(index) || paths != ["data.id", "data.tags[1]"] {
              mismatches += 1
            }
            if try decoder.envelopeStatus(from: data).message != "ok \(index)" { mismatches += 1 }
          }
          return mismatches
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(mismatches == 0)
  }
}
