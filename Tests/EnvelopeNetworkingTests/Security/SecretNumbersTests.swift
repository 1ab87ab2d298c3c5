import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

/// Numbers that a response hands out are no way to crash the numbering.
@Suite struct SecretNumbersTests {
  @Test(arguments: [
    "9223372036854775807", "9223372036854775806", "99999999999999999999", "1000001",
  ])
  func aHugePlaceholderNumberNeitherTrapsNorIsKept(_ digits: String) {
    let numbers = SecretNumbers()
    let redaction = Redaction.default.numbering(numbers)
    let body = Data("{\"token\":\"<token \(digits)>\",\"refresh_token\":\"newvalue\"}".utf8)
    numbers.saw(body)
    let text = redaction.bodyText(body)
    #expect(!text.contains("newvalue"))
    #expect(numbers.placeholder(for: "another") != "")
  }

  @Test func aSmallPlaceholderNumberIsKept() {
    let numbers = SecretNumbers()
    #expect(numbers.placeholder(for: "<token 7>") == "<token 7>")
    #expect(numbers.placeholder(for: "new") == "<token 8>")
  }
}
