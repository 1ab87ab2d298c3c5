import Foundation

/// What an encode has produced so far, before it is laid out as text.
///
/// `Encoder` lets a model fill its containers in any order (a nested container may be written to
/// after its parent's next key), so nothing is laid out until the value has been encoded. Keys
/// and scalars are rendered once, as JSON text, into one byte arena; each container links its
/// members in the order they were encoded. `JSONWriter` then lays the tree out, compact or
/// pretty, sorted or not, copying the rendered bytes.
///
/// Storage is manual (pointers, not arrays) so the hot appends pay no copy-on-write, and its
/// counters are `@exclusivity(unchecked)` so they pay no exclusivity checks (a thread-local
/// access set per read and write); the tree lives for one encode call, on one thread.
final class EncodedTree {
  /// One member of a container (or the root value).
  struct Member {
    /// Start of the rendered key's contents (escaped, without quotes) in the arena; -1 for an
    /// array element and for the root.
    var keyStart: Int
    /// The rendered value's bytes in the arena, or `container(_:)`'s encoding, or `pending`.
    var valueStart: Int
    var valueEnd: Int
    var keyLength: Int32
    /// The next member of the same container; -1 at the end.
    var next: Int32

    /// A value not produced yet (an encoder that encodes nothing gives `{}`, as JSONEncoder).
    static let pending = Int.min

    var isPending: Bool { valueStart == Self.pending }
    /// The container this member holds, if it holds one.
    var container: Int? { valueStart < 0 && valueStart != Self.pending ? -valueStart - 1 : nil }
  }

  /// An object or array: its members, linked.
  struct Container {
    var first: Int32 = -1
    var last: Int32 = -1
    var count: Int32 = 0
    let isObject: Bool
    /// Nesting level, 1 for a top-level container.
    let depth: Int32
  }

  /// Whether the arena's escaping leaves `/` alone.
  let escapesSlashes: Bool

  @exclusivity(unchecked) private(set) var bytes: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private(set) var byteCount = 0
  @exclusivity(unchecked) private var byteCapacity: Int

  @exclusivity(unchecked) private(set) var members: UnsafeMutablePointer<Member>
  @exclusivity(unchecked) private(set) var memberCount = 0
  @exclusivity(unchecked) private var memberCapacity: Int

  @exclusivity(unchecked) private(set) var containers: UnsafeMutablePointer<Container>
  @exclusivity(unchecked) private(set) var containerCount = 0
  @exclusivity(unchecked) private var containerCapacity = 16

  /// The raw text of keys that needed escaping, by member: sorting compares raw keys.
  private(set) var escapedKeys: [Int32: String] = [:]
  /// Whether any key needed escaping (most encodes: none, and sorting never looks them up).
  private(set) var hasEscapedKeys = false

  /// The largest buffers a thread keeps for its next encode (`SpareBuffer`): 4 MB each.
  static let largestKeptBytes = 4 << 20
  static let largestKeptMembers = (4 << 20) / MemoryLayout<Member>.stride

  init(escapesSlashes: Bool, expectedBytes: Int = 256) {
    self.escapesSlashes = escapesSlashes
    (bytes, byteCapacity) = SpareBuffer.take(
      .encoderBytes, minimumCapacity: max(64, expectedBytes), of: UInt8.self)
    (members, memberCapacity) = SpareBuffer.take(
      .encoderMembers, minimumCapacity: 16, of: Member.self)
    containers = .allocate(capacity: containerCapacity)
    // The root: member 0, no key, value pending.
    _ = appendMember(to: nil, keyStart: -1, keyLength: 0)
  }

  deinit {
    SpareBuffer.giveBack(
      .encoderBytes, bytes, capacity: byteCapacity, largestKept: Self.largestKeptBytes)
    SpareBuffer.giveBack(
      .encoderMembers, members, capacity: memberCapacity, largestKept: Self.largestKeptMembers)
    containers.deallocate()
  }

  // MARK: - Members and containers

  /// Appends a member with a pending value, linked into `container` (nil for the root).
  @inline(__always)
  func appendMember(to container: Int?, keyStart: Int, keyLength: Int) -> Int {
    if memberCount == memberCapacity { growMembers() }
    let index = memberCount
    (members + index).initialize(
      to: Member(
        keyStart: keyStart, valueStart: Member.pending, valueEnd: 0,
        keyLength: Int32(truncatingIfNeeded: keyLength), next: -1))
    memberCount += 1
    if let container {
      let record = containers + container
      let last = record.pointee.last
      if last >= 0 {
        members[Int(last)].next = Int32(truncatingIfNeeded: index)
      } else {
        record.pointee.first = Int32(truncatingIfNeeded: index)
      }
      record.pointee.last = Int32(truncatingIfNeeded: index)
      record.pointee.count += 1
    }
    return index
  }

  private func growMembers() {
    let capacity = memberCapacity * 2
    let grown = UnsafeMutablePointer<Member>.allocate(capacity: capacity)
    grown.moveInitialize(from: members, count: memberCount)
    members.deallocate()
    members = grown
    memberCapacity = capacity
  }

  /// Makes `member` hold a new, empty container and returns the container.
  func attachContainer(to member: Int, isObject: Bool, depth: Int) -> Int {
    if containerCount == containerCapacity {
      let grown = UnsafeMutablePointer<Container>.allocate(capacity: containerCapacity * 2)
      grown.moveInitialize(from: containers, count: containerCount)
      containers.deallocate()
      containers = grown
      containerCapacity *= 2
    }
    let index = containerCount
    (containers + index).initialize(
      to: Container(isObject: isObject, depth: Int32(truncatingIfNeeded: depth)))
    containerCount += 1
    members[member].valueStart = -index - 1
    return index
  }

