import Foundation

// MARK: - Key lookup

extension JSONDocument {
  /// Finds the value token for `key` in the object at `object`; the first occurrence wins,
  /// as with Foundation's JSONDecoder.
  ///
  /// Keys compare by bytes. Foundation matches keys by `String` equality (canonical
  /// equivalence: a decomposed `é`, the Kelvin sign), so an object that has a key with escapes
  /// or non-ASCII bytes (flagged by the scanner), or a non-ASCII `key` that matched no key byte
  /// for byte, is searched comparing `String`s, still in order so that the first occurrence wins.
  @inline(__always)
  func valueIndex(forKey key: consuming String, inObject object: Int) -> Int? {
    var cursor = KeyCursor(object: object)
    return valueIndex(forKey: key, inObject: object, cursor: &cursor)
  }

  /// `valueIndex(forKey:inObject:)` for a container that looks up many keys in one object:
  /// `cursor` remembers the member after the last one found, so keys asked in the object's own
  /// order (what synthesised `init(from:)` does for JSON written from the same model) are found
  /// with one comparison instead of a walk from the first member. Pays on twitter.json, whose
  /// users have 40 keys.
  ///
  /// First occurrence still wins. When `cursor.seen` proves that no member before the cursor
  /// has the key, the search starts at the cursor (a model whose `CodingKeys` list keys in
  /// another order than the JSON, or a key that is missing, costs no walk from the first
  /// member); otherwise it walks from the first member.
  ///
  /// `rule` says how a JSON key reads as a model's key: as written (`ExactKeys`), or through
  /// `.convertFromSnakeCase` (`SnakeCaseKeys`), compared byte by byte without making a `String`
  /// per key.
  ///
  /// `key` is consumed (a container passes the `stringValue` it was just given): `withUTF8` is
  /// mutating, and a borrowed key was copied into a local first, a retain and a release more
  /// on every key looked up.
  @inline(__always)
  func valueIndex<Rule: KeyRule>(
    forKey key: consuming String, inObject object: Int, cursor: inout KeyCursor,
    rule: Rule.Type = ExactKeys.self
  ) -> Int? {
    if tokens[object].flags.contains(.hasNonASCIIKeys) {
      return canonicalValueIndex(forKey: key, inObject: object, rule: rule)
    }
    var keyIsASCII = true
    let found: Int? = key.withUTF8 { keyBytes in
      let end = Int(tokens[object].next)
      let bit = Rule.bit(of: keyBytes)
      var child = cursor.mayContain(bit) ? object + 1 : cursor.member
      while child < end {
        if keyMatches(child, keyBytes, rule) {
          // Move the cursor past the member found, summarising every key it passes.
          while cursor.member <= child {
            withBytes(cursor.member) { cursor.insert(Rule.bit(of: $0)) }
            cursor.member = next(cursor.member + 1)
          }
          return child + 1
        }
        child = Int(tokens[child + 1].next)
      }
      keyIsASCII = !keyBytes.contains { $0 >= 0x80 }
      return nil
    }
    if found != nil || keyIsASCII { return found }
    return canonicalValueIndex(forKey: key, inObject: object, rule: rule)
  }

  /// Whether the key token at `member` (ASCII, no escapes) reads as the model's key `key`.
  @inline(__always)
  private func keyMatches<Rule: KeyRule>(
    _ member: Int, _ key: UnsafeBufferPointer<UInt8>, _ rule: Rule.Type
  ) -> Bool {
    let token = tokens[member]
    let count = Int(token.end &- token.start)
    if Rule.comparesLengths, count != key.count { return false }
    guard let base = bytes.baseAddress else { return key.isEmpty }
    let json = UnsafeBufferPointer(start: base + Int(token.start), count: count)
    if let matches = Rule.matches(json, key) { return matches }
    // The bytes alone cannot tell: the rule's own conversion decides.
    return key.elementsEqual(Rule.modelKey(string(member)).utf8)
  }

  /// The slow pass of `valueIndex`: keys compared as `String`s.
  private func canonicalValueIndex<Rule: KeyRule>(
    forKey key: String, inObject object: Int, rule: Rule.Type
  ) -> Int? {
    members(of: object).first { Rule.modelKey(string($0.key)) == key }?.value
  }
}

/// A keyed container's place in its object (see `JSONDocument.valueIndex(forKey:inObject:cursor:)`).
struct KeyCursor {
  /// The key token of the member after the last one found.
  var member: Int
  /// A 256-bit Bloom filter of the keys of every member before `member`: a clear bit proves a
  /// key is not among them. Four words read and written one at a time through memory: a
  /// `SIMD4` lane chosen at run time was written to the stack and read back whole, a stall on
  /// every key (about a tenth of a keyed container's own time).
  private var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

  /// A cursor at the first member of the object at token `object`.
  init(object: Int) { member = object + 1 }

  /// The filter bit of a key: its length and first and last bytes (distinct for the keys of
  /// typical models, and cheap to read).
  @inline(__always)
  static func bit(of key: UnsafeBufferPointer<UInt8>) -> Int {
    guard let first = key.first, let last = key.last else { return 0 }
    return (key.count &* 37 &+ Int(first) &* 7 &+ Int(last)) & 255
  }

  /// Whether a member before the cursor may have a key with filter bit `bit`. Mutating only so
  /// that the words are read where they are, not from a copy.
  @inline(__always)
  mutating func mayContain(_ bit: Int) -> Bool {
    withUnsafeBytes(of: &seen) { words in
      words.load(fromByteOffset: (bit >> 6) &* 8, as: UInt64.self) & 1 << UInt64(bit & 63) != 0
    }
  }

  @inline(__always)
  mutating func insert(_ bit: Int) {
    withUnsafeMutableBytes(of: &seen) { words in
      let offset = (bit >> 6) &* 8
      let word = words.load(fromByteOffset: offset, as: UInt64.self)
      words.storeBytes(of: word | 1 << UInt64(bit & 63), toByteOffset: offset, as: UInt64.self)
    }
  }
}

/// Whether the `count` bytes at `a` and at `b` are equal. Keys are short: up to 16 bytes are
/// compared with two overlapping loads of each side (never reading outside the `count` bytes)
/// instead of a call to `memcmp`, which cost 3.5% of a page of small models.
@inline(__always)
func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
  let a = UnsafeRawPointer(a)
  let b = UnsafeRawPointer(b)
  switch count {
  case 8...16:
    return a.loadUnaligned(as: UInt64.self) == b.loadUnaligned(as: UInt64.self)
      && a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
  case 4..<8:
    return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
      && a.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        == b.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
  case 1..<4:
    for offset in 0..<count
    where a.load(fromByteOffset: offset, as: UInt8.self)
      != b.load(fromByteOffset: offset, as: UInt8.self)
    {
      return false
    }
    return true
  case 0:
    return true
  default:
    return memcmp(a, b, count) == 0
  }
}
