import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

/// A model with a key the demo fixture does not have.
private struct Account: Decodable, Sendable {
  var id: Int
  var name: String
  var accessToken: String
}

/// `missingKeys` and `require` reach the provider's decode.
@Suite struct ProviderMissingKeysTests {
  @Test func aRequiredKeyMissingFromTheResponseThrowsThroughTheProvider() async throws {
    var decoder = LenientDecoder()
    let lenient = Provider<StubAPI>(decoder: decoder, stub: .immediate, fixtures: packageFixtures)
    // By default the missing token is invented as "", reported.
    let invented = try await lenient.request(.inline, as: Account.self)
    #expect(invented.accessToken == "")
    decoder.require(Account.self, keys: "accessToken")
    let required = Provider<StubAPI>(decoder: decoder, stub: .immediate, fixtures: packageFixtures)
    await #expect {
      try await required.request(.inline, as: Account.self)
    } throws: { error in
      "\(error)".contains("keyNotFound") && "\(error)".contains("accessToken")
    }
    var everyKey = LenientDecoder()
    everyKey.missingKeys = .error
    let strictKeys = Provider<StubAPI>(
      decoder: everyKey, stub: .immediate, fixtures: packageFixtures)
    await #expect {
      try await strictKeys.request(.inline, as: Account.self)
    } throws: { error in
      "\(error)".contains("keyNotFound") && "\(error)".contains("accessToken")
    }
    #expect(
      try await strictKeys.request(.inline, as: DemoUser.self) == DemoUser(id: 7, name: "Inline"))
  }
}
