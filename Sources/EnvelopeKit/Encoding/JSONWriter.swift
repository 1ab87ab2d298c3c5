import Foundation

/// EnvelopeKit's one JSON writer: lays out an `EncodedTree` as text, as `JSONEncoder` does.
///
/// `ModelEncoder`, `JSON.rawText` / `prettyText`, the caches' metadata, recordings, cassettes
/// and the `envelope` command all write through it; scalars are rendered by
/// `EncodedTree+Rendering`. The layout equals `JSONEncoder`'s: compact without spaces; pretty
/// with two spaces per level, `" : "` between key and value and an empty container written
/// `[\n\n]` / `{\n\n}` at its indentation; sorted keys in the byte order of their UTF-8.
///
/// The layout is iterative: a value as deep as the tree holds is written within a small stack.
struct JSONWriter {
  /// Indent with two spaces per level, `" : "` after keys.
  var pretty = false
  /// Object keys in UTF-8 byte order (as `JSONEncoder`'s `.sortedKeys`).
  var sortedKeys = false
  /// A key encoded twice in one object is written once, with its last value (at its first
  /// place when not sorting), as `JSONEncoder`'s dictionary keeps it. `JSON` values keep
  /// every member as they hold them.
  var deduplicatesKeys = true
  /// A container at this nesting level or deeper is refused, as `JSONEncoder` refuses 512.
  var depthLimit = Int.max

  /// A container nested `depthLimit` levels deep.
  struct TooDeep: Error {}

  /// Writes `tree`'s root value.
  ///
  /// - Returns: the text's bytes, owned by the caller (`deallocate` them, or hand them to
  ///   `Data`).
  func write(_ tree: EncodedTree) throws(TooDeep) -> (UnsafeMutablePointer<UInt8>, Int) {
    var output = Output(capacity: tree.byteCount + tree.memberCount * (pretty ? 8 : 2) + 16)
    do {
      try layOut(tree, into: &output)
    } catch {
      output.free()
      throw error
    }
    return (output.base, output.count)
  }

  /// Writes `tree`'s root value as `Data`, without copying the text.
  func data(_ tree: EncodedTree) throws(TooDeep) -> Data {
    let (base, count) = try write(tree)
    return Data(
      bytesNoCopy: base, count: count, deallocator: .custom { memory, _ in memory.deallocate() })
  }

  /// Writes `tree`'s root value as a `String`.
  func string(_ tree: EncodedTree) throws(TooDeep) -> String {
    let (base, count) = try write(tree)
    defer { base.deallocate() }
    return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
  }

  // MARK: - Layout

  /// One open container: its members to write, as a range of `order`.
  private struct Frame {
    let start: Int
    var next: Int
    let end: Int
    let isObject: Bool
  }

  private func layOut(_ tree: EncodedTree, into output: inout Output) throws(TooDeep) {
    var order: [Int32] = []
    var frames: [Frame] = []
    let shapes = SortedShapes()
    try writeValue(of: 0, tree, &output, &order, &frames, shapes)
    while let frame = frames.last {
      let depth = frames.count
      guard frame.next < frame.end else {
        frames.removeLast()
        order.removeLast(order.count - frame.start)
        close(frame, depth: depth, &output)
        continue
      }
      let member = Int(order[frame.next])
      let first = frame.next == frame.start
      frames[frames.count - 1].next += 1
      let item = tree.members[member]
      if !pretty, item.valueStart >= 0 {
        // Compact, a scalar (most members): one capacity check, then plain stores.
        output.appendMember(
          key: frame.isObject ? tree.bytes + item.keyStart : nil, keyLength: Int(item.keyLength),
          value: tree.bytes + item.valueStart, valueLength: item.valueEnd - item.valueStart,
          comma: !first)
        continue
      }
      if !first { output.append(UInt8(ascii: ",")) }
      if pretty {
        output.append(UInt8(ascii: "\n"))
        output.indent(depth)
      }
      if frame.isObject {
        output.append(UInt8(ascii: "\""))
        output.append(tree.bytes + item.keyStart, Int(item.keyLength))
        output.append(UInt8(ascii: "\""))
        if pretty { output.append(" : ") } else { output.append(UInt8(ascii: ":")) }
      }
      try writeValue(of: member, tree, &output, &order, &frames, shapes)
    }
  }

  private func close(_ frame: Frame, depth: Int, _ output: inout Output) {
    if pretty {
      output.append(UInt8(ascii: "\n"))
      output.indent(depth - 1)
    }
    output.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
  }

