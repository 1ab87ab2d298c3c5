/// How a JSON key reads as the key a model asks for, in `JSONDocument.valueIndex`: as written
/// (`ExactKeys`), or as `.convertFromSnakeCase` turns it (`SnakeCaseKeys`).
///
/// The rule itself is `modelKey(_:)`; `matches` is its fast path over bytes and answers nil
/// whenever it cannot be sure, so that `modelKey` decides. Held to each other by generation
/// (`KeyRuleTests`, and the promise oracle's snake-case models through the seeded run and the
/// fuzz target).
protocol KeyRule {
  /// Whether a JSON key can only match a model key of its own length.
  static var comparesLengths: Bool { get }
  /// The `KeyCursor` filter bit of a key: every JSON key that matches a model key has the
  /// model key's bit.
  static func bit(of key: UnsafeBufferPointer<UInt8>) -> Int
  /// Whether the JSON key `json` (ASCII, no escapes) reads as `key`; nil when the bytes alone
  /// cannot tell.
  static func matches(_ json: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>)
    -> Bool?
  /// The model's key for the (decoded) JSON key `json`: the rule.
  static func modelKey(_ json: String) -> String
}

/// Keys as written: byte equality (`String` equality for keys with escapes or non-ASCII bytes).
enum ExactKeys: KeyRule {
  static var comparesLengths: Bool { true }

  @inline(__always)
  static func bit(of key: UnsafeBufferPointer<UInt8>) -> Int { KeyCursor.bit(of: key) }

  @inline(__always)
  static func matches(_ json: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>)
    -> Bool?
  {
    guard let a = json.baseAddress, let b = key.baseAddress else { return true }
    return bytesEqual(a, b, count: key.count)
  }

  static func modelKey(_ json: String) -> String { json }
}

/// Keys through `.convertFromSnakeCase` (`convertFromSnakeCase(_:)`, Foundation's rule):
/// `user_id`, `USER_ID` and `user__id` all read as `userId`.
///
/// For an ASCII key the conversion only drops inner underscores and changes the case of
/// letters, so the model key is compared byte by byte as the conversion would write it, with no
/// `String` per key. A key with an inner underscore and a byte other than a letter or `_`
/// between its first and last letters (`line_1`, `a-b_c`) goes to `convertFromSnakeCase`:
/// `capitalized` treats digits and punctuation differently on Linux and Apple platforms.
enum SnakeCaseKeys: KeyRule {
  static var comparesLengths: Bool { false }

  /// The bit of the key's non-underscore bytes, lower-cased: their count, first and last byte.
  /// The conversion keeps those bytes, in order, up to their case.
  @inline(__always)
  static func bit(of key: UnsafeBufferPointer<UInt8>) -> Int {
    var count = 0
    var first: UInt8 = 0
    var last: UInt8 = 0
    for byte in key where byte != UInt8(ascii: "_") {
      if count == 0 { first = byte | lowerCaseBit(byte) }
      last = byte
      count &+= 1
    }
    return (count &* 37 &+ Int(first) &* 7 &+ Int(last | lowerCaseBit(last))) & 255
  }

  /// Inlined up to the first test, which most members a lookup passes fail: the rest is a
  /// call (a call per member passed was a thirtieth of a GitHub events decode).
  @inline(__always)
  static func matches(_ json: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>)
    -> Bool?
  {
    let count = json.count
    guard count > 0, !key.isEmpty, let j = json.baseAddress, let k = key.baseAddress else {
      return key.count == count  // "" reads as ""
    }
    // The conversion only drops underscores and changes the case of letters: a longer key, or a
    // first byte other than the JSON key's up to case, cannot match (most members a lookup
    // passes end here).
    guard key.count <= count, j[0] | 0x20 == k[0] | 0x20 else { return false }
    return matchesRest(j, count, k, key.count)
  }

  /// `matches` past its first test.
  @inline(never)
  private static func matchesRest(
    _ j: UnsafePointer<UInt8>, _ count: Int, _ k: UnsafePointer<UInt8>, _ keyCount: Int
  ) -> Bool? {
    let underscore = UInt8(ascii: "_")
    let key = UnsafeBufferPointer(start: k, count: keyCount)
    // No underscore, or only leading and trailing ones: the key is kept as it is.
    var first = 0
    while first < count, j[first] == underscore { first += 1 }
    var end = count
    while end > first, j[end - 1] == underscore { end -= 1 }
    var inner = first
    while inner < end, j[inner] != underscore { inner += 1 }
    guard inner < end else {
      return key.count == count && bytesEqual(j, k, count: count)
    }
    // Leading and trailing underscores kept; the first component lower-cased, every later one
    // capitalised (its first letter upper-cased, the rest lower-cased), inner underscores gone.
    // Letters before any other byte convert the same whatever follows (no word break falls
    // between two letters), so a mismatch among them is final.
    let trailing = count - end
    guard key.count >= first + trailing, bytesEqual(j, k, count: first) else { return false }
    var q = first
    var startsComponent = false
    for p in first..<end {
      let byte = j[p]
      if byte == underscore {
        startsComponent = true
        continue
      }
      guard isLetter(byte) else { return nil }
      let expected = startsComponent ? byte & ~0x20 : byte | 0x20
      startsComponent = false
      guard q < key.count, k[q] == expected else { return false }
      q += 1
    }
    return key.count - q == trailing && bytesEqual(j + end, k + q, count: trailing)
  }

  static func modelKey(_ json: String) -> String { convertFromSnakeCase(json) }

  /// 0x20 for an ASCII letter (the bit that tells its case apart), 0 for any other byte.
  @inline(__always)
  private static func lowerCaseBit(_ byte: UInt8) -> UInt8 { isLetter(byte) ? 0x20 : 0 }

  @inline(__always)
  private static func isLetter(_ byte: UInt8) -> Bool {
    let folded = byte | 0x20
    return folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "z")
  }
}