  /// Marks `member`'s value as the arena bytes from `start` to the end.
  @inline(__always)
  func finishValue(of member: Int, from start: Int) {
    members[member].valueStart = start
    members[member].valueEnd = byteCount
  }

  /// Appends a member for the key `name` (rendered once, escaped as the writer escapes) to
  /// `container`, its value pending.
  func appendMember(named name: String, to container: Int) -> Int {
    let (start, length, escaped) = appendKey(name)
    let member = appendMember(to: container, keyStart: start, keyLength: length)
    if escaped { noteEscapedKey(name, member: member) }
    return member
  }

  /// The member of an object container whose key is `name` (the last one, as a later value
  /// replaces an earlier one), if any. Linear: used for nested containers and mapped paths,
  /// never for plain values.
  func member(of container: Int, named name: String) -> Int? {
    let mark = byteCount
    let (start, length, _) = appendKey(name)
    defer { truncate(to: mark) }
    var found: Int?
    var cursor = Int(containers[container].first)
    while cursor >= 0 {
      let candidate = members[cursor]
      if Int(candidate.keyLength) == length,
        memcmp(bytes + candidate.keyStart, bytes + start, length) == 0
      {
        found = cursor
      }
      cursor = Int(candidate.next)
    }
    return found
  }

  /// How much the tree holds: what `undo(to:emptying:)` goes back to.
  struct Marks {
    let bytes: Int
    let members: Int
    let containers: Int
  }

  /// The tree's size now.
  @inline(__always)
  var marks: Marks { Marks(bytes: byteCount, members: memberCount, containers: containerCount) }

  /// Runs `body`; if it throws, removes what it added (members, containers, bytes) and empties
  /// `slot`, so the tree is as it was. (The hot callers take `marks` and call `undo` themselves:
  /// a closure would copy, so retain, what it captures.)
  @inline(__always)
  func undoingOnError<Result>(emptying slot: Int? = nil, _ body: () throws -> Result) throws
    -> Result
  {
    let marks = self.marks
    do {
      return try body()
    } catch {
      undo(to: marks, emptying: slot)
      throw error
    }
  }

  /// Unlinks every member added since `marks` from the containers that were there before, and
  /// empties `slot`.
  func undo(to marks: Marks, emptying slot: Int? = nil) {
    for index in 0..<marks.containers where containers[index].last >= marks.members {
      var kept: Int32 = -1
      var count: Int32 = 0
      var cursor = containers[index].first
      while cursor >= 0, cursor < marks.members {
        kept = cursor
        count += 1
        cursor = members[Int(cursor)].next
      }
      if kept >= 0 { members[Int(kept)].next = -1 }
      containers[index].first = kept >= 0 ? containers[index].first : -1
      containers[index].last = kept
      containers[index].count = count
    }
    memberCount = marks.members
    containerCount = marks.containers
    byteCount = marks.bytes
    if let slot { members[slot].valueStart = Member.pending }
    if hasEscapedKeys { escapedKeys = escapedKeys.filter { $0.key < marks.members } }
  }

  // MARK: - The arena

  @inline(__always)
  func reserve(_ count: Int) {
    if byteCount + count > byteCapacity { growBytes(to: byteCount + count) }
  }

  private func growBytes(to needed: Int) {
    (bytes, byteCapacity) = grownBytes(bytes, count: byteCount, capacity: byteCapacity, to: needed)
  }

  @inline(__always)
  func append(_ byte: UInt8) {
    reserve(1)
    bytes[byteCount] = byte
    byteCount += 1
  }

  @inline(__always)
  func append(_ source: UnsafeRawBufferPointer) {
    guard let base = source.baseAddress, source.count > 0 else { return }
    reserve(source.count)
    (bytes + byteCount).update(from: base.assumingMemoryBound(to: UInt8.self), count: source.count)
    byteCount += source.count
  }

  @inline(__always)
  func append(_ literal: StaticString) {
    append(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// Lets `write` put at most `count` bytes at the arena's end, straight into the buffer.
  ///
  /// - Parameters:
  ///   - count: the most bytes `write` may touch.
  ///   - write: writes at the pointer it is given; returns how many bytes it wrote.
  @inline(__always)
  func appendWritten(atMost count: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
    reserve(count)
    byteCount += write(bytes + byteCount)
  }

  /// Drops the arena's bytes after `count` (a rendering that turned out to be wrong).
  func truncate(to count: Int) {
    byteCount = min(byteCount, count)
  }

  /// Records the raw text of a key whose rendering needed escapes.
  func noteEscapedKey(_ key: String, member: Int) {
    escapedKeys[Int32(truncatingIfNeeded: member)] = key
    hasEscapedKeys = true
  }
}

/// `bytes` moved into a buffer of at least `needed` bytes (the capacity doubled until it fits),
/// the old one freed: how the arena and the writer's output grow.
func grownBytes(
  _ bytes: UnsafeMutablePointer<UInt8>, count: Int, capacity: Int, to needed: Int
) -> (UnsafeMutablePointer<UInt8>, Int) {
  var grown = capacity * 2
  while grown < needed { grown *= 2 }
  let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
  moved.moveInitialize(from: bytes, count: count)
  bytes.deallocate()
  return (moved, grown)
}
