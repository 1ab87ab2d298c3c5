import Foundation
import Testing

@testable import EnvelopeKit

/// `decodeEnvelope(_:from:format:)` reads the format each call names: a format changed after a
/// call is read as changed, through every property, in the options and in `userInfo`, and many
/// formats used at once from many tasks are each read as themselves. (What a cache of the
/// options of named formats, by value or identity, must keep true.)
@Suite struct EnvelopeFormatOptionsTests {
  struct Item: Decodable, Equatable, Sendable { var id: Int }

  /// The envelope format the payload's decoder hands models in `userInfo`, and the payload's id.
  struct Seen: Decodable, Sendable {
    var data: String
    var id: Int
    enum Keys: String, CodingKey { case id }
    init(from decoder: any Decoder) throws {
      let format = decoder.userInfo[.envelopeFormat] as? EnvelopeFormat
      data = format.map { "\($0.data)" } ?? "none"
      id = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .id)
    }
  }

  enum Mapped: Error { case mapped }

  static let named = EnvelopeFormat(
    code: "code", messages: ["msg"], data: "data", success: [0])

  /// A call's outcome as text: the payload and the format models saw, or the error (a business
  /// failure's, mapped or not, names its code and message).
  static func outcome(
    _ decoder: LenientDecoder, _ body: String, _ format: EnvelopeFormat
  ) -> String {
    do {
      let value = try decoder.decodeEnvelope(Seen.self, from: Data(body.utf8), format: format)
      return "id \(value.id), userInfo data \(value.data)"
    } catch {
      return "error \(error)"
    }
  }

  static let body =
    #"{"code": 0, "status": 7, "msg": "m", "text": "t", "data": {"id": 1}, "result": {"id": 2}}"#

  /// Each change of one property after a first call, with a body where it shows.
  static let changes: [(String, String, @Sendable (inout EnvelopeFormat) -> Void)] = [
    ("data", body, { $0.data = "result" }),
    ("code", body, { $0.code = "status" }),
    ("messages", #"{"code": 3, "msg": "m", "text": "t"}"#, { $0.messages = ["text"] }),
    ("codeIsOptional", #"{"data": {"id": 1}}"#, { $0.codeIsOptional = true }),
    ("isSuccess", body, { $0.isSuccess = { _ in false } }),
    ("errorMapper", #"{"code": 3}"#, { $0.errorMapper = { _ in Mapped.mapped } }),
    ("codeOptional()", #"{"data": {"id": 1}}"#, { $0 = $0.codeOptional() }),
  ]

  @Test(arguments: 0..<changes.count)
  func aFormatChangedAfterACallIsReadAsChanged(_ row: Int) {
    let (name, body, change) = Self.changes[row]
    let decoder = LenientDecoder()
    let before = Self.outcome(decoder, body, Self.named)
    var changed = Self.named
    change(&changed)
    let after = Self.outcome(decoder, body, changed)
    // A decoder that never saw the first format is the oracle.
    #expect(after == Self.outcome(LenientDecoder(), body, changed), "\(name)")
    #expect(after != before, "\(name): the change shows in this body")
    // The first format is still read as itself.
    #expect(Self.outcome(decoder, body, Self.named) == before, "\(name)")
  }

  /// More formats than are kept, from many tasks at once: each call reads its own.
  @Test func concurrentCallsWithManyFormatsEachReadTheirOwn() async {
    let body = Data(
      #"{"code": 0, "a": {"id": 0}, "b": {"id": 1}, "c": {"id": 2}, "d": {"id": 3}, "e": {"id": 4}, "f": {"id": 5}}"#
        .utf8)
    let paths = ["a", "b", "c", "d", "e", "f"]
    let formats = paths.map {
      EnvelopeFormat(code: "code", messages: [], data: JSONPath($0), success: [0])
    }
    let decoder = LenientDecoder()
    let wrong = await withTaskGroup(of: Int.self) { group in
      for task in 0..<8 {
        group.addTask {
          var wrong = 0
          for call in 0..<300 {
            let which = (task * 7 + call * 5) % formats.count
            let item = try? decoder.decodeEnvelope(Item.self, from: body, format: formats[which])
            if item?.id != which { wrong += 1 }
          }
          return wrong
        }
      }
      return await group.reduce(0, +)
    }
    #expect(wrong == 0)
  }
}
