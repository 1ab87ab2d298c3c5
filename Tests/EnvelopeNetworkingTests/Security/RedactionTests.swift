import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct RedactionTests {
  let redaction = Redaction(headers: ["X-Session"], queryItems: ["sig"], fields: ["ssn"])

  @Test(arguments: [
    ("Authorization", true), ("proxy-authorization", true), ("COOKIE", true), ("Set-Cookie", true),
    ("X-Api-Key", true), ("x-session", true), ("Accept", false), ("X-Request-Id", false),
  ])
  func secretHeaders(name: String, secret: Bool) {
    #expect(redaction.isSecret(header: name) == secret)
    #expect(redaction.header(name, "v") == (secret ? "<redacted>" : "v"))
  }

  @Test func queryItemsKeepTheirNamesAndOrder() throws {
    let url = try #require(
      URL(string: "https://u:pw@x.test/a?b=1&access_token=t1&Token=t2&key=k&sig=s&password=p&b=2"))
    #expect(
      redaction.url(url)
        == "https://x.test/a?b=1&access_token=%3Credacted%3E&Token=%3Credacted%3E&key=%3Credacted%3E"
        + "&sig=%3Credacted%3E&password=%3Credacted%3E&b=2")
  }

  @Test func jsonFieldsAtAnyDepthAndInsideStringifiedJSON() throws {
    let body = Data(
      #"""
      {"user":{"name":"ada","Password":"p1","ssn":"123","list":[{"refresh_token":"r1"}]},
       "meta":"{\"secret\":\"s1\",\"ok\":1}","Authorization":"Bearer b1","token":null}
      """#.utf8)
    guard case .json(let json) = redaction.body(body) else {
      Issue.record("a JSON body stays JSON")
      return
    }
    let text = json.rawText
    for secret in ["p1", "123", "r1", "s1", "b1"] { #expect(!text.contains(secret)) }
    #expect(text.contains("\"name\":\"ada\""))
    #expect(json["meta"]?.stringValue == #"{"secret":"<redacted>","ok":1}"#)
    #expect(json["token"]?.stringValue == "<redacted>")
  }

  @Test func formBodiesAreRedactedItemByItem() {
    #expect(
      Redaction.default.body(Data("user=ada&password=hunter2".utf8))
        == .text("user=ada&password=%3Credacted%3E"))
  }

  @Test func textThatMayHoldASecretIsWithheld() {
    let text = Data("your token is hunter2".utf8)
    guard case .withheld(let placeholder) = Redaction.default.body(text) else {
      Issue.record("text naming a secret is withheld")
      return
    }
    // Its size alone: no hash of a secret, which a dictionary would find again.
    #expect(placeholder == "<redacted body: 21 bytes>")
    #expect(!placeholder.contains("hunter2"))
    // Plain text naming nothing secret is kept; with fields of your own, no text is kept.
    let page = Data("<h1>500 Internal Server Error</h1>".utf8)
    #expect(Redaction.default.body(page) == .text("<h1>500 Internal Server Error</h1>"))
    guard case .withheld = redaction.body(page) else {
      Issue.record("named fields withhold every non-JSON body")
      return
    }
    #expect(Redaction.default.body(Data([0xFF, 0x00])) == .binary(Data([0xFF, 0x00])))
  }

  @Test func reportEntriesOnSecretPathsLoseTheirSnippet() {
    let entry = DecodingReport.Entry(
      path: "data.user.token", kind: .coerced, expected: "String", found: "number 123456")
    #expect(redaction.entry(entry).found == "number <redacted>")
    let plain = DecodingReport.Entry(
      path: "data.items[2].id", kind: .coerced, expected: "Int", found: "string \"18\"")
    #expect(redaction.entry(plain) == plain)
  }

  @Test func cURLDescriptionRedactsHeadersQueryAndBody() throws {
    var request = URLRequest(url: try #require(URL(string: "https://x.test/login?token=t9&a=1")))
    request.httpMethod = "POST"
    request.setValue("Bearer b9", forHTTPHeaderField: "Authorization")
    request.setValue("s9", forHTTPHeaderField: "X-Session")
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"name":"it's","password":"p9"}"#.utf8)
    let curl = request.cURLDescription(redacting: ["X-Session"])
    for secret in ["t9", "b9", "s9", "p9"] { #expect(!curl.contains(secret)) }
    #expect(curl.hasPrefix("curl -X POST 'https://x.test/login?token=%3Credacted%3E&a=1'"))
    #expect(curl.contains("-H 'Content-Type: application/json'"))
    #expect(curl.contains(#"--data-raw '{"name":"it'\''s","password":"<redacted>"}'"#))
  }
}
