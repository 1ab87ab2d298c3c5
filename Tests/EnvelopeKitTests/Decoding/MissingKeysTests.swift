import Foundation
import Testing

@testable import EnvelopeKit

private struct Token: Decodable, Equatable {
  var accessToken: String
  var refreshToken: String
  var expiresIn: Int
  var scope: String?
}

private struct Profile: Decodable, Equatable {
  var id: Int
  var name: String
  var roles: [String]
  var token: Token
}

private struct Preferences: LenientDecodable, Equatable {
  var theme = "light"
  var beta = false
}

private class Animal: Decodable {
  let legs: Int
}

private final class Dog: Animal {
  let name: String
  enum Keys: String, CodingKey { case name }
  required init(from decoder: any Decoder) throws {
    name = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .name)
    try super.init(from: decoder.container(keyedBy: Keys.self).superDecoder())
  }
}

/// A model that forgives its token itself.
private struct Session: Decodable {
  var token: Token?
  var count: Int
  var ids: [Int]
  enum CodingKeys: String, CodingKey { case token, count, ids }
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    token = try? container.decode(Token.self, forKey: .token)
    count = try container.decode(Int.self, forKey: .count)
    ids = try container.decode([Int].self, forKey: .ids)
  }
}

/// The error a decode threw, as `keyNotFound path`, `valueNotFound path` or `value`.
private func outcome<T>(_ decode: () throws -> T) -> String {
  do {
    _ = try decode()
    return "value"
  } catch DecodingError.keyNotFound(let key, let context) {
    return "keyNotFound " + (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
  } catch DecodingError.valueNotFound(_, let context) {
    return "valueNotFound " + context.codingPath.map(\.stringValue).joined(separator: ".")
  } catch {
    return "other \(error)"
  }
}

@Suite struct MissingKeysTests {
  static let tokenWithoutKeys = Data(
    #"{"access_token":"a","refresh_token":"r","expires_in":"60"}"#.utf8)

  @Test func missingKeysFallBackByDefault() throws {
    let result = try LenientDecoder().decodeWithReport(Token.self, from: Self.tokenWithoutKeys)
    #expect(result.value.accessToken == "")
    #expect(result.report.entries.map(\.kind).allSatisfy { $0 == .defaulted })
  }

  @Test func missingKeysErrorThrowsKeyNotFoundForAnAbsentKey() {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    #expect(
      outcome { try decoder.decode(Token.self, from: Self.tokenWithoutKeys) }
        == "keyNotFound accessToken")
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    // With the keys found, a kind mismatch still coerces (expires_in "60"), reported.
    let result = try? decoder.decodeWithReport(Token.self, from: Self.tokenWithoutKeys)
    #expect(result?.value == Token(accessToken: "a", refreshToken: "r", expiresIn: 60, scope: nil))
    #expect(result?.report.entries.map(\.kind) == [.coerced])
  }

  @Test func missingKeysErrorThrowsValueNotFoundForNull() {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let body = Data(#"{"access_token":null,"refresh_token":"r","expires_in":1}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: body) } == "valueNotFound accessToken")
    let nested = Data(
      #"{"id":1,"name":"n","roles":null,"token":{"access_token":"a","refresh_token":"r","expires_in":1}}"#
        .utf8)
    #expect(outcome { try decoder.decode(Profile.self, from: nested) } == "valueNotFound roles")
    let missingObject = Data(#"{"id":1,"name":"n","roles":[]}"#.utf8)
    #expect(
      outcome { try decoder.decode(Profile.self, from: missingObject) } == "keyNotFound token")
  }

  @Test func optionalsStayOptionalUnderMissingKeysError() throws {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let body = Data(#"{"access_token":"a","refresh_token":"r","expires_in":1,"scope":null}"#.utf8)
    let result = try decoder.decodeWithReport(Token.self, from: body)
    #expect(result.value.scope == nil)
    #expect(result.report.isEmpty)
  }

  @Test func requireMakesOneModelsKeysRequired() {
    var decoder = LenientDecoder()
    decoder.require(Token.self, keys: "refreshToken")
    let body = Data(#"{"accessToken":"a","expiresIn":1}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: body) } == "keyNotFound refreshToken")
    // Other keys still fall back.
    let onlyRefresh = Data(#"{"refreshToken":"r"}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: onlyRefresh) } == "value")
    // All non-optional keys when none is named.
    var all = LenientDecoder()
    all.require(Token.self)
    #expect(outcome { try all.decode(Token.self, from: onlyRefresh) } == "keyNotFound accessToken")
    // Other models are untouched.
    #expect(outcome { try all.decode(Preferences.self, from: Data("{}".utf8)) } == "value")
  }

  @Test func requireWinsOverADeclaredInitialValue() {
    var decoder = LenientDecoder()
    decoder.require(Preferences.self, keys: "theme")
    #expect(
      outcome { try decoder.decode(Preferences.self, from: Data(#"{"beta":true}"#.utf8)) }
        == "keyNotFound theme")
    #expect(
      (try? decoder.decode(Preferences.self, from: Data(#"{"theme":"dark"}"#.utf8)))?.theme
        == "dark")
  }

  @Test func requiredKeysApplyAtKeyPathsAndInEnvelopes() {
    var decoder = LenientDecoder()
    decoder.require(Token.self)
    let body = Data(#"{"code":0,"data":{"accessToken":"a","expiresIn":1}}"#.utf8)
    #expect(
      outcome { try decoder.decode(Token.self, from: body, at: "data") }
        == "keyNotFound data.refreshToken")
    #expect(
      outcome { try decoder.decodeEnvelope(Token.self, from: body) }
        == "keyNotFound data.refreshToken")
    #expect(
      outcome { try decoder.decode(RootModel<Token>.self, from: body) }
        == "keyNotFound data.refreshToken")
    #expect(
      outcome {
        try decoder.decodeEnvelope(
          [Token].self, from: Data(#"{"code":0,"data":[{"accessToken":"a"}]}"#.utf8))
      } == "keyNotFound data.Index 0.refreshToken")
  }

  @Test func requiredKeysApplyToMappedAndTransformedKeys() {
    var decoder = LenientDecoder()
    decoder.require(Token.self, keys: "accessToken", "expiresIn")
    decoder.map(Token.self, key: "accessToken", to: "auth.token", "access")
    decoder.transform(
      Token.self, key: "expiresIn",
      .integerText(expected: "seconds"))
    let present = Data(#"{"access":"a","refreshToken":"r","expiresIn":"5"}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: present) } == "value")
    let noToken = Data(#"{"refreshToken":"r","expiresIn":5}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: noToken) } == "keyNotFound auth.token")
    let noExpiry = Data(#"{"access":"a","refreshToken":"r"}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: noExpiry) } == "keyNotFound expiresIn")
  }

  @Test func missingKeysErrorCoversEveryKeyEvenWithARequireForTheModel() {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    decoder.require(Token.self, keys: "refreshToken")
    let body = Data(#"{"refreshToken":"r","expiresIn":1}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: body) } == "keyNotFound accessToken")
  }

  @Test func missingKeysErrorOverridesDeclaredValues() {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    #expect(
      outcome {
        try decoder.decode(Preferences.self, from: Data(#"{"beta":true}"#.utf8))
      } == "keyNotFound theme")
  }

  @Test func aRequiredSuperclassKeyThrowsThroughSuperDecoder() {
    var decoder = LenientDecoder()
    decoder.missingKeys = .error
    let body = Data(#"{"name":"Rex","super":{}}"#.utf8)
    #expect(outcome { try decoder.decode(Dog.self, from: body) } == "keyNotFound super.legs")
    let noSuper = Data(#"{"name":"Rex"}"#.utf8)
    #expect(outcome { try decoder.decode(Dog.self, from: noSuper) }.hasPrefix("valueNotFound"))
  }

  /// A required key's error stops the decode even inside an array, and a model that catches
  /// one itself (`try?`) leaves the rest of the decode lenient.
  @Test func aRequiredKeyStopsTheDecodeButACaughtOneDoesNotPoisonIt() throws {
    var decoder = LenientDecoder()
    decoder.require(Token.self)
    let list = Data(
      #"[{"accessToken":"a","refreshToken":"r","expiresIn":1},{"accessToken":"a"}]"#.utf8)
    #expect(
      outcome { try decoder.decode([Token].self, from: list) } == "keyNotFound Index 1.refreshToken"
    )
    let forgiving = Data(#"{"token":{"accessToken":"a"},"count":"3","ids":[1,"x"]}"#.utf8)
    let result = try decoder.decodeWithReport(Session.self, from: forgiving)
    #expect(result.value.token == nil)
    #expect(result.value.count == 3)
    #expect(result.value.ids == [1])
    #expect(result.report.entries.map(\.kind) == [.coerced, .dropped])
  }

  @Test func aRequiredNullWithATransformIsValueNotFound() {
    var decoder = LenientDecoder()
    decoder.require(Token.self, keys: "expiresIn")
    decoder.transform(Token.self, key: "expiresIn", ValueTransform<Int> { _ in 1 })
    let body = Data(#"{"accessToken":"a","refreshToken":"r","expiresIn":null}"#.utf8)
    #expect(outcome { try decoder.decode(Token.self, from: body) } == "valueNotFound expiresIn")
  }

  @Test func strictIsUnchangedByMissingKeys() {
    var decoder = LenientDecoder(policy: .strict)
    decoder.missingKeys = .error
    let strict = LenientDecoder(policy: .strict)
    for body in [
      Self.tokenWithoutKeys, Data(#"{"accessToken":"a","refreshToken":"r","expiresIn":1}"#.utf8),
    ] {
      #expect(
        outcome { try decoder.decode(Token.self, from: body) }
          == outcome { try strict.decode(Token.self, from: body) })
    }
  }
}
