import Foundation
import Testing

@testable import EnvelopeKit

/// `@UnknownKeys`: the keys a model does not read, kept and written back.
@Suite struct UnknownKeysTests {
  struct Profile: Codable, Equatable, Sendable {
    var id: Int
    var firstName: String
    @UnknownKeys var others: [String: JSON]
  }

  struct Account: Codable, Equatable, Sendable {
    var owner: Profile
    var plan: String
    @UnknownKeys var others: [String: JSON]
  }

  /// No `@UnknownKeys`: unaffected.
  struct Plain: Codable, Equatable, Sendable {
    var id: Int
  }

  static let policies: [DecodingPolicy] = [.strict, .lenient]

  static func object(_ text: String) throws -> [String: JSON] {
    guard case .object(let object) = try JSON(data: Data(text.utf8)) else { return [:] }
    return Dictionary(object.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
  }

  @Test(arguments: policies)
  func keepsEveryKeyNoPropertyReads(policy: DecodingPolicy) throws {
    let json =
      #"{"id":1,"firstName":"Ada","role":"admin","tags":[1,{"a":null}],"id2":2.50,"role":"dup"}"#
    let decoded = try LenientDecoder(policy: policy).decodeWithReport(Profile.self, from: json)
    #expect(decoded.value.id == 1)
    #expect(decoded.value.firstName == "Ada")
    #expect(
      decoded.value.others
        == (try Self.object(#"{"role":"admin","tags":[1,{"a":null}],"id2":2.50}"#)))
    #expect(decoded.report.isEmpty)
  }

  @Test(arguments: policies)
  func afterConvertFromSnakeCase(policy: DecodingPolicy) throws {
    var decoder = LenientDecoder(policy: policy)
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let json = #"{"id":1,"first_name":"Ada","last_name":"Lovelace","others":true}"#
    let profile = try decoder.decode(Profile.self, from: json)
    #expect(profile.firstName == "Ada")
    // Kept as written in the JSON; a key spelled like the wrapped property is kept too.
    #expect(profile.others == (try Self.object(#"{"last_name":"Lovelace","others":true}"#)))
  }

  @Test(arguments: policies)
  func afterKeyMappings(policy: DecodingPolicy) throws {
    var decoder = LenientDecoder(policy: policy)
    decoder.map(Profile.self, key: "firstName", to: "profile.given", "given")
    let json = #"{"id":1,"profile":{"given":"Ada"},"firstName":"unread","given":"alt","extra":0}"#
    let profile = try decoder.decode(Profile.self, from: json)
    #expect(profile.firstName == "Ada")
    // The mapped paths' keys are read; the model's own key, mapped elsewhere, is not.
    #expect(profile.others == (try Self.object(#"{"firstName":"unread","extra":0}"#)))
  }

  @Test(arguments: policies)
  func nestedModelsKeepTheirOwn(policy: DecodingPolicy) throws {
    let json = #"{"owner":{"id":1,"firstName":"A","x":1},"plan":"pro","y":[true]}"#
    let account = try LenientDecoder(policy: policy).decode(Account.self, from: json)
    #expect(account.owner.others == (try Self.object(#"{"x":1}"#)))
    #expect(account.others == (try Self.object(#"{"y":[true]}"#)))
  }

  /// decode → change one field → encode keeps what the server sent, sorted with the rest.
  @Test func roundTripKeepsUnknownKeys() throws {
    let json =
      #"{"plan":"pro","z":null,"owner":{"firstName":"A","id":1,"b":"x","a":1.50},"m":{"k":[]}}"#
    var account = try LenientDecoder().decode(Account.self, from: json)
    account.plan = "free"
    var encoder = ModelEncoder()
    encoder.outputFormatting = [.sortedKeys]
    #expect(
      try encoder.encodeString(account)
        == #"{"m":{"k":[]},"owner":{"a":1.50,"b":"x","firstName":"A","id":1},"plan":"free","z":null}"#
    )
    let again = try LenientDecoder(policy: .strict).decode(
      Account.self, from: try encoder.encode(account))
    #expect(again == account)
  }

  @Test func snakeCaseRoundTripWritesKeptKeysAsTheyWere() throws {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let json = #"{"id":1,"first_name":"Ada","last_name":"L"}"#
    let profile = try decoder.decode(Profile.self, from: json)
    var encoder = ModelEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    #expect(try encoder.encodeString(profile) == #"{"first_name":"Ada","id":1,"last_name":"L"}"#)
  }

  /// Foundation decodes the model (`others` empty) and writes nothing for it.
  @Test func foundationDecodesWithNothingKept() throws {
    let json = Data(#"{"id":1,"firstName":"Ada","role":"admin"}"#.utf8)
    let profile = try JSONDecoder().decode(Profile.self, from: json)
    #expect(profile.firstName == "Ada")
    #expect(profile.others.isEmpty)
    var kept = try LenientDecoder().decode(Profile.self, from: json)
    kept.others["more"] = .bool(true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    #expect(
      String(decoding: try encoder.encode(kept), as: UTF8.self) == #"{"firstName":"Ada","id":1}"#)
  }

  @Test(arguments: policies)
  func modelWithoutItIsUnchanged(policy: DecodingPolicy) throws {
    let decoded = try LenientDecoder(policy: policy).decodeWithReport(
      Plain.self, from: #"{"id":1,"x":2}"#)
    #expect(decoded.value == Plain(id: 1))
    #expect(decoded.report.isEmpty)
  }
}
