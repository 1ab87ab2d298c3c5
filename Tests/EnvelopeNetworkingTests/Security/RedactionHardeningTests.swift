import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The secret planted in hostile inputs.
private let planted = "S3CR3TPLANTED"

/// Hostile bodies of 256 KB: each redacts in linear time, and the secret planted in it stays
/// hidden. Serialized, so that each is timed alone. The old scan took 49 s for 64 KB of one of
/// these shapes (it grew with the square or the cube of the size); the linear one takes
/// 0.3-1.3 s for 1 MB in a debug build on a loaded machine, and up to 1.1 s for 256 KB in a full
/// run beside five CPU-bound processes, so a 20 s bound at 256 KB (about 800 s for the old scan)
/// tells the two apart with room for ten times that load. (It was 8 s.) Not 1 MB: these synchronous tests hold a thread of the
/// two-wide cooperative pool, and at 1 MB they starved the loopback tests running beside them.
@Suite(.serialized) struct RedactionTimeTests {
  /// Shapes that made the old scan quadratic or cubic, each about 256 KB, the secret at the end.
  static let shapes: [String] = [
    "a=", "x=%41=", "%41=", "token=<", "a=\"", "k: ", "https://", "=&", "abcdef=", "%FF=",
    "\"ab\":",
    // An OAuth `code` is secret by the pairs around it: still one scan of each stretch.
    "code=", "grant_type=", "code=&state=", "state= code=", "code=x&",
  ]

  static func hostile(_ shape: String) -> String {
    let count = 256_000 / shape.utf8.count
    return "x=" + String(repeating: shape, count: count) + "&password=\(planted)"
  }

  @Test(arguments: shapes)
  func aHostileBodyRedactsInLinearTime(shape: String) {
    let data = Data(Self.hostile(shape).utf8)
    let clock = ContinuousClock()
    var text = ""
    let elapsed = clock.measure { text = Redaction.default.bodyText(data) }
    print("REDACTION-TIME \(shape.debugDescription) \(data.count) bytes: \(elapsed)")
    #expect(elapsed < .seconds(20), "\(shape.debugDescription): \(elapsed)")
    #expect(!text.contains(planted))
  }

  @Test(arguments: shapes)
  func aHostileQueryRedactsInLinearTime(shape: String) {
    let query = Self.hostile(shape)
    let clock = ContinuousClock()
    var text = ""
    let elapsed = clock.measure { text = Redaction.default.query(query) }
    print("QUERY-TIME \(shape.debugDescription) \(query.utf8.count) bytes: \(elapsed)")
    #expect(elapsed < .seconds(20), "\(shape.debugDescription): \(elapsed)")
    #expect(!text.contains(planted))
  }

  /// A JSON object of many distinct members named `code` as compared (`c-_ode`, `c.-ode`, …:
  /// the parser keeps one member per exact name), about 256 KB, none beside an OAuth marker:
  /// each `code` looked through the whole object for a marker, so the redaction was quadratic
  /// in the members.
  @Test func aJSONObjectOfManyCodesRedactsInLinearTime() {
    var members: [String] = []
    var size = 0
    var number = 0
    while size < 256_000 {
      // `number` in base 3, as separators between `c` and `ode` (at most 12: 16 bytes).
      var separators = ""
      var rest = number
      repeat {
        separators.append(["-", "_", "."][rest % 3])
        rest /= 3
      } while rest > 0
      let member = "\"c\(separators)ode\":\(number)"
      members.append(member)
      size += member.utf8.count + 1
      number += 1
    }
    let body = "{" + members.joined(separator: ",") + ",\"password\":\"\(planted)\"}"
    let data = Data(body.utf8)
    let clock = ContinuousClock()
    var text = ""
    let elapsed = clock.measure { text = Redaction.default.bodyText(data) }
    print("JSON-CODES-TIME \(members.count) members, \(data.count) bytes: \(elapsed)")
    #expect(elapsed < .seconds(20), "\(elapsed)")
    #expect(!text.contains(planted))
    #expect(text.hasPrefix("{\"c-ode\":0,\"c_ode\":1,"), "an envelope's code stays readable")
  }

  /// An error's description (what logs print) of a hostile body is quick and hides the
  /// secret at its start.
  @Test(arguments: shapes)
  func anErrorDescriptionOfAHostileBodyIsQuick(shape: String) throws {
    let body = Data(("password=\(planted)&" + Self.hostile(shape)).utf8)
    let url = try #require(URL(string: "https://a.test/"))
    let error = ProviderError.status(
      Response(statusCode: 500, data: body, request: URLRequest(url: url)))
    let clock = ContinuousClock()
    var text = ""
    let elapsed = clock.measure { text = error.description }
    print("PREVIEW-TIME \(shape.debugDescription) \(body.count) bytes: \(elapsed)")
    #expect(elapsed < .seconds(20), "\(shape.debugDescription): \(elapsed)")
    #expect(!text.contains(planted))
  }
}

