import Foundation
import Testing

@testable import EnvelopeKit

/// A thread keeps the root decoder of its last decode and the next decode with the same
/// options reuses it (`DecoderImpl+Spare.swift`). Whatever a model kept of an earlier decode,
/// a decode nested in another, other options or other threads: every value read is the one its
/// own input and options give.
@Suite struct SpareDecoderTests {
  struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
  }

  /// Records the identity of the decoder it was decoded with.
  struct Probe: Decodable {
    let decoder: ObjectIdentifier
    let name: String
    init(from decoder: any Decoder) throws {
      self.decoder = ObjectIdentifier(decoder as AnyObject)
      name = try decoder.container(keyedBy: AnyCodingKey.self).decode(
        String.self, forKey: AnyCodingKey(stringValue: "name"))
    }
  }

  static func data(_ text: String) -> Data { Data(text.utf8) }

  @Test func theNextDecodeOnTheThreadReusesTheDecoder() throws {
    guard SpareTape.isEnabled else { return }
    let decoder = LenientDecoder()
    let first = try decoder.decode(Probe.self, from: Self.data(#"{"name":"a"}"#))
    let second = try decoder.decode(Probe.self, from: Self.data(#"{"name":"b"}"#))
    #expect(first.decoder == second.decoder)
    #expect(first.name == "a" && second.name == "b")
  }

  /// Keeps its decoder and a container, and reads them later.
  struct Keeper: Decodable {
    enum Keys: String, CodingKey { case name, id }
    let decoder: any Decoder
    let keyed: KeyedDecodingContainer<Keys>
    init(from decoder: any Decoder) throws {
      self.decoder = decoder
      keyed = try decoder.container(keyedBy: Keys.self)
    }
    func read() throws -> (String, Int, String) {
      let again = try decoder.container(keyedBy: Keys.self)
      return (
        try keyed.decode(String.self, forKey: .name), try keyed.decode(Int.self, forKey: .id),
        try again.decode(String.self, forKey: .name)
      )
    }
  }

  /// Keeps only a container (which holds the decoder).
  struct ContainerKeeper: Decodable {
    let keyed: KeyedDecodingContainer<Keeper.Keys>
    init(from decoder: any Decoder) throws {
      keyed = try decoder.container(keyedBy: Keeper.Keys.self)
    }
  }

  @Test func aDecoderOrContainerKeptByAModelReadsItsOwnDecodeAfterLaterOnes() throws {
    let decoder = LenientDecoder()
    let kept = try decoder.decode(Keeper.self, from: Self.data(#"{"name":"first","id":1}"#))
    let container = try decoder.decode(
      ContainerKeeper.self, from: Self.data(#"{"name":"second","id":"2"}"#))
    // Later decodes on the same thread, of every root entry point, with other values.
    for round in 0..<3 {
      let user = try decoder.decode(
        User.self, from: Self.data(#"{"id":\#(10 + round),"name":"later \#(round)"}"#))
      #expect(user == User(id: 10 + round, name: "later \(round)"))
      let envelope = try decoder.decodeEnvelope(
        User.self, from: Self.data(#"{"code":0,"data":{"id":7,"name":"env \#(round)"}}"#))
      #expect(envelope == User(id: 7, name: "env \(round)"))
      let probe = try decoder.decode(Probe.self, from: Self.data(#"{"name":"probe"}"#))
      #expect(probe.name == "probe")
    }
    let (name, id, again) = try kept.read()
    #expect(name == "first" && id == 1 && again == "first")
    #expect(try container.keyed.decode(String.self, forKey: .name) == "second")
    #expect(try container.keyed.decode(Int.self, forKey: .id) == 2)
    // A decode that reused nothing of theirs leaves them as they were.
    _ = try decoder.decode(User.self, from: Self.data(#"{"id":3,"name":"x"}"#))
    #expect(try kept.read().0 == "first")
  }

  /// Decodes a user from the JSON text in its `inner` string, with the same decoder settings,
  /// in the middle of its own decode.
  struct Nested: Decodable {
    enum Keys: String, CodingKey { case before, inner, after, depth }
    let before: String
    let inner: User
    /// The next level (none at depth 0): an array, as a struct cannot hold itself.
    let deeper: [Nested]
    let after: String
    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Keys.self)
      before = try container.decode(String.self, forKey: .before)
      let text = try container.decode(String.self, forKey: .inner)
      let depth = try container.decode(Int.self, forKey: .depth)
      inner = try LenientDecoder().decode(User.self, from: Data(text.utf8))
      deeper =
        depth > 0
        ? [
          try LenientDecoder().decode(
            Nested.self, from: Data(SpareDecoderTests.nested(depth - 1).utf8))
        ]
        : []
      // Read after the nested decodes: this decode's decoder is where it was.
      after = try container.decode(String.self, forKey: .after)
      #expect(decoder.codingPath.isEmpty)
    }
  }

  static func nested(_ depth: Int) -> String {
    let inner = #"{\"id\":\#(depth),\"name\":\"inner \#(depth)\"}"#
    return #"{"before":"b\#(depth)","inner":"\#(inner)","depth":\#(depth),"after":"a\#(depth)"}"#
  }

  @Test func aDecodeNestedInAModelsInitGetsItsOwnDecoder() throws {
    let decoder = LenientDecoder()
    for _ in 0..<3 {
      var value: Nested? = try decoder.decode(Nested.self, from: Self.data(Self.nested(3)))
      var depth = 3
      while let current = value {
        #expect(current.before == "b\(depth)" && current.after == "a\(depth)")
        #expect(current.inner == User(id: depth, name: "inner \(depth)"))
        value = current.deeper.first
        depth -= 1
      }
      #expect(depth == -1)
      let user = try decoder.decode(User.self, from: Self.data(#"{"id":5,"name":"next"}"#))
      #expect(user == User(id: 5, name: "next"))
    }
  }

  struct SnakeUser: Decodable, Equatable {
    var userName: String
    var id: Int
  }

  @Test func decodersWithOtherOptionsAlternatingOnOneThreadKeepTheirOwn() throws {
    var snake = LenientDecoder()
    snake.keyDecodingStrategy = .convertFromSnakeCase
    let strict = LenientDecoder(policy: .strict)
    let lenient = LenientDecoder()
    let body = Self.data(#"{"user_name":"ann","id":"4"}"#)
    for _ in 0..<4 {
      #expect(try snake.decode(SnakeUser.self, from: body) == SnakeUser(userName: "ann", id: 4))
      #expect(throws: DecodingError.self) { try strict.decode(SnakeUser.self, from: body) }
      // Without snake case the name is missing: defaulted, and "4" coerced. Two entries, this
      // decode's own: none left over from the decodes before it.
      let reported = try lenient.decodeWithReport(SnakeUser.self, from: body)
      #expect(reported.value == SnakeUser(userName: "", id: 4))
      #expect(reported.report.entries.map(\.path).sorted() == ["id", "userName"])
      let clean = try lenient.decodeWithReport(
        SnakeUser.self, from: Self.data(#"{"userName":"c","id":1}"#))
      #expect(clean.report.entries.isEmpty && clean.value == SnakeUser(userName: "c", id: 1))
      #expect(
        try strict.decode(SnakeUser.self, from: Self.data(#"{"userName":"s","id":2}"#))
          == SnakeUser(userName: "s", id: 2))
    }
  }

  @Test func eightThreadsDecodingAtOnceGetTheirOwnValues() {
    let decoder = LenientDecoder()
    let mismatches = Mismatches()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      var wrong = 0
      for round in 0..<300 {
        let id = thread * 10_000 + round
        let body = Data(#"{"code":0,"data":{"id":"\#(id)","name":"u\#(id)"}}"#.utf8)
        let expected = User(id: id, name: "u\(id)")
        do {
          if try decoder.decodeEnvelope(User.self, from: body) != expected { wrong += 1 }
          let reported = try decoder.decodeWithReport(User.self, from: body, at: "data")
          if reported.value != expected || reported.report.entries.map(\.path) != ["data.id"] {
            wrong += 1
          }
          let probe = try decoder.decode(Probe.self, from: Data(#"{"name":"p\#(id)"}"#.utf8))
          if probe.name != "p\(id)" { wrong += 1 }
        } catch {
          wrong += 1
        }
      }
      mismatches.add(wrong)
    }
    #expect(mismatches.total == 0)
  }

  /// A box each `init()` makes anew, with a number of its own.
  final class Tag: @unchecked Sendable {
    nonisolated(unsafe) static var made = 0
    let number: Int
    init() {
      Self.made += 1
      number = Self.made
    }
  }

  /// A model whose declared initial value is an object made by each `init()`.
  struct Tagged: LenientDecodable {
    var name = ""
    var tag = Tag()
    enum CodingKeys: String, CodingKey { case name }
    init() {}
    init(from decoder: any Decoder) throws {
      self.init()
      name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
    }
  }

  /// Traits made for one decode (declared initial values, which may be objects each decode must
  /// get afresh) are not kept by the spare decoder for the next decode: the lenient fallback of a
  /// missing value comes from this decode's `init()`.
  @Test func aDeclaredValueIsMadeAfreshInEveryDecodeOnTheThread() throws {
    struct Holder: LenientDecodable {
      var first = Tagged()
      var count = 0
    }
    let decoder = LenientDecoder()
    let body = Self.data(#"{"count":"x"}"#)
    let one = try decoder.decode(Holder.self, from: body)
    let two = try decoder.decode(Holder.self, from: body)
    #expect(one.first.tag !== two.first.tag)
  }

  enum Plan: String, CaseDefaultable, Equatable {
    case free, pro
    static let defaultCase = Plan.free
  }
  struct Account: Decodable, Equatable {
    var plan: Plan
    var user: User
  }
  struct Counted: LenientDecodable, Equatable {
    var count = 7
    var plan = Plan.pro
  }

  /// Six model types of different kinds (a plain struct, a defaulting enum, a model with
  /// declared values, a nested model, arrays), decoded in turn on one thread, more types than
  /// the spare decoder keeps traits for (`RecentTraits`): each decode gets its own type's
  /// traits, as the values and reports show.
  @Test func modelTypesDecodedInTurnOnOneThreadEachReadAsTheirOwn() throws {
    let decoder = LenientDecoder()
    for round in 0..<3 {
      let user = try decoder.decode(User.self, from: Self.data(#"{"id":1,"name":"a"}"#))
      #expect(user == User(id: 1, name: "a"))
      let plan = try decoder.decodeWithReport(Plan.self, from: Self.data(#""team""#))
      #expect(plan.value == .free && plan.report.entries.count == 1)
      let counted = try decoder.decodeWithReport(Counted.self, from: Self.data(#"{"count":null}"#))
      #expect(counted.value == Counted(count: 7, plan: .pro), "round \(round)")
      #expect(counted.report.entries.count == 2)  // count nulled, plan missing
      let account = try decoder.decode(
        Account.self, from: Self.data(#"{"plan":"pro","user":{"id":2,"name":"b"}}"#))
      #expect(account == Account(plan: .pro, user: User(id: 2, name: "b")))
      let plans = try decoder.decode([Plan].self, from: Self.data(#"["pro","free"]"#))
      #expect(plans == [.pro, .free])
      let users = try decoder.decode([User].self, from: Self.data(#"[{"id":3,"name":"c"}]"#))
      #expect(users == [User(id: 3, name: "c")])
    }
  }

  /// A count added to from several threads.
  final class Mismatches: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ value: Int) { lock.withLock { count += value } }
    var total: Int { lock.withLock { count } }
  }
}
