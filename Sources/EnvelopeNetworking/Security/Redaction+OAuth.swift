import EnvelopeKit
import Foundation

// MARK: - The authorization code of an OAuth exchange

/// `code` is two things: the status field of nearly every envelope (`{"code":0,…}`), which must
/// stay readable, and the authorization code of an OAuth 2.0 exchange (RFC 6749 §4.1.2 and
/// §4.1.3: `?code=…&state=…` on the redirect, `grant_type=authorization_code&code=…` in the token
/// request), which is a credential: with the PKCE `code_verifier` beside it (always secret, one of
/// `defaultNames`) it buys the user's tokens. So `code` is secret only where the parameters
/// around it mark an OAuth exchange:
///
/// - in a form or a URL's query or fragment, and in a `name=value` run inside other text (a
///   URL in a log line or in a JSON string), when the same form or query holds
///   `grant_type=authorization_code`, `code_verifier`, `redirect_uri` or `state`;
/// - in a JSON object, when the same object holds `"grant_type":"authorization_code"`,
///   `code_verifier` or `redirect_uri` (not `state`: an envelope may well have a state).
///
/// `device_code` is the same kind of name: the device code of the device authorization grant
/// (RFC 8628 §3.2 and §3.4) buys the user's tokens once they approve, and some APIs name a
/// device's model so. It is secret by the same rule, where the parameters around it mark an
/// exchange: `grant_type=urn:ietf:params:oauth:grant-type:device_code` (in a form, a query or a
/// JSON object) or, in a JSON object (the device authorization response), `user_code`,
/// `verification_uri` or `verification_uri_complete`. Those markers mark a `code` beside them
/// too, and the device grant's `grant_type` marks both names.
///
/// Names are compared as everywhere (`codeVerifier`, `redirect-uri`). Revealing `code` or
/// `device_code` (`revealing: ["code"]`) writes it in clear in every place.
extension Redaction {
  /// The names secret only beside a marker of an exchange, as compared.
  static let oauthCodeNames: Set<[UInt8]> = [Array("code".utf8), Array("devicecode".utf8)]
  /// Names that, beside `code` or `device_code` in one form or query, make it a credential (as
  /// compared).
  static let oauthQueryMarkers: Set<String> = ["codeverifier", "redirecturi", "state"]
  /// Names that, beside `code` or `device_code` in one JSON object, make it a credential (as
  /// compared).
  static let oauthObjectMarkers: Set<String> = [
    "codeverifier", "redirecturi", "usercode", "verificationuri", "verificationuricomplete",
  ]
  /// `grant_type` as compared.
  static let grantTypeName = "granttype"
  /// The grants whose `grant_type` marks an exchange, as compared: `authorization_code` and
  /// `urn:ietf:params:oauth:grant-type:device_code`.
  static let oauthGrants: Set<[UInt8]> = [
    Array("authorizationcode".utf8), Array("urn:ietf:params:oauth:granttype:devicecode".utf8),
  ]
  /// The longest value of `grant_type` looked at in text: the device grant, percent-encoded.
  static let longestGrant = 64

  /// Whether the JSON field `key` of `object` is the code of an OAuth exchange (`code`,
  /// `device_code`). `marked` keeps whether `object` marks an exchange once it was looked for
  /// (nil before): an object is looked through once, however many members are named so as
  /// compared (`c-ode`, `c_ode`, … are distinct members), so the redaction stays linear.
  func isOAuthCode(field key: String, in object: JSONObject, marked: inout Bool?) -> Bool {
    guard key.utf8.count >= 4, key.utf8.count <= 24 else { return false }
    let compared = Self.normalized(key)
    guard Self.oauthCodeNames.contains(Array(compared.utf8)), !isRevealed(compared) else {
      return false
    }
    if let marked { return marked }
    let found = Self.marksOAuthExchange(object)
    marked = found
    return found
  }

  /// Whether a JSON object holds a marker of an OAuth exchange beside its code.
  private static func marksOAuthExchange(_ object: JSONObject) -> Bool {
    object.contains { name, value in
      let compared = normalized(name)
      if oauthObjectMarkers.contains(compared) { return true }
      guard compared == grantTypeName, case .string(let grant) = value else { return false }
      return oauthGrants.contains(Array(normalized(grant).utf8))
    }
  }

  /// The name as compared when `name` (a pair's name, raw bytes) is `code` or `device_code` as
  /// compared, else nil; at most 24 bytes are looked at (`c%6Fde` and the like).
  static func oauthCodeName(_ name: ArraySlice<UInt8>) -> String? {
    guard name.count >= 4, name.count <= 24 else { return nil }
    let compared = compared(name)
    return oauthCodeNames.contains(compared) ? String(decoding: compared, as: UTF8.self) : nil
  }

  /// Finds, for `=` positions asked in increasing order, whether the form or query around each
  /// marks an OAuth exchange. Each stretch of text (a whole query, or in other text a run
  /// without spaces, quotes or `<>`) is scanned once, so the search stays linear in the text.
  struct OAuthStretches {
    let bytes: [UInt8]
    let kind: TextKind
    /// The last stretch scanned and whether it marks an exchange.
    var stretch: Range<Int> = 0..<0
    var marked = false

    init(_ bytes: [UInt8], kind: TextKind) {
      self.bytes = bytes
      self.kind = kind
    }

    /// Whether `byte` ends a stretch of text.
    private func endsStretch(_ byte: UInt8) -> Bool {
      guard kind == .text else { return false }
      switch byte {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
        UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"),
        UInt8(ascii: "\\"):
        return true
      default:
        return false
      }
    }

    /// Whether the stretch holding the `=` at `separator` marks an OAuth exchange.
    mutating func marksExchange(at separator: Int) -> Bool {
      if stretch.contains(separator) { return marked }
      var start = separator
      while start > stretch.upperBound, !endsStretch(bytes[start - 1]) { start -= 1 }
      var end = separator
      while end < bytes.count, !endsStretch(bytes[end]) { end += 1 }
      stretch = start..<end
      marked = scan(start..<end)
      return marked
    }

    /// Whether a pair of `range` is a marker: each `=` looks back at its name (to the previous
    /// byte no name holds) and, after `grant_type`, at most `longestGrant` bytes of its value.
    private func scan(_ range: Range<Int>) -> Bool {
      for index in range where bytes[index] == UInt8(ascii: "=") {
        var nameStart = index
        while nameStart > range.lowerBound, Redaction.isNameByte(bytes[nameStart - 1]) {
          nameStart -= 1
        }
        let name = bytes[nameStart..<index]
        guard !name.isEmpty, name.count <= 40 else { continue }
        let compared = String(decoding: Redaction.compared(name), as: UTF8.self)
        if Redaction.oauthQueryMarkers.contains(compared) { return true }
        guard compared == Redaction.grantTypeName else { continue }
        var valueEnd = index + 1
        while valueEnd < range.upperBound, valueEnd - index <= Redaction.longestGrant,
          bytes[valueEnd] != UInt8(ascii: "&"), bytes[valueEnd] != UInt8(ascii: "#")
        {
          valueEnd += 1
        }
        if Redaction.oauthGrants.contains(Redaction.compared(bytes[(index + 1)..<valueEnd])) {
          return true
        }
      }
      return false
    }
  }
}
