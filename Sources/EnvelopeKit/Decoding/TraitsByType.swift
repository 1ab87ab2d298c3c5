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
    var slot = id.slot(mask: mask)
    while let traits = slots[slot] {
      if traits.id == id { return traits }
      slot = (slot &+ 1) & mask
    }
    return nil
  }

  /// Keeps `traits` for their type, in place of any kept before.
  mutating func keep(_ traits: TypeTraits) {
    if (count &+ 1) &* 2 > slots.count { grow() }
    let id = traits.id
    let mask = slots.count &- 1
    var slot = id.slot(mask: mask)
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

  private mutating func grow() {
    let old = slots
    slots = ContiguousArray(repeating: nil, count: max(16, old.count &* 2))
    count = 0
    for case let traits? in old { keep(traits) }
  }
}

extension ObjectIdentifier {
  /// A slot for a type's identity in a power-of-two table (`mask`: its size less one), from the
  /// metadata pointer: metadata records are aligned, so the multiply spreads their middle bits
  /// over the top ones. (`TraitsByType`, `TraitTable`.)
  @inline(__always)
  func slot(mask: Int) -> Int {
    let bits = UInt64(UInt(bitPattern: self))
    return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) &>> 40) & mask
  }
}