/// An error's body preview redacts the start of a huge body only, and hides what it cuts.
@Suite struct BodyPreviewTests {
  func preview(_ body: Data) throws -> String {
    let url = try #require(URL(string: "https://a.test/"))
    return Response(statusCode: 500, data: body, request: URLRequest(url: url)).bodyPreview
  }

  @Test func anErrorOfAHugeBodyRedactsOnlyItsStart() throws {
    let body = Data(("password=\(planted)&" + String(repeating: "a=", count: 4_000_000)).utf8)
    let clock = ContinuousClock()
    var text = ""
    let elapsed = try clock.measure { text = try preview(body) }
    print("PREVIEW-TIME 8 MB: \(elapsed)")
    #expect(elapsed < .seconds(3))
    #expect(!text.contains(planted))
    #expect(text.hasPrefix("password=%3Credacted%3E&a=a=a="))
  }

  /// The preview reads the first 64 KB only: a JSON body that is whole only past 64 KB and
  /// names a secret previews as its cut start does (JSON cut short, withheld), not as the whole
  /// body does (JSON, redacted), so a preview that read the whole body fails here at any speed.
  @Test func aPreviewReadsOnlyTheFirst64KB() throws {
    let json =
      #"{"password":""# + planted + #"","pad":""# + String(repeating: "a", count: 70_000)
      + #""}"#
    let body = Data(json.utf8)
    let cut = Redaction.default.bodyText(body.prefix(65_536))
    let whole = Redaction.default.bodyText(body)
    // The two readings differ in what a preview shows (its first 500 characters).
    try #require(cut.prefix(500) != whole.prefix(500))
    let text = try preview(body)
    #expect(text == (cut.count > 500 ? String(cut.prefix(500)) + "…" : cut))
    #expect(!text.contains(planted))
  }

  @Test(arguments: [65_536 - 8, 65_536 - 3, 65_536, 65_536 + 3])
  func aSecretCutAtTheLimitStaysHidden(_ offset: Int) throws {
    let filler = String(repeating: "b", count: offset)
    let form = "x=" + filler + "&password=" + planted + "&y=1"
    #expect(!(try preview(Data(form.utf8))).contains(planted))
    let json = "{\"x\":\"" + filler + "\",\"token\":\"" + planted + "\"}"
    #expect(!(try preview(Data(json.utf8))).contains(planted))
    let text = "é" + filler + " token=" + planted
    #expect(!(try preview(Data(text.utf8))).contains(planted))
  }
}

/// Secrets in URLs and in text, whatever they are surrounded by.
@Suite struct RedactionValueTests {
  @Test(arguments: [
    "https://x.test/cb#access_token=\(planted)&token_type=bearer",
    "https://x.test/login?password=ab'\(planted)",
    "https://x.test/login?password=ab;\(planted)",
    "https://x.test/login?password=ab,\(planted)",
    "https://x.test/login?password=%22\(planted)",
    "https://x.test/login?password=%3C\(planted)",
    "https://x.test/a?access%5Ftoken=\(planted)",
    "https://x.test/a?ACCESS-TOKEN=\(planted)",
    "https://x.test/a?next=https%253A%252F%252Fy%252F%253Faccess_token%253D\(planted)",
    "https://x.test/a?auth_token=\(planted)",
    "https://x.test/a?session_token=\(planted)",
    "https://x.test/a?%%%token=\(planted)",
  ])
  func aSecretInAURLIsRedactedWholeInTheQueryAndTheFragment(_ text: String) throws {
    let url = try #require(URL(string: text))
    let written = Redaction.default.url(url)
    #expect(!written.contains(planted), "\(text) -> \(written)")
  }

