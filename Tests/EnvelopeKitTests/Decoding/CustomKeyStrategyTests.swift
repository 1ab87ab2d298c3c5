import Foundation
import Testing

@testable import EnvelopeKit

/// `.custom` key strategies: the closure is asked once per JSON key and coding path shape (its
/// results kept for the decoder's life), and a closure that reads the path still gets the
/// answer it gives for each object, as Foundation asks it.
@Suite struct CustomKeyStrategyTests {
  /// Counts calls from any thread.
  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
  }

  struct Item: Codable, Equatable {
    var itemId: Int
    var itemName: String
    var owner: Owner
  }

  struct Owner: Codable, Equatable {
    var ownerId: Int
  }

  /// `ITEM_ID` → `itemId`: the last key, upper snake case to camel case; the path is not read.
  static func camel(_ path: [any CodingKey]) -> any CodingKey {
    let raw = path.last?.stringValue ?? ""
    let parts = raw.lowercased().split(separator: "_")
    let name = (parts.first.map(String.init) ?? "") + parts.dropFirst().map(\.capitalized).joined()
    return AnyCodingKey(stringValue: name)
  }

  static func items(_ count: Int) -> Data {
    let items = (0..<count).map {
      #"{"ITEM_ID":\#($0),"ITEM_NAME":"n\#($0)","OWNER":{"OWNER_ID":\#($0 * 2)}}"#
    }
    return Data("[\(items.joined(separator: ","))]".utf8)
  }

  @Test(arguments: [1, 50, 300])
  func theClosureIsCalledOncePerKeyAndPathShape(count: Int) throws {
    let calls = Counter()
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .custom { path in
      calls.increment()
      return Self.camel(path)
    }
    let items = try decoder.decode([Item].self, from: Self.items(count))
    #expect(items.count == count)
    #expect(
      items.last
        == Item(
          itemId: count - 1, itemName: "n\(count - 1)", owner: Owner(ownerId: 2 * (count - 1))))
    // Three keys at `[i]`, one at `[i].owner`: four shapes of key and path, whatever the count.
    #expect(calls.count == 4)
    // Kept for the decoder's life: a second decode asks nothing.
    _ = try decoder.decode([Item].self, from: Self.items(count))
    #expect(calls.count == 4)
  }

  struct Pair: Codable, Equatable {
    var first: Slot
    var second: Slot
  }

  struct Slot: Codable, Equatable {
    var left: Int? = nil
    var right: Int? = nil
  }

  /// Strategies whose answer depends on the path: the parent key, an array index, an index
  /// read through a description or a mirror. `byIndex`: element 1 reads `right`, the others
  /// `left`; else `first` reads `left` and `second` `right`.
  static let pathDependent:
    [(name: String, byIndex: Bool, custom: @Sendable ([any CodingKey]) -> any CodingKey)] = [
      ("parent key", false, { path in slot(path) { $0.dropLast().last?.stringValue == "first" } }),
      ("index value", true, { path in slot(path) { $0.compactMap(\.intValue).first != 1 } }),
      ("index in a description", true, { path in slot(path) { !"\($0)".contains("Index 1") } }),
      (
        "index in string values", true,
        { path in slot(path) { !$0.map(\.stringValue).joined(separator: ".").contains("Index 1") } }
      ),
      ("index compared", true, { path in slot(path) { $0.first?.stringValue != "Index 1" } }),
      (
        "index in String(describing:)", true,
        { path in slot(path) { !String(describing: $0).contains("Index 1") } }
      ),
      (
        "index in a key's debug description", true,
        { path in slot(path) { !String(reflecting: $0[0]).contains("1") } }
      ),
      (
        "index through a mirror", true,
        { path in
          slot(path) { path in
            var text = ""
            dump(path.first, to: &text)
            return !text.contains("index: 1")
          }
        }
      ),
    ]

  /// `k` read as `left` when `isLeft` says so for its path, else as `right`; other keys as
  /// they are.
  static func slot(_ path: [any CodingKey], _ isLeft: ([any CodingKey]) -> Bool)
    -> any CodingKey
  {
    guard let last = path.last, last.stringValue == "k" else {
      return AnyCodingKey(stringValue: path.last?.stringValue ?? "")
    }
    return AnyCodingKey(stringValue: isLeft(path) ? "left" : "right")
  }

  @Test(arguments: 0..<pathDependent.count)
  func aClosureThatReadsThePathGetsEachAnswer(case index: Int) throws {
    let (name, byIndex, custom) = Self.pathDependent[index]
    let json = Data(
      #"[{"first":{"k":1},"second":{"k":2}},{"first":{"k":3},"second":{"k":4}},{"first":{"k":5},"second":{"k":6}}]"#
        .utf8)
    let expected = (0..<3).map { element -> Pair in
      let (a, b) = (2 * element + 1, 2 * element + 2)
      if byIndex {
        return element == 1
          ? Pair(first: Slot(right: a), second: Slot(right: b))
          : Pair(first: Slot(left: a), second: Slot(left: b))
      }
      return Pair(first: Slot(left: a), second: Slot(right: b))
    }
    if !name.contains("mirror") {
      // Foundation asks the closure for every key of every object (its keys mirror otherwise).
      let foundation = JSONDecoder()
      foundation.keyDecodingStrategy = .custom(custom)
      #expect(try foundation.decode([Pair].self, from: json) == expected, "\(name)")
    }
    for policy in [DecodingPolicy.lenient, .strict] {
      var decoder = LenientDecoder(policy: policy)
      decoder.keyDecodingStrategy = .custom(custom)
      // Twice: the second decode reads whatever the first kept.
      #expect(try decoder.decode([Pair].self, from: json) == expected, "\(name)")
      #expect(try decoder.decode([Pair].self, from: json) == expected, "\(name)")
    }
  }

  @Test func keptResultsAreBounded() {
    let cache = CustomKeyCache(limit: 3)
    let calls = Counter()
    let convert = cache.conversion(
      { path in
        calls.increment()
        return path.last ?? AnyCodingKey(stringValue: "")
      }, at: [])
    for key in ["a", "b", "c", "d", "e"] { #expect(convert(key) == key) }
    // A new container of the same shape sees the three kept, and asks about the other two.
    let again = cache.conversion(
      { path in
        calls.increment()
        return path.last ?? AnyCodingKey(stringValue: "")
      }, at: [])
    for key in ["a", "b", "c", "d", "e"] { #expect(again(key) == key) }
    #expect(calls.count == 7)
  }

  /// Keys are input and a decoder may live as long as the process: the answers kept hold at
  /// most `byteLimit` bytes of key text (1 MB), not 4,096 keys of any length. Eight keys of
  /// 256 KB (512 KB each with the answer): at most one is kept, the rest are asked again.
  @Test func keptKeyTextIsBoundedInBytes() {
    let cache = CustomKeyCache()
    let calls = Counter()
    let identity: @Sendable ([any CodingKey]) -> any CodingKey = { path in
      calls.increment()
      return path.last ?? AnyCodingKey(stringValue: "")
    }
    let keys = (0..<8).map { String(repeating: "k", count: 256 << 10) + "\($0)" }
    let convert = cache.conversion(identity, at: [AnyCodingKey(stringValue: "data")])
    for key in keys { #expect(convert(key) == key) }
    let again = cache.conversion(identity, at: [AnyCodingKey(stringValue: "data")])
    for key in keys { #expect(again(key) == key) }
    #expect(calls.count >= 2 * keys.count - 1)
    // Short keys still fit beside them.
    let short = cache.conversion(identity, at: [])
    _ = short("id")
    let counted = calls.count
    _ = cache.conversion(identity, at: [])("id")
    #expect(calls.count == counted)
  }
}
