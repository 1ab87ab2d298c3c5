import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `Link` header and the links it must give.
struct LinkCase: Sendable, CustomTestStringConvertible {
  var name: String
  var header: String
  var links: [String: String]
  var testDescription: String { name }
}

private let base = URL(string: "https://api.example.com/v1/repos?page=1")

private func response(_ link: String, request: URL? = base) -> Response {
  Response(
    statusCode: 200, headers: ["link": link], data: Data(),
    request: request.map { URLRequest(url: $0) })
}

@Suite struct LinkHeaderTests {
  static let cases: [LinkCase] = [
    .init(
      name: "GitHub's header",
      header: #"<https://api.example.com/v1/repos?page=2>; rel="next", "#
        + #"<https://api.example.com/v1/repos?page=5>; rel="last""#,
      links: [
        "next": "https://api.example.com/v1/repos?page=2",
        "last": "https://api.example.com/v1/repos?page=5",
      ]),
    .init(
      name: "relative references resolved against the request",
      header: #"</v1/repos?page=2>; rel=next, <repos?page=0>; rel=prev, <?page=9>; rel=last"#,
      links: [
        "next": "https://api.example.com/v1/repos?page=2",
        "prev": "https://api.example.com/v1/repos?page=0",
        "last": "https://api.example.com/v1/repos?page=9",
      ]),
    .init(
      name: "several rel types, any case",
      header: #"<https://a.example/2>; REL="Next Alternate  https://ex.example/rel""#,
      links: [
        "next": "https://a.example/2", "alternate": "https://a.example/2",
        "https://ex.example/rel": "https://a.example/2",
      ]),
    .init(
      name: "commas and semicolons in quotes and in the reference",
      header:
        #"<https://a.example/p;v=1?a=1,2>; title="x, y; z"; rel="next", <https://a.example/l>; rel=last"#,
      links: ["next": "https://a.example/p;v=1?a=1,2", "last": "https://a.example/l"]),
    .init(
      name: "an escaped quote in a parameter",
      header: #"<https://a.example/2>; title="say \"hi\", then"; rel="next""#,
      links: ["next": "https://a.example/2"]),
    .init(
      name: "only the first rel of a link counts",
      header: #"<https://a.example/2>; rel="next"; rel="prev""#,
      links: ["next": "https://a.example/2"]),
    .init(
      name: "the first link of a type wins",
      header: #"<https://a.example/2>; rel="next", <https://a.example/3>; rel="next""#,
      links: ["next": "https://a.example/2"]),
    .init(
      name: "garbage around links is skipped",
      header: #"nonsense, <https://a.example/2>; rel=next, <>; rel=self, <https://a.example/x"#,
      links: ["next": "https://a.example/2", "self": "https://api.example.com/v1/repos?page=1"]),
    .init(
      name: "every scheme is kept (pages refuses to follow what is not http(s))",
      header:
        "<file:///etc/passwd>; rel=next, <ftp://x/>; rel=prev, <javascript:alert(1)>; rel=last",
      links: ["next": "file:///etc/passwd", "prev": "ftp://x/", "last": "javascript:alert(1)"]),
    .init(name: "empty", header: "", links: [:]),
  ]

  @Test(arguments: cases)
  func theLinkHeaderIsParsedPerRFC8288(_ test: LinkCase) {
    let links = response(test.header).links.mapValues(\.absoluteString)
    #expect(links == test.links)
  }

  @Test func aRelativeLinkWithoutARequestIsLeftOut() {
    let links = response(#"</page/2>; rel="next", <https://a.example/9>; rel="last""#, request: nil)
      .links
    #expect(links.mapValues(\.absoluteString) == ["last": "https://a.example/9"])
  }

  @Test func noLinkHeaderIsNoLinks() {
    #expect(Response(statusCode: 200, data: Data()).links.isEmpty)
  }

  /// Generated headers: random links (absolute or relative, with quoted parameters full of
  /// separators, rel types in random case), written as one field; the parse must give each
  /// link's first type, resolved as Foundation resolves it.
  @Test func generatedLinkHeadersParseToTheirLinks() throws {
    var generator = SeededGenerator(seed: 0x5EED_1157)
    let types = ["next", "prev", "last", "first", "alternate", "self"]
    for round in 0..<300 {
      var written: [String] = []
      var expected: [String: String] = [:]
      for index in 0..<Int.random(in: 0...5, using: &generator) {
        let path = "/r\(round)/\(index)?page=\(index),\(Int.random(in: 0...9, using: &generator))"
        let absolute = Bool.random(using: &generator)
        let reference = absolute ? "https://h\(index).example\(path)" : path
        let rels = (0..<Int.random(in: 1...2, using: &generator)).map { _ in
          types.randomElement(using: &generator) ?? "next"
        }
        let relText = rels.map { Bool.random(using: &generator) ? $0.uppercased() : $0 }
          .joined(separator: " ")
        var parameters = [#"rel="\#(relText)""#]
        if Bool.random(using: &generator) { parameters.insert(#"title="a, b; <c>""#, at: 0) }
        if Bool.random(using: &generator) { parameters.append("type=text/html") }
        written.append("<\(reference)>; " + parameters.joined(separator: "; "))
        let resolved = try #require(URL(string: reference, relativeTo: base)?.absoluteString)
        for rel in rels where expected[rel] == nil { expected[rel] = resolved }
      }
      let header = written.joined(separator: Bool.random(using: &generator) ? ", " : ",")
      let links = response(header).links.mapValues(\.absoluteString)
      #expect(links == expected, "header: \(header)")
    }
  }
}

extension LinkHeaderTests {
  /// Generated garbage from the characters that matter to the parser (separators, quotes,
  /// escapes, brackets): never a crash, and every link found is absolute.
  @Test func generatedGarbageGivesOnlyAbsoluteLinksAndNeverCrashes() {
    var generator = SeededGenerator(seed: 0xBAD_11E4)
    let alphabet = Array(#"<>;,="\ relnxt/?:.ahp"#)
    for _ in 0..<2_000 {
      let header = String(
        (0..<Int.random(in: 0...40, using: &generator)).map { _ in
          alphabet.randomElement(using: &generator) ?? " "
        })
      for url in response(header).links.values {
        #expect(url.scheme != nil, "header: \(header)")
      }
    }
  }
}
