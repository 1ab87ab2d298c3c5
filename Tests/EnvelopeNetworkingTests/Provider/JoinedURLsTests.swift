import Foundation
import Testing

@testable import EnvelopeNetworking

/// The provider remembers the URLs it joins: the same URL as joining afresh, for more paths
/// than it keeps, asked twice, under two bases.
@Suite struct JoinedURLsTests {
  @Test func rememberedURLsAreTheJoinedOnes() throws {
    let urls = JoinedURLs()
    let bases = [
      try #require(URL(string: "https://api.example.com/v1")),
      try #require(URL(string: "http://127.0.0.1:8080")),
    ]
    let paths = (0..<(JoinedURLs.limit + 50)).map { "/users/\($0)" } + ["/a b", "/é", "", "/x?y"]
    for _ in 0..<2 {
      for base in bases {
        for path in paths {
          #expect(urls.url(base, path) == base.appendingPathComponent(path), "\(base) \(path)")
        }
      }
    }
  }
}