  private func writeValue(
    of member: Int, _ tree: EncodedTree, _ output: inout Output, _ order: inout [Int32],
    _ frames: inout [Frame], _ shapes: SortedShapes
  ) throws(TooDeep) {
    let item = tree.members[member]
    guard let container = item.container else {
      if item.isPending {
        try open(isObject: true, from: order.count, &output, &order, &frames)
      } else {
        output.append(tree.bytes + item.valueStart, item.valueEnd - item.valueStart)
      }
      return
    }
    let record = tree.containers[container]
    let start = order.count
    var cursor = record.first
    while cursor >= 0 {
      order.append(cursor)
      cursor = tree.members[Int(cursor)].next
    }
    if record.isObject, order.count - start > 1, sortedKeys || deduplicatesKeys {
      arrange(&order, from: start, tree, shapes)
    }
    try open(isObject: record.isObject, from: start, &output, &order, &frames)
  }

  /// Opens a container whose members are `order[start...]`.
  private func open(
    isObject: Bool, from start: Int, _ output: inout Output, _ order: inout [Int32],
    _ frames: inout [Frame]
  ) throws(TooDeep) {
    guard frames.count + 1 < depthLimit else { throw TooDeep() }
    output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
    guard start < order.count else {
      if pretty {
        output.append(UInt8(ascii: "\n"))
        output.append(UInt8(ascii: "\n"))
        output.indent(frames.count)
      }
      output.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
      return
    }
    frames.append(Frame(start: start, next: start, end: order.count, isObject: isObject))
  }

  /// Puts an object's members (`order[start...]`) in the order they are written: sorted (when
  /// sorting), and each key once.
  private func arrange(
    _ order: inout [Int32], from start: Int, _ tree: EncodedTree, _ shapes: SortedShapes
  ) {
    // Objects of one type have the same keys in the same order: arrange a shape once.
    let shape = shapes.signature(of: order, from: start, tree)
    if let written = shapes.apply(shape, to: &order, from: start, tree) {
      order.removeLast(order.count - start - written)
      return
    }
    let unsorted = Array(order[start...])
    arrangeAnew(&order, from: start, tree)
    shapes.remember(shape, unsorted: unsorted, arranged: order[start...])
  }

  /// `arrange` for an object of a shape not met before.
  private func arrangeAnew(_ order: inout [Int32], from start: Int, _ tree: EncodedTree) {
    // Stable: equal keys keep their encoding order, so the last of a run is the last encoded.
    func precedes(_ left: Int32, _ right: Int32) -> Bool {
      switch compareKeys(Int(left), Int(right), tree) {
      case .orderedAscending: return true
      case .orderedDescending: return false
      case .orderedSame: return left < right
      }
    }
    func same(_ left: Int32, _ right: Int32) -> Bool {
      compareKeys(Int(left), Int(right), tree) == .orderedSame
    }
    if sortedKeys {
      order[start...].sort(by: precedes)
      if deduplicatesKeys {
        var kept = start
        for index in start..<order.count
        where index + 1 == order.count || !same(order[index], order[index + 1]) {
          order[kept] = order[index]
          kept += 1
        }
        order.removeLast(order.count - kept)
      }
      return
    }
    // Encoding order, each key at its first place with its last value.
    let sorted = order[start...].sorted(by: precedes)
    // Each run of equal keys: its first member's place takes the last member; the others go.
    var replaced: [Int32: Int32] = [:]
    var dropped: Set<Int32> = []
    var runStart = 0
    for index in sorted.indices
    where index + 1 == sorted.count || !same(sorted[index], sorted[index + 1]) {
      if index > runStart {
        replaced[sorted[runStart]] = sorted[index]
        dropped.formUnion(sorted[(runStart + 1)...index])
      }
      runStart = index + 1
    }
    guard !replaced.isEmpty else { return }
    let arranged = order[start...].compactMap { member -> Int32? in
      if let last = replaced[member] { return last }
      return dropped.contains(member) ? nil : member
    }
    order.replaceSubrange(start..., with: arranged)
  }

  /// Orders two members' keys as `JSONEncoder` does: by the UTF-8 of the raw key.
  private func compareKeys(_ left: Int, _ right: Int, _ tree: EncodedTree) -> ComparisonResult {
    let a = tree.members[left]
    let b = tree.members[right]
    if tree.hasEscapedKeys,
      tree.escapedKeys[Int32(left)] != nil || tree.escapedKeys[Int32(right)] != nil
    {
      let rawA = rawKey(left, tree)
      let rawB = rawKey(right, tree)
      if rawA == rawB { return .orderedSame }
      return rawA.utf8.lexicographicallyPrecedes(rawB.utf8) ? .orderedAscending : .orderedDescending
    }
    let lengthA = Int(a.keyLength)
    let lengthB = Int(b.keyLength)
    let common = memcmp(tree.bytes + a.keyStart, tree.bytes + b.keyStart, min(lengthA, lengthB))
    if common != 0 { return common < 0 ? .orderedAscending : .orderedDescending }
    if lengthA == lengthB { return .orderedSame }
    return lengthA < lengthB ? .orderedAscending : .orderedDescending
  }

