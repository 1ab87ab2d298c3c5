import Foundation

// MARK: - Secrets inside text

extension Redaction {
  /// How many times a value encoded inside a value (`next=https%3A%2F%2F…%3Ftoken%3DS`) is
  /// decoded and redacted inside, at most.
  static let maximumDepth = 3

  /// How the end of a value is found.
  enum TextKind {
    /// Free text (a log line, a JSON string, a header): a value runs to a space, `&`, `"` or
    /// `>`, or, quoted, to its closing quote; `name: value` pairs count too.
    case text
    /// A URL's query or fragment, or a form: a value runs to `&` or `#`, whatever it holds.
    case query
  }

  /// `text` with the secrets a URL or a query carries replaced, wherever it stands: the user and
  /// password of every `scheme://user:pw@host` removed, and the value of every `name=value`
  /// (and `name: value`, `"name":"value"`) pair whose name is secret replaced by its
  /// placeholder (percent-encoded after `=`: `access_token=%3Credacted%3E`). The name is what
  /// precedes `=` back to a character that cannot be in one (`?`, `&`, `;`, `#`, a space, a
  /// quote), so `http://x/a?access_token=S` names `access_token`. The value is all that follows
  /// the name up to a space, `&`, `"` or `>` (spaces after `=` skipped); a value in quotes or in
  /// `<…>` runs to its closing mark, and to the end of the text when there is none. A pair's
  /// value that is itself a percent-encoded URL or query
  /// (`redirect=https%3A%2F%2Fx%2F%3Ftoken%3DS`) is redacted inside and encoded again.
  ///
  /// Linear in the text: each value's end is found once, and only a value that holds `%` is
  /// decoded (once per stretch of text, `maximumDepth` levels deep at most).
  func scrubbed(_ text: String) -> String {
    scrubbed(text, kind: .text, depth: 0)
  }

  /// `scrubbed(_:)` for text of `kind`, `depth` levels inside encoded values.
  func scrubbed(_ text: String, kind: TextKind, depth: Int) -> String {
    var sawSeparator = false
    var sawScheme = false
    var (beforeLast, last): (UInt8, UInt8) = (0, 0)
    for byte in text.utf8 {
      if byte == UInt8(ascii: "=") || byte == UInt8(ascii: ":") { sawSeparator = true }
      if byte == UInt8(ascii: "/"), last == UInt8(ascii: "/"), beforeLast == UInt8(ascii: ":") {
        sawScheme = true
      }
      (beforeLast, last) = (last, byte)
    }
    guard sawSeparator else { return text }
    let bytes = Array(text.utf8)
    let withoutUserInfo = sawScheme ? Self.removingUserInfo(bytes) : bytes
    let result = redactingPairs(withoutUserInfo, kind: kind, depth: depth)
    return String(decoding: result, as: UTF8.self)
  }

