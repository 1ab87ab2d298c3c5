import Foundation

/// Numbers each distinct secret value of one recording run, by first appearance: `<token 1>`,
/// `<token 2>`, …
///
/// What a request is matched on tells two kinds of secret apart. A secret the run first met in
/// a response (a token the server issued) keeps its number in the request keys of later
/// requests that send it, so a request carrying the token a refresh issued matches the
/// recordings made with that token. A secret first met in a request (a password, an API key or
/// a stored token the app starts with) is `<redacted>` in request keys: a replay meets it as a
/// fresh value again and could not know the number the recording gave it. A value that already
/// is a placeholder (a replayed response handed it out and the app sends it back) keeps it.
///
/// `@unchecked Sendable`: every access to the state goes through `lock`.
package final class SecretNumbers: @unchecked Sendable {
  private let lock = NSLock()
  /// Each value met: its number, and whether it was first met in a response.
  private var numbers: [String: (number: Int, issued: Bool)] = [:]
  private var last = 0

  package init() {}

  /// `<token n>` for `value` as written in a recorded file; a value met for the first time here
  /// counts as issued by the server.
  package func placeholder(for value: String) -> String {
    placeholder(for: value, inRequestKey: false)
  }

  /// `value`'s placeholder: in a request key, `<token n>` only for a value the server issued
  /// (or a placeholder sent back), else `<redacted>`; in a file, always `<token n>`.
  package func placeholder(for value: String, inRequestKey: Bool) -> String {
    if value == Redaction.placeholder { return value }
    if let number = Self.number(of: value) {
      lock.withLock { last = max(last, number) }
      return value
    }
    let (number, issued) = lock.withLock {
      if let known = numbers[value] { return known }
      last = last < Int.max ? last + 1 : last
      numbers[value] = (last, !inRequestKey)
      return (last, !inRequestKey)
    }
    return inRequestKey && !issued ? Redaction.placeholder : Self.text(number)
  }

  /// Every value numbered so far, sorted (what a redaction with these numbers hid:
  /// `CachePartition` reads the credentials of a query or a body so, in an order that does not
  /// depend on where they stood).
  package var values: [String] {
    lock.withLock { numbers.keys.sorted() }
  }

  /// Notes the placeholders in a replayed answer, so that a new value is numbered after them.
  package func saw(_ data: Data) {
    guard let text = String(data: data, encoding: .utf8), text.contains("<token ") else { return }
    var highest = 0
    for piece in text.components(separatedBy: "<token ").dropFirst() {
      if let number = Self.number(of: "<token " + piece.prefix { $0.isNumber } + ">") {
        highest = max(highest, number)
      }
    }
    lock.withLock { last = max(last, highest) }
  }

  /// Notes the placeholders in a replayed interaction's body and headers.
  package func saw(_ interaction: Interaction) {
    saw(interaction.body)
    for value in interaction.headers.values { saw(Data(value.utf8)) }
  }

  /// `<token 3>`.
  static func text(_ number: Int) -> String { "<token \(number)>" }

  /// The highest number a placeholder may carry: a recording run numbers far fewer secrets, and
  /// a larger number (`<token 9223372036854775807>` in a response) is a value like any other,
  /// so counting on from it can never overflow.
  static let maximumNumber = 1_000_000

  /// 3 for `<token 3>`; nil for any other text and for a number above `maximumNumber`.
  static func number(of text: String) -> Int? {
    guard text.hasPrefix("<token "), text.hasSuffix(">") else { return nil }
    let digits = text.dropFirst(7).dropLast()
    guard !digits.isEmpty, digits.count <= 7, digits.allSatisfy({ $0.isASCII && $0.isNumber })
    else { return nil }
    guard let number = Int(digits), number <= maximumNumber else { return nil }
    return number
  }
}