  private func rawKey(_ member: Int, _ tree: EncodedTree) -> String {
    if let raw = tree.escapedKeys[Int32(member)] { return raw }
    let item = tree.members[member]
    return String(
      decoding: UnsafeBufferPointer(start: tree.bytes + item.keyStart, count: Int(item.keyLength)),
      as: UTF8.self)
  }
}

/// The arranged order (sorted, each key once) of the object shapes met in one write, so each
/// shape is arranged once.
///
/// A shape is the object's key sequence; a remembered shape is used only after its keys are
/// compared byte for byte with the object's (the signature only finds candidates). Storage is
/// manual and the table direct-mapped, so a lookup allocates nothing and retains nothing (a
/// dictionary of arrays cost a fifth of the writer's time on citm).
private final class SortedShapes {
  private struct Shape {
    /// The full signature, to tell apart shapes that share a slot.
    var signature: UInt64
    /// Where, in `store`, the members of the object it was learned from start (`count` of them).
    var sample: Int
    /// Where, in `store`, the positions written start (`written` of them).
    var permutation: Int
    var count: Int
    var written: Int
    /// Written as encoded: nothing to move.
    var isIdentity: Bool
  }

  private static let kept = 256
  private static let slotCount = 512
  /// Per slot of the signature table, the remembered shape's index plus one (0: empty).
  private let slots = UnsafeMutablePointer<Int32>.allocate(capacity: SortedShapes.slotCount)
  private let shapes = UnsafeMutablePointer<Shape>.allocate(capacity: SortedShapes.kept)
  @exclusivity(unchecked) private var shapeCount = 0
  /// Samples and permutations, one after another.
  @exclusivity(unchecked) private var store: UnsafeMutablePointer<Int32>
  @exclusivity(unchecked) private var storeCount = 0
  @exclusivity(unchecked) private var storeCapacity = 256
  /// Room for one object's members while they are permuted.
  @exclusivity(unchecked) private var scratch: UnsafeMutablePointer<Int32>
  @exclusivity(unchecked) private var scratchCapacity = 64

  init() {
    slots.initialize(repeating: 0, count: Self.slotCount)
    store = .allocate(capacity: storeCapacity)
    scratch = .allocate(capacity: scratchCapacity)
  }

  deinit {
    slots.deallocate()
    shapes.deallocate()
    store.deallocate()
    scratch.deallocate()
  }

