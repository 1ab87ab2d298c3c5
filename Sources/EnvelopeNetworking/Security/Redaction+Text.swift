import Foundation

// MARK: - Secrets inside text

extension Redaction {
  /// `text` with the secrets a URL or a query carries replaced, wherever it stands: the user and
  /// password of every `scheme://user:pw@host` removed, and the value of every `name=value`
  /// pair whose name is secret replaced by its placeholder (percent-encoded:
  /// `access_token=%3Credacted%3E`). The name is what precedes `=` back to a character that
  /// cannot be in one (`?`, `&`, `;`, a space, a quote), so `http://x/a?access_token=S` names
  /// `access_token`. A pair's value that is itself a percent-encoded URL or query
  /// (`redirect=https%3A%2F%2Fx%2F%3Ftoken%3DS`) is redacted inside and encoded again.
  ///
  /// Text without `=` and `://` is returned as it is, at the cost of one scan.
  func scrubbed(_ text: String) -> String {
    var sawEquals = false
    var sawScheme = false
    var (beforeLast, last): (UInt8, UInt8) = (0, 0)
    for byte in text.utf8 {
      if byte == UInt8(ascii: "=") { sawEquals = true }
      if byte == UInt8(ascii: "/"), last == UInt8(ascii: "/"), beforeLast == UInt8(ascii: ":") {
        sawScheme = true
      }
      (beforeLast, last) = (last, byte)
    }
    guard sawEquals || sawScheme else { return text }
    let bytes = Array(text.utf8)
    let withoutUserInfo = sawScheme ? Self.removingUserInfo(bytes) : bytes
    let result = sawEquals ? redactingPairs(withoutUserInfo) : withoutUserInfo
    return String(decoding: result, as: UTF8.self)
  }

  /// Bytes that end a pair's value (and a URL's authority).
  private static func endsValue(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ";"), UInt8(ascii: ","),
      UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"),
      UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
      return true
    default:
      return false
    }
  }

  /// Bytes that may be part of a pair's name.
  private static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
      UInt8(ascii: "."), UInt8(ascii: "%"), UInt8(ascii: "["), UInt8(ascii: "]"):
      return true
    default:
      return false
    }
  }

  /// `scheme://user:pw@host/…` → `scheme://host/…`, for every `://` in the text.
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
      // The authority runs to the first `/`, `?` or a byte that ends a value.
      var end = index + 1
      var lastAt: Int?
      while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
        !endsValue(bytes[end]) || bytes[end] == UInt8(ascii: ";")
          || bytes[end] == UInt8(ascii: ",")
      {
        if bytes[end] == UInt8(ascii: "@") { lastAt = end }
        end += 1
      }
      index = (lastAt ?? index) + 1
    }
    return result
  }

  /// Every `name=value` pair whose name is secret gets its value replaced.
  private func redactingPairs(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      result.append(byte)
      index += 1
      guard byte == UInt8(ascii: "=") else { continue }
      var start = result.count - 1
      while start > 0, Self.isNameByte(result[start - 1]) { start -= 1 }
      let nameBytes = result[start..<(result.count - 1)]
      guard !nameBytes.isEmpty else { continue }
      var end = index
      while end < bytes.count, !Self.endsValue(bytes[end]) { end += 1 }
      let raw = String(decoding: bytes[index..<end], as: UTF8.self)
      let name = String(decoding: nameBytes, as: UTF8.self)
      if isSecret(name: name.removingPercentEncoding ?? name) {
        // A placeholder sent back unencoded (`token=<token 2>`) is one value with its space.
        var value = raw.removingPercentEncoding ?? raw
        if raw.isEmpty, let placeholder = Self.placeholderPrefix(of: bytes[index...]) {
          value = placeholder
          end = index + placeholder.utf8.count
        }
        guard !value.isEmpty else { continue }
        result += Array(Self.encoded(placeholder(for: value)).utf8)
        index = end
      } else if let decoded = raw.removingPercentEncoding, decoded != raw {
        // A value that is itself an encoded URL or query.
        let inner = scrubbed(decoded)
        if inner != decoded {
          result += Array(Self.encoded(inner).utf8)
          index = end
        }
      }
    }
    return result
  }

  /// `<token 12>` or `<redacted>` at the start of `bytes`, if there is one.
  private static func placeholderPrefix(of bytes: ArraySlice<UInt8>) -> String? {
    guard bytes.first == UInt8(ascii: "<"), let close = bytes.firstIndex(of: UInt8(ascii: ">"))
    else { return nil }
    let text = String(decoding: bytes[bytes.startIndex...close], as: UTF8.self)
    return text == placeholder || SecretNumbers.number(of: text) != nil ? text : nil
  }

  /// Percent-encodes all but letters, digits and `-._~`.
  static func encoded(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(
      CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}
