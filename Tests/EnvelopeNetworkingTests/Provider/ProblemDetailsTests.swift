import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

@Suite struct ProblemDetailsTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var expected: ProblemDetails
    var testDescription: String { name }
  }

  @Test(arguments: [
    Case(
      name: "RFC 9457's example",
      body: #"""
        {"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.",
         "detail":"Your current balance is 30, but that costs 50.",
         "instance":"/account/12345/msgs/abc","balance":30,
         "accounts":["/account/12345","/account/67890"]}
        """#,
      expected: ProblemDetails(
        type: "https://example.com/probs/out-of-credit", title: "You do not have enough credit.",
        detail: "Your current balance is 30, but that costs 50.",
        instance: "/account/12345/msgs/abc",
        extensions: [
          "balance": .number(JSONNumber(30)),
          "accounts": .array([.string("/account/12345"), .string("/account/67890")]),
        ])),
    Case(
      name: "no type is about:blank", body: #"{"status":404,"title":"Not Found"}"#,
      expected: ProblemDetails(title: "Not Found", status: 404)),
    Case(
      name: "members of the wrong kind are ignored",
      body: #"{"type":7,"title":["x"],"status":"404","detail":null,"instance":{},"x":true}"#,
      expected: ProblemDetails(extensions: ["x": .bool(true)])),
    Case(name: "an empty object", body: "{}", expected: ProblemDetails()),
  ])
  func readsStandardAndExtensionMembers(_ test: Case) throws {
    #expect(
      try LenientDecoder().decode(ProblemDetails.self, from: Data(test.body.utf8)) == test.expected)
    #expect(
      try JSONDecoder().decode(ProblemDetails.self, from: Data(test.body.utf8)) == test.expected)
  }

  /// Extension member names are the server's, whatever the decoder's key strategy.
  @Test func extensionNamesIgnoreTheKeyStrategy() throws {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let problem = try decoder.decode(
      ProblemDetails.self, from: Data(#"{"title":"t","invalid_params":[]}"#.utf8))
    #expect(problem.extensions.keys.sorted() == ["invalid_params"])
  }

  @Test func anythingButAnObjectIsNotProblemDetails() {
    for body in ["[]", "\"x\"", "1", "null"] {
      #expect(throws: DecodingError.self, "\(body)") {
        try JSONDecoder().decode(ProblemDetails.self, from: Data(body.utf8))
      }
    }
  }

  /// `Response.problemDetails` reads a body only when its media type says it is problem
  /// details.
  @Test(arguments: [
    ("application/problem+json", #"{"title":"t"}"#, ProblemDetails(title: "t")),
    ("Application/Problem+JSON; charset=utf-8", #"{"title":"t"}"#, ProblemDetails(title: "t")),
    ("application/json", #"{"title":"t"}"#, nil),
    ("application/problem+json", "[1]", nil),
    ("application/problem+json", "", nil),
    ("application/problem+json", "<html>", nil),
  ])
  func aResponseIsProblemDetailsByItsMediaType(
    type: String, body: String, expected: ProblemDetails?
  ) {
    let response = Response(statusCode: 400, headers: ["content-type": type], data: Data(body.utf8))
    #expect(response.problemDetails == expected)
  }

  @Test func itReadsWellWhenPrinted() {
    let problem = ProblemDetails(
      type: "https://example.com/probs/out-of-credit", title: "Out of credit", status: 403,
      detail: "Your balance is 30.")
    #expect(
      problem.description
        == "403 Out of credit: Your balance is 30. (https://example.com/probs/out-of-credit)")
    #expect(problem.localizedDescription == "Your balance is 30.")
    #expect(ProblemDetails().description == "about:blank")
  }
}