  @Test func theFragmentKeepsItsOtherItems() throws {
    let url = try #require(URL(string: "https://x.test/cb#access_token=abc&token_type=bearer&s=1"))
    #expect(
      Redaction.default.url(url)
        == "https://x.test/cb#access_token=%3Credacted%3E&token_type=%3Credacted%3E&s=1")
  }

  @Test(arguments: [
    "login failed: password=\"\(planted)\" for ada",
    "cfg api_key='\(planted)' ok",
    "cfg token=<\(planted)> ok",
    "cfg token= \(planted) ok",
    "see https://admin:\(planted)@db.internal/x",
    "bad payload: {\"access_token\":\"\(planted)\"}",
    "bad payload: {\\\"access_token\\\":\\\"\(planted)\\\"}",
    "Authorization: Bearer \(planted)",
    "password: \(planted)",
    "x https://x.test/login?password=ab'\(planted)",
  ])
  func aSecretInAJSONStringIsRedacted(_ text: String) {
    var object = JSONObject()
    object.append("message", .string(text))
    let written = Redaction.default.bodyText(Data(JSON.object(object).rawText.utf8))
    #expect(!written.contains(planted), "\(text) -> \(written)")
  }

  @Test(arguments: [
    "see https://admin:\(planted)@db.internal/x",
    "password=ab'\(planted)&x=1",
    "{\"message\":\"bad payload: {\\\"access_token\\\":\\\"\(planted)\\\"}\"}",
    "{\"message\":\"bad {\\\"access_token\\\":\\\"\(planted)\\\" (truncated\"}",
    "{\"note\":\"Authorization: Bearer \(planted)\"}",
    "{\"u\":\"https://admin:p#\(planted)@db.internal/x\"}",
    "{\"u\":\"https://admin:p&\(planted)@db.internal/x\"}",
    "{\"u\":\"https://admin:p'\(planted)@db.internal/x\"}",
  ])
  func aSecretInABodyIsRedacted(_ text: String) {
    let written = Redaction.default.bodyText(Data(text.utf8))
    #expect(!written.contains(planted), "\(text) -> \(written)")
  }

  @Test func plainTextWithAURLKeepsTheTextWithoutTheCredentials() {
    #expect(
      Redaction.default.bodyText(Data("see https://admin:pw1@db.internal/x".utf8))
        == "see https://db.internal/x")
  }

  @Test func aNonSecretValueIsKept() {
    #expect(Redaction.default.query("a=b'c&d=e%20f") == "a=b'c&d=e%20f")
  }
}

/// A body that is not UTF-8 is no way around redaction.
@Suite struct RedactionNotUTF8Tests {
  @Test func aLatin1FormBodyIsRecordedWithoutItsPassword() {
    var data = Data("password=\(planted)&name=J".utf8)
    data.append(0xE9)  // é in ISO-8859-1
    let interaction = Interaction(request: nil, status: 200, headers: [:], body: data)
    let file = String(decoding: interaction.fileContents(), as: UTF8.self)
    #expect(!file.contains(data.base64EncodedString()), "\(file)")
    #expect(!file.contains(planted), "\(file)")
    #expect(!Redaction.default.bodyText(data).contains(planted))
  }

  @Test func jsonWithOneBadByteIsNotKeptAsBytes() {
    var data = Data("{\"token\":\"\(planted)\",\"n\":\"".utf8)
    data.append(0xFF)
    data.append(contentsOf: Array("\"}".utf8))
    let body = Redaction.default.body(data)
    if case .binary = body { Issue.record("kept as bytes: \(body)") }
    let interaction = Interaction(request: nil, status: 200, headers: [:], body: data)
    let file = String(decoding: interaction.fileContents(), as: UTF8.self)
    #expect(!file.contains(data.base64EncodedString()))
  }

  @Test func bytesThatNameNoSecretAreKept() {
    #expect(Redaction.default.body(Data([0xFF, 0x00, 0x41])) == .binary(Data([0xFF, 0x00, 0x41])))
  }
}

/// Secret names beyond the list: any name that holds a credential word.
@Suite struct SecretNameRuleTests {
  @Test(arguments: [
    "auth_token", "session_token", "newPassword", "PRIVATE-TOKEN", "X-Access-Token", "passwd",
    "client-secret", "OPENAI_API_KEY", "credentials", "x-csrf-token", "auth",
    "Ocp-Apim-Subscription-Key", "x-functions-key", "X-Amz-Signature", "JSESSIONID", "PHPSESSID",
  ])
  func aNameHoldingACredentialWordIsSecret(_ name: String) {
    #expect(Redaction.default.isSecret(name: name))
    let body = Data("{\"\(name)\":\"\(planted)\"}".utf8)
    #expect(!Redaction.default.bodyText(body).contains(planted))
  }

  @Test(arguments: ["author", "authority", "max_tokens", "prompt_tokens", "page", "monkey"])
  func anOrdinaryNameIsNotSecret(_ name: String) {
    #expect(!Redaction.default.isSecret(name: name))
  }

  @Test func aRevealedNameStaysInClearEvenWhenItHoldsAWord() {
    #expect(!Redaction(revealing: ["next_page_token"]).isSecret(name: "nextPageToken"))
    #expect(Redaction(revealing: ["next_page_token"]).isSecret(name: "auth_token"))
  }
}