  /// Whether `byte` ends an unquoted value after `=` in text of `kind`.
  private static func endsValue(_ byte: UInt8, _ kind: TextKind) -> Bool {
    switch kind {
    case .query:
      return byte == UInt8(ascii: "&") || byte == UInt8(ascii: "#")
    case .text:
      switch byte {
      case UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: ">"), UInt8(ascii: " "),
        UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        return true
      default:
        return false
      }
    }
  }

  /// Whether `byte` ends an unquoted value after `name:` (a header line, YAML, loose JSON).
  private static func endsColonValue(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\""), UInt8(ascii: ","),
      UInt8(ascii: ";"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "&"):
      return true
    default:
      return false
    }
  }

  /// Bytes that end a URL's authority. A password may hold `&`, `'`, `;`, `,` and (not
  /// encoded, as a careless writer leaves it) `#`, so they do not end it.
  private static func endsAuthority(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "\""), UInt8(ascii: "<"),
      UInt8(ascii: ">"),
      UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
      UInt8(ascii: "\\"):
      return true
    default:
      return false
    }
  }

  /// Bytes that may be part of a pair's name.
  static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
      UInt8(ascii: "."), UInt8(ascii: "%"), UInt8(ascii: "["), UInt8(ascii: "]"):
      return true
    default:
      return false
    }
  }

  /// `scheme://user:pw@host/…` → `scheme://host/…`, for every `://` in the text. Each
  /// authority is scanned once: the scan stops at the `/` that could start the next `://`.
  private static func removingUserInfo(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      result.append(bytes[index])
      guard bytes[index] == UInt8(ascii: "/"), index >= 2, bytes[index - 1] == UInt8(ascii: "/"),
        bytes[index - 2] == UInt8(ascii: ":")
      else {
        index += 1
        continue
      }
      var end = index + 1
      var lastAt: Int?
      while end < bytes.count, !endsAuthority(bytes[end]) {
        if bytes[end] == UInt8(ascii: "@") { lastAt = end }
        end += 1
      }
      index = (lastAt ?? index) + 1
    }
    return result
  }

  /// The first index at or after a position whose byte matches (or the count), for positions
  /// asked in increasing order: each byte is looked at once, and no memory is taken per byte.
  private struct NextMatch {
    let bytes: [UInt8]
    let matches: (UInt8) -> Bool
    /// For every position in `from...found`, the answer is `found`.
    var from = 1
    var found = 0

    init(_ bytes: [UInt8], _ matches: @escaping (UInt8) -> Bool) {
      self.bytes = bytes
      self.matches = matches
    }

    mutating func at(_ position: Int) -> Int {
      if position >= from, position <= found { return found }
      var index = position
      while index < bytes.count, !matches(bytes[index]) { index += 1 }
      (from, found) = (position, index)
      return index
    }
  }

  /// Every `name=value` (and, in text, `name: value`) pair whose name is secret gets its value
  /// replaced; a value holding `%` is decoded and redacted inside.
  private func redactingPairs(_ bytes: [UInt8], kind: TextKind, depth: Int) -> [UInt8] {
    var valueEnds = NextMatch(bytes) { Self.endsValue($0, kind) }
    var percents = NextMatch(bytes) { $0 == UInt8(ascii: "%") }
    var exchanges = OAuthStretches(bytes, kind: kind)
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    // Names are not read back past a value replaced; values starting before `decodedUntil`
    // were decoded and redacted inside already.
    var floor = 0
    var decodedUntil = 0
    while index < bytes.count {
      let byte = bytes[index]
      let isColon = kind == .text && byte == UInt8(ascii: ":")
      guard byte == UInt8(ascii: "=") || isColon else {
        result.append(byte)
        index += 1
        continue
      }
      result.append(byte)
      let separator = index
      index += 1
      var nameEnd = separator
      if isColon, nameEnd > floor,
        bytes[nameEnd - 1] == UInt8(ascii: "\"") || bytes[nameEnd - 1] == UInt8(ascii: "'")
      {
        nameEnd -= 1
        if nameEnd > floor, bytes[nameEnd - 1] == UInt8(ascii: "\\") { nameEnd -= 1 }
      }
      var nameStart = nameEnd
      while nameStart > floor, Self.isNameByte(bytes[nameStart - 1]) { nameStart -= 1 }
      guard nameStart < nameEnd else { continue }
      let name = bytes[nameStart..<nameEnd]
      if isSecret(nameBytes: name)
        || (!isColon && Self.oauthCodeName(name).map { !isRevealed($0) } == true
          && exchanges.marksExchange(at: separator))
      {
        guard
          let (value, end) = Self.secretValue(
            bytes, from: index, kind: kind, colon: isColon, valueEnds: &valueEnds)
        else { continue }
        let raw = String(decoding: bytes[value], as: UTF8.self)
        let decoded = raw.contains("%") ? (raw.removingPercentEncoding ?? raw) : raw
        let written = placeholder(for: decoded)
        result += bytes[index..<value.lowerBound]
        result += Array((isColon ? written : Self.encoded(written)).utf8)
        result += bytes[value.upperBound..<end]
        index = end
        floor = end
        decodedUntil = max(decodedUntil, end)
      } else if !isColon, index >= decodedUntil, depth < Self.maximumDepth,
        percents.at(index) < valueEnds.at(index)
      {
        // A value that is itself an encoded URL or query, maybe encoded twice: decoded once per
        // stretch of text (a later `=` inside it starts a part of what was decoded).
        let end = valueEnds.at(index)
        decodedUntil = end
        var decodedBytes = Array(bytes[index..<end])
        var rounds = 0
        for _ in 0..<Self.maximumDepth {
          guard let once = Self.percentDecoded(decodedBytes) else { break }
          decodedBytes = once
          rounds += 1
        }
        guard rounds > 0, let decoded = String(validating: decodedBytes, as: UTF8.self) else {
          continue
        }
        let inner = scrubbed(decoded, kind: .text, depth: depth + 1)
        if inner != decoded {
          result += Array(Self.encoded(inner).utf8)
          index = end
          floor = end
        }
      }
    }
    return result
  }

  /// `isSecret(name:)` for a name's bytes, compared as bytes: what most `=` in a text are
  /// preceded by, so no string is made of a name too short to be secret and no Foundation call
  /// is made per name.
  private func isSecret(nameBytes: ArraySlice<UInt8>) -> Bool {
    let compared = Self.compared(nameBytes)
    guard compared.count >= shortestName else { return false }
    if compared.contains(UInt8(ascii: "[")) || compared.contains(UInt8(ascii: "]")) {
      // A nested key (`auth[token]`): by its parts.
      let raw = String(decoding: nameBytes, as: UTF8.self)
      return isSecret(name: raw.contains("%") ? (raw.removingPercentEncoding ?? raw) : raw)
    }
    let text = String(decoding: compared, as: UTF8.self)
    if names.contains(text) { return true }
    return Self.holdsSecretWord(compared) && !isRevealed(text)
  }

  /// A name's bytes as compared: percent-decoded (as they are when a `%` starts no `%XX`), ASCII
  /// letters lower-case, without `-`, `_` and `.`. The words and names are ASCII: bytes of other
  /// characters are compared as they are, UTF-8 or not.
  static func compared(_ name: ArraySlice<UInt8>) -> [UInt8] {
    var decoded: [UInt8] = []
    decoded.reserveCapacity(name.count)
    var index = name.startIndex
    var decodes = true
    while index < name.endIndex {
      var byte = name[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < name.endIndex, let high = hexValue(name[index + 1]),
          let low = hexValue(name[index + 2])
        else {
          decodes = false
          break
        }
        byte = high << 4 | low
        index += 3
      } else {
        index += 1
      }
      decoded.append(byte)
    }
    let source = decodes ? decoded : Array(name)
    var result: [UInt8] = []
    result.reserveCapacity(source.count)
    for byte in source
    where byte != UInt8(ascii: "-") && byte != UInt8(ascii: "_") && byte != UInt8(ascii: ".") {
      result.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
    }
    return result
  }

  /// `defaultNameWords` as bytes.
  private static let wordBytes: [[UInt8]] = defaultNameWords.map { Array($0.utf8) }

  /// Whether `name` holds `word` from `start` on.
  private static func holds(_ name: [UInt8], _ word: [UInt8], at start: Int) -> Bool {
    guard start >= 0, start + word.count <= name.count else { return false }
    for offset in 0..<word.count where name[start + offset] != word[offset] { return false }
    return true
  }

  /// `holdsSecretWord(_:)` for a name's bytes as compared.
  private static func holdsSecretWord(_ name: [UInt8]) -> Bool {
    if holds(name, Array("tokens".utf8), at: name.count - 6) { return false }
    for word in wordBytes where name.count >= word.count {
      for start in 0...(name.count - word.count) where holds(name, word, at: start) {
        return true
      }
    }
    return false
  }

  /// `bytes` with every `%XX` decoded; nil when none is (a `%` that starts no `%XX` stays).
  private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8]? {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    var changed = false
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
      {
        result.append(high << 4 | low)
        index += 3
        changed = true
      } else {
        result.append(bytes[index])
        index += 1
      }
    }
    return changed ? result : nil
  }

  /// 10 for `a` or `A`.
  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  /// Where the value after a secret name's separator (at `start`) lies, and where the text
  /// resumes after it (past a closing quote); nil for an empty value.
  private static func secretValue(
    _ bytes: [UInt8], from start: Int, kind: TextKind, colon: Bool,
    valueEnds: inout NextMatch
  ) -> (Range<Int>, Int)? {
    if kind == .query {
      let end = valueEnds.at(start)
      return end > start ? (start..<end, end) : nil
    }
    var begin = start
    while begin < bytes.count,
      bytes[begin] == UInt8(ascii: " ") || bytes[begin] == UInt8(ascii: "\t")
    {
      begin += 1
    }
    guard begin < bytes.count else { return nil }
    var open = begin
    if bytes[open] == UInt8(ascii: "\\"), open + 1 < bytes.count,
      bytes[open + 1] == UInt8(ascii: "\"")
    {
      open += 1
    }
    let first = bytes[open]
    if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") || first == UInt8(ascii: "<") {
      let close = first == UInt8(ascii: "<") ? UInt8(ascii: ">") : first
      var end = open + 1
      while end < bytes.count, bytes[end] != close { end += 1 }
      // No closing mark: the rest of the text is the value.
      guard end < bytes.count else { return end > open + 1 ? ((open + 1)..<end, end) : nil }
      if first == UInt8(ascii: "<") { return (open..<(end + 1), end + 1) }
      var valueEnd = end
      if open > begin, valueEnd > open + 1, bytes[valueEnd - 1] == UInt8(ascii: "\\") {
        valueEnd -= 1
      }
      return valueEnd > open + 1 ? ((open + 1)..<valueEnd, end + 1) : nil
    }
    var end = begin
    if colon {
      while end < bytes.count, !endsColonValue(bytes[end]) { end += 1 }
      // `Bearer S ` keeps no trailing spaces in the value.
      while end > begin, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
    } else {
      end = valueEnds.at(begin)
    }
    return end > begin ? (begin..<end, end) : nil
  }

  /// Percent-encodes all but letters, digits and `-._~`.
  static func encoded(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(
      CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}
