/// The traits of one decode, by type: open addressing over a power-of-two table, probed from
/// the bits of the type's metadata pointer.
///
/// What `[ObjectIdentifier: TypeTraits]` did, without hashing a key with SipHash on every
/// lookup: that hashing was 1% of twitter.json's decode, whose models ask for a dozen types in
/// turn. Entries are only added or replaced; `removeAll()` forgets them all. A value: a
/// decoder that shares a decode copies it (copy on write).
struct TraitsByType {
  /// Empty until the first entry; then a power of two at least twice `count`.
  private var slots: ContiguousArray<TypeTraits?> = []
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// The traits kept for the type `id`.
  subscript(id: ObjectIdentifier) -> TypeTraits? {
    guard count > 0 else { return nil }
    let mask = slots.count &- 1
    var slot = Self.start(id, mask)
    while let traits = slots[slot] {
      if traits.id == id { return traits }
      slot = (slot &+ 1) & mask
    }
    return nil
  }

  /// Keeps `traits` for the type `id`, in place of any kept before.
  mutating func keep(_ traits: TypeTraits, for id: ObjectIdentifier) {
    assert(traits.id == id, "traits are kept under their own type")
    if (count &+ 1) &* 2 > slots.count { grow() }
    let mask = slots.count &- 1
    var slot = Self.start(id, mask)
    while let kept = slots[slot] {
      if kept.id == id {
        slots[slot] = traits
        return
      }
      slot = (slot &+ 1) & mask
    }
    slots[slot] = traits
    count &+= 1
  }

  mutating func removeAll() {
    slots = []
    count = 0
  }

  /// Metadata pointers are aligned: the multiply spreads their middle bits over the top ones.
  @inline(__always)
  private static func start(_ id: ObjectIdentifier, _ mask: Int) -> Int {
    let bits = UInt64(UInt(bitPattern: id))
    return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) &>> 40) & mask
  }

  private mutating func grow() {
    let old = slots
    slots = ContiguousArray(repeating: nil, count: max(16, old.count &* 2))
    count = 0
    for case let traits? in old { keep(traits, for: traits.id) }
  }
}
