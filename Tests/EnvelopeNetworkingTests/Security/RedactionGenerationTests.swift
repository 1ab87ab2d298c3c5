import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Generated queries against Foundation's reading of them: every value `URLComponents` gives a
/// secret name is gone from the redacted query, whatever bytes it holds, and every other item is
/// written as it was.
@Suite struct RedactionGenerationTests {
  static let secretNames = ["password", "access_token", "api_key", "auth_token", "Token", "key"]
  static let otherNames = ["page", "a", "next", "q", "author", "max_tokens"]
  /// What a value may hold: the marks that once ended a value early included.
  static let alphabet = Array("abcXYZ019'\";,<>:!$()*+-._~@/?[]")

  @Test(arguments: 0..<20)
  func aSecretValueNeverSurvivesAQuery(seed: UInt64) throws {
    var random = SeededGenerator(state: seed &* 0x1234_5678_9ABC)
    for _ in 0..<50 {
      var items: [(name: String, value: String, secret: Bool)] = []
      for index in 0..<Int.random(in: 1...6, using: &random) {
        let secret = Bool.random(using: &random)
        let names = secret ? Self.secretNames : Self.otherNames
        let name = try #require(names.randomElement(using: &random))
        var value = String(
          (0..<Int.random(in: 0...12, using: &random)).map { _ in
            Self.alphabet.randomElement(using: &random) ?? "a"
          })
        if secret { value += "Zq\(index)marker" }
        items.append((name, value, secret))
      }
      let query = items.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
      let url = try #require(URL(string: "https://x.test/p?" + query + "#" + query))
      let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
      // The oracle: what Foundation reads as each item's value.
      let oracle = components.queryItems ?? []
      #expect(oracle.count == items.count)
      let written = Redaction.default.url(url)
      for item in items where item.secret {
        #expect(!written.contains("marker"), "\(query) -> \(written)")
        #expect(!written.contains(item.value), "\(query) -> \(written)")
      }
      let writtenQuery = Redaction.default.query(query)
      let pieces = writtenQuery.split(separator: "&", omittingEmptySubsequences: false)
      #expect(pieces.count == items.count, "\(query) -> \(writtenQuery)")
      for (piece, item) in zip(pieces, items) {
        if item.secret {
          #expect(piece == "\(item.name)=%3Credacted%3E", "\(query) -> \(writtenQuery)")
        } else {
          #expect(piece == "\(item.name)=\(item.value)", "\(query) -> \(writtenQuery)")
        }
      }
    }
  }
}