  /// A cheap signature of an object's keys (`order[start...]`): count, lengths, first and
  /// last bytes.
  @inline(__always)
  func signature(of order: [Int32], from start: Int, _ tree: EncodedTree) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(order.count - start)
    let bytes = tree.bytes
    let members = tree.members
    for index in start..<order.count {
      let item = members[Int(order[index])]
      let length = Int(item.keyLength)
      var mix = UInt64(length)
      if length > 0 {
        mix |= UInt64(bytes[item.keyStart]) << 32 | UInt64(bytes[item.keyStart + length - 1]) << 40
      }
      hash = (hash ^ mix) &* 0x0100_0000_01b3
    }
    return hash
  }

  @inline(__always)
  private func slot(_ signature: UInt64) -> Int {
    Int(truncatingIfNeeded: (signature ^ signature >> 29) & UInt64(Self.slotCount - 1))
  }

  /// Arranges `order[start...]` by a remembered shape with the same keys.
  ///
  /// - Returns: how many of the members are written (now at `order[start...]`, in order; the
  ///   rest after them are to be dropped), or nil when no remembered shape has exactly these
  ///   keys.
  func apply(_ signature: UInt64, to order: inout [Int32], from start: Int, _ tree: EncodedTree)
    -> Int?
  {
    let index = Int(slots[slot(signature)]) - 1
    guard index >= 0, !tree.hasEscapedKeys else { return nil }
    let shape = shapes[index]
    let count = order.count - start
    guard shape.signature == signature, shape.count == count else { return nil }
    let bytes = tree.bytes
    let members = tree.members
    let sample = store + shape.sample
    let same = order.withUnsafeBufferPointer { order -> Bool in
      for position in 0..<count {
        let a = members[Int(sample[position])]
        let b = members[Int(order[start + position])]
        guard a.keyLength == b.keyLength,
          a.keyStart == b.keyStart
            || memcmp(bytes + a.keyStart, bytes + b.keyStart, Int(a.keyLength)) == 0
        else { return false }
      }
      return true
    }
    guard same else { return nil }
    if shape.isIdentity { return count }
    if count > scratchCapacity {
      scratch.deallocate()
      scratchCapacity = max(count, scratchCapacity * 2)
      scratch = .allocate(capacity: scratchCapacity)
    }
    let scratch = self.scratch
    let permutation = store + shape.permutation
    order.withUnsafeMutableBufferPointer { order in
      for position in 0..<count { scratch[position] = order[start + position] }
      for position in 0..<shape.written {
        order[start + position] = scratch[Int(permutation[position])]
      }
    }
    return shape.written
  }

  /// Remembers how an object's members were arranged.
  func remember(_ signature: UInt64, unsorted: [Int32], arranged: ArraySlice<Int32>) {
    guard shapeCount < Self.kept else { return }
    var position: [Int32: Int32] = [:]
    for (index, member) in unsorted.enumerated() { position[member] = Int32(index) }
    let permutation = arranged.compactMap { position[$0] }
    guard permutation.count == arranged.count else { return }
    let needed = storeCount + unsorted.count + permutation.count
    if needed > storeCapacity {
      let capacity = max(needed, storeCapacity * 2)
      let grown = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
      grown.moveInitialize(from: store, count: storeCount)
      store.deallocate()
      store = grown
      storeCapacity = capacity
    }
    let sample = storeCount
    for (index, member) in unsorted.enumerated() { store[sample + index] = member }
    let start = sample + unsorted.count
    for (index, place) in permutation.enumerated() { store[start + index] = place }
    storeCount = needed
    let isIdentity =
      permutation.count == unsorted.count
      && permutation.enumerated().allSatisfy { $0.offset == Int($0.element) }
    (shapes + shapeCount).initialize(
      to: Shape(
        signature: signature, sample: sample, permutation: start, count: unsorted.count,
        written: permutation.count, isIdentity: isIdentity))
    shapeCount += 1
    slots[slot(signature)] = Int32(shapeCount)
  }
}

/// The writer's growing output buffer, which `Data` takes without a copy. Its first capacity
/// is the arena's size plus the layout's, so a compact write rarely grows it.
private struct Output {
  var base: UnsafeMutablePointer<UInt8>
  var count = 0
  var capacity: Int

  init(capacity: Int) {
    self.capacity = max(capacity, 16)
    base = .allocate(capacity: self.capacity)
  }

  func free() { base.deallocate() }

  @inline(__always)
  mutating func reserve(_ extra: Int) {
    guard count + extra > capacity else { return }
    (base, capacity) = grownBytes(base, count: count, capacity: capacity, to: count + extra)
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count += 1
  }

  @inline(__always)
  mutating func append(_ source: UnsafeMutablePointer<UInt8>, _ length: Int) {
    guard length > 0 else { return }
    reserve(length)
    (base + count).update(from: source, count: length)
    count += length
  }

  /// `,"key":value` (or `,value` without a key) with one capacity check.
  @inline(__always)
  mutating func appendMember(
    key: UnsafeMutablePointer<UInt8>?, keyLength: Int, value: UnsafeMutablePointer<UInt8>,
    valueLength: Int, comma: Bool
  ) {
    reserve(keyLength + valueLength + 4)
    var cursor = base + count
    if comma {
      cursor.pointee = UInt8(ascii: ",")
      cursor += 1
    }
    if let key {
      cursor.pointee = UInt8(ascii: "\"")
      (cursor + 1).update(from: key, count: keyLength)
      cursor += keyLength + 1
      cursor.pointee = UInt8(ascii: "\"")
      (cursor + 1).pointee = UInt8(ascii: ":")
      cursor += 2
    }
    cursor.update(from: value, count: valueLength)
    count = cursor - base + valueLength
  }

  mutating func append(_ literal: StaticString) {
    reserve(literal.utf8CodeUnitCount)
    (base + count).update(from: literal.utf8Start, count: literal.utf8CodeUnitCount)
    count += literal.utf8CodeUnitCount
  }

  mutating func indent(_ level: Int) {
    guard level > 0 else { return }
    reserve(level * 2)
    (base + count).update(repeating: UInt8(ascii: " "), count: level * 2)
    count += level * 2
  }
}
