import Foundation
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A target that only carries a method and a task, for building requests.
struct ParameterTarget: TargetType {
  var method: HTTPMethod = .get
  var task: RequestTask
  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/search" }
}

/// One row of the table: parameters, an encoding, and the query Alamofire documents for them.
struct EncodingCase: Sendable, CustomTestStringConvertible {
  var name: String
  var parameters: [String: any Sendable]
  var encoding: ParameterEncoding = .url
  /// The percent-encoded query text (`""`: no query at all).
  var query: String

  var testDescription: String { name }
}

extension EncodingCase {
  /// Rows marked "Alamofire" carry the parameters and the expected text of a test in
  /// Alamofire's `ParameterEncodingTests.swift` (URLEncoding) or `ParameterEncoderTests.swift`
  /// (URLEncodedFormEncoder); the others follow from the same rules.
  static let table: [EncodingCase] = [
    // MARK: Strings and keys
    EncodingCase(name: "Alamofire: one pair", parameters: ["foo": "bar"], query: "foo=bar"),
    EncodingCase(
      name: "Alamofire: keys sorted", parameters: ["foo": "bar", "baz": "qux"],
      query: "baz=qux&foo=bar"),
    EncodingCase(
      name: "keys sorted by UTF-8 bytes: upper case first",
      parameters: ["b": 1, "a": 2, "B": 3, "é": 4, "_": 5], query: "B=3&_=5&a=2&b=1&%C3%A9=4"),
    // MARK: Numbers
    EncodingCase(name: "Alamofire: Int", parameters: ["foo": 1], query: "foo=1"),
    EncodingCase(name: "negative Int", parameters: ["foo": -1], query: "foo=-1"),
    EncodingCase(name: "Alamofire: Double", parameters: ["foo": 1.1], query: "foo=1.1"),
    EncodingCase(name: "negative Double", parameters: ["foo": -2.5], query: "foo=-2.5"),
    EncodingCase(
      name: "shortest Double text", parameters: ["foo": 0.1 + 0.2],
      query: "foo=0.30000000000000004"),
    EncodingCase(
      name: "Double beyond Int64 keeps its exponent (+ escaped)", parameters: ["foo": 1e20],
      query: "foo=1e%2B20"),
    EncodingCase(name: "small Double", parameters: ["foo": 1e-7], query: "foo=1e-07"),
    EncodingCase(name: "Float", parameters: ["foo": Float(1.1)], query: "foo=1.1"),
    EncodingCase(name: "CGFloat", parameters: ["foo": CGFloat(-0.5)], query: "foo=-0.5"),
    EncodingCase(
      name: "Int64 and UInt64 extremes",
      parameters: ["max": UInt64.max, "min": Int64.min, "small": Int8(-7)],
      query: "max=18446744073709551615&min=-9223372036854775808&small=-7"),
    EncodingCase(
      name: "Alamofire (encoder): Decimal with high precision",
      parameters: ["a": Decimal(string: "1.123456") ?? 0], query: "a=1.123456"),
    EncodingCase(
      name: "Alamofire: NSNumber integer", parameters: ["foo": NSNumber(value: 25)],
      query: "foo=25"),
    EncodingCase(
      name: "Alamofire: NSNumber bool", parameters: ["foo": NSNumber(value: false)],
      query: "foo=0"),
    // MARK: Bools
    EncodingCase(name: "Alamofire: Bool numeric", parameters: ["foo": true], query: "foo=1"),
    EncodingCase(
      name: "Bool numeric false", parameters: ["foo": false], encoding: .url.bools(.numeric),
      query: "foo=0"),
    EncodingCase(
      name: "Alamofire: literal bools do not change numbers",
      parameters: [
        "a": 1, "b": 0, "c": 1.0, "d": 0.0,
        "e": NSNumber(value: 1), "f": NSNumber(value: 0),
        "g": NSNumber(value: 1.0), "h": NSNumber(value: 0.0),
        "i": true, "j": false, "k": NSNumber(value: true), "l": NSNumber(value: false),
      ],
      encoding: .url.bools(.literal),
      query: "a=1&b=0&c=1&d=0&e=1&f=0&g=1&h=0&i=true&j=false&k=true&l=false"),
    // MARK: Arrays
    EncodingCase(
      name: "Alamofire: array with brackets",
      parameters: ["foo": ["a", 1, true] as [any Sendable]],
      query: "foo%5B%5D=a&foo%5B%5D=1&foo%5B%5D=1"),
    EncodingCase(
      name: "Alamofire: array without brackets",
      parameters: ["foo": ["a", 1, true] as [any Sendable]], encoding: .url.arrays(.noBrackets),
      query: "foo=a&foo=1&foo=1"),
    EncodingCase(
      name: "Alamofire: array with index in brackets, dictionaries inside",
      parameters: [
        "foo": [
          "a", 1, true, ["bar": 2], ["qux": 3], ["quy": ["quz": 3]],
        ] as [any Sendable]
      ],
      encoding: .url.arrays(.indexInBrackets),
      query:
        "foo%5B0%5D=a&foo%5B1%5D=1&foo%5B2%5D=1&foo%5B3%5D%5Bbar%5D=2&foo%5B4%5D%5Bqux%5D=3"
        + "&foo%5B5%5D%5Bquy%5D%5Bquz%5D=3"),
    EncodingCase(
      name: "array of arrays with brackets", parameters: ["m": [[1, 2], [3]]],
      query: "m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3"),
    EncodingCase(
      name: "literal bools in an array", parameters: ["f": [true, false]],
      encoding: .url.bools(.literal).arrays(.noBrackets), query: "f=true&f=false"),
    EncodingCase(name: "empty array writes nothing", parameters: ["foo": [Int]()], query: ""),
    EncodingCase(
      name: "empty array beside a value", parameters: ["a": [String](), "b": 1], query: "b=1"),
    // MARK: Dictionaries
    EncodingCase(
      name: "Alamofire: dictionary", parameters: ["foo": ["bar": 1]], query: "foo%5Bbar%5D=1"),
    EncodingCase(
      name: "Alamofire: nested dictionary", parameters: ["foo": ["bar": ["baz": 1]]],
      query: "foo%5Bbar%5D%5Bbaz%5D=1"),
    EncodingCase(
      name: "Alamofire: nested dictionary with an array",
      parameters: ["foo": ["bar": ["baz": ["a", 1, true] as [any Sendable]]]],
      query:
        "foo%5Bbar%5D%5Bbaz%5D%5B%5D=a&foo%5Bbar%5D%5Bbaz%5D%5B%5D=1&foo%5Bbar%5D%5Bbaz%5D%5B%5D=1"
    ),
    EncodingCase(
      name: "Alamofire: nested dictionary with an array without brackets",
      parameters: ["foo": ["bar": ["baz": ["a", 1, true] as [any Sendable]]]],
      encoding: .url.arrays(.noBrackets),
      query: "foo%5Bbar%5D%5Bbaz%5D=a&foo%5Bbar%5D%5Bbaz%5D=1&foo%5Bbar%5D%5Bbaz%5D=1"),
    EncodingCase(
      name: "nested keys sorted too", parameters: ["foo": ["b": 1, "a": 2]],
      query: "foo%5Ba%5D=2&foo%5Bb%5D=1"),
    EncodingCase(
      name: "empty dictionary writes nothing", parameters: ["foo": [String: Int]()], query: ""),
    EncodingCase(name: "no parameters", parameters: [:], query: ""),
    // MARK: nil, and values with one text form
    EncodingCase(
      name: "Alamofire (encoder): nil drops its key",
      parameters: ["a": String?.none, "b": Optional(Optional(1)), "c": NSNull()], query: "b=1"),
    EncodingCase(
      name: "URL, UUID and raw values",
      parameters: [
        "next": URL(string: "https://e.com/a?b=c") ?? URL(fileURLWithPath: "/"),
        "id": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID(),
        "sort": SortParameter.descending,
      ],
      query:
        "id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F&next=https%3A//e.com/a?b%3Dc&sort=desc"),
    // MARK: Escaping (RFC 3986 as Alamofire does it)
    EncodingCase(
      name: "Alamofire: reserved characters escaped but ? and /",
      parameters: ["reserved": ":#[]@!$&'()*+,;="],
      query: "reserved=%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
    EncodingCase(
      name: "Alamofire: ? and / kept", parameters: ["reserved": "?/"], query: "reserved=?/"),
    EncodingCase(
      name: "Alamofire: unreserved kept",
      parameters: [
        "numbers": "0123456789", "lowercase": "abcdefghijklmnopqrstuvwxyz",
        "uppercase": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "marks": "-._~",
      ],
      query:
        "lowercase=abcdefghijklmnopqrstuvwxyz&marks=-._~&numbers=0123456789"
        + "&uppercase=ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    EncodingCase(
      name: "Alamofire: illegal ASCII escaped", parameters: ["illegal": " \"#%<>[]\\^`{}|"],
      query: "illegal=%20%22%23%25%3C%3E%5B%5D%5C%5E%60%7B%7D%7C"),
    EncodingCase(
      name: "Alamofire: ampersands in keys and values",
      parameters: ["foo&bar": "baz&qux", "foobar": "bazqux"],
      query: "foo%26bar=baz%26qux&foobar=bazqux"),
    EncodingCase(
      name: "Alamofire: question marks in keys and values", parameters: ["?foo?": "?bar?"],
      query: "?foo?=?bar?"),
    EncodingCase(
      name: "Alamofire: slashes", parameters: ["foo": "/bar/baz/qux"], query: "foo=/bar/baz/qux"
    ),
    EncodingCase(
      name: "Alamofire: spaces as %20", parameters: [" foo ": " bar "],
      query: "%20foo%20=%20bar%20"),
    EncodingCase(
      name: "Alamofire: pluses", parameters: ["+foo+": "+bar+"], query: "%2Bfoo%2B=%2Bbar%2B"),
    EncodingCase(
      name: "Alamofire (encoder): percents", parameters: ["percent%": "%25"],
      query: "percent%25=%2525"),
    EncodingCase(
      name: "Alamofire: non-Latin text",
      parameters: ["french": "français", "japanese": "日本語", "arabic": "العربية", "emoji": "😃"],
      query:
        "arabic=%D8%A7%D9%84%D8%B9%D8%B1%D8%A8%D9%8A%D8%A9&emoji=%F0%9F%98%83"
        + "&french=fran%C3%A7ais&japanese=%E6%97%A5%E6%9C%AC%E8%AA%9E"),
    EncodingCase(
      name: "Alamofire: thousands of Chinese characters",
      parameters: ["chinese": String(repeating: "一二三四五六七八九十", count: 2_000)],
      query:
        "chinese="
        + String(
          repeating:
            "%E4%B8%80%E4%BA%8C%E4%B8%89%E5%9B%9B%E4%BA%94%E5%85%AD%E4%B8%83%E5%85%AB%E4%B9%9D"
            + "%E5%8D%81", count: 2_000)),
    EncodingCase(
      name: "nested key with reserved characters",
      parameters: ["a b": ["c&d": "e=f"]], query: "a%20b%5Bc%26d%5D=e%3Df"),
  ]
}

enum SortParameter: String, Sendable { case ascending = "asc", descending = "desc" }

@Suite struct ParameterEncodingTests {
  let provider = Provider<ParameterTarget>()

  @Test(arguments: EncodingCase.table)
  func queryMatchesAlamofiresDocumentedEncoding(_ row: EncodingCase) throws {
    let request = try provider.build(
      ParameterTarget(task: .parameters(row.parameters, encoding: row.encoding)))
    let url = try #require(request.url)
    if row.query.isEmpty {
      #expect(url.absoluteString == "https://api.example.com/search")
    } else {
      #expect(
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery == row.query)
    }
    #expect(request.httpBody == nil)
    #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
  }

  // MARK: - Where the parameters go

  @Test(arguments: [HTTPMethod.get, .head, .delete, "get"])
  func urlEncodingPutsParametersInTheQueryForGetHeadAndDelete(_ method: HTTPMethod) throws {
    let request = try provider.build(
      ParameterTarget(method: method, task: .parameters(["foo": 1, "bar": 2], encoding: .url)))
    #expect(request.url?.query == "bar=2&foo=1")
    #expect(request.httpBody == nil)
    #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
  }

  @Test(arguments: [HTTPMethod.post, .put, .patch])
  func urlEncodingWritesAFormBodyForOtherMethods(_ method: HTTPMethod) throws {
    let request = try provider.build(
      ParameterTarget(
        method: method, task: .parameters(["foo": 1, "bar": [2, 3]], encoding: .url)))
    #expect(request.url?.absoluteString == "https://api.example.com/search")
    #expect(
      request.httpBody.map { String(decoding: $0, as: UTF8.self) }
        == "bar%5B%5D=2&bar%5B%5D=3&foo=1")
    // The same content type as a `.form` task.
    let form = try provider.build(ParameterTarget(method: method, task: .form(["a": "b"])))
    #expect(
      request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    #expect(
      request.value(forHTTPHeaderField: "Content-Type")
        == form.value(forHTTPHeaderField: "Content-Type"))
  }

  @Test func queryStringPutsParametersInTheQueryOfAPost() throws {
    let request = try provider.build(
      ParameterTarget(
        method: .post, task: .parameters(["foo": 1, "bar": 2], encoding: .queryString)))
    #expect(request.url?.query == "bar=2&foo=1")
    #expect(request.httpBody == nil)
    #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
  }

  @Test func queryParametersComeBeforeTheTargetsQueryItems() throws {
    struct Paged: TargetType {
      var baseURL: URL {
        URL(string: "https://api.example.com/v1?key=k") ?? URL(fileURLWithPath: "/")
      }
      var path: String { "/items" }
      var task: RequestTask { .parameters(["tags": ["a b", "c"]], encoding: .url) }
      var query: [URLQueryItem] { [URLQueryItem(name: "page", value: "2")] }
    }
    let request = try Provider<Paged>().build(Paged())
    #expect(
      request.url?.absoluteString
        == "https://api.example.com/v1/items?key=k&tags%5B%5D=a%20b&tags%5B%5D=c&page=2")
  }

  @Test func headersOfTheTargetStillWinOverTheContentType() throws {
    struct Custom: TargetType {
      var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
      var path: String { "/x" }
      var method: HTTPMethod { .post }
      var task: RequestTask { .parameters(["a": 1], encoding: .json) }
      var headers: [String: String] { ["Content-Type": "application/vnd.api+json"] }
    }
    let request = try Provider<Custom>().build(Custom())
    #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/vnd.api+json")
    #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"a":1}"#)
  }

  // MARK: - JSON

  @Test func jsonEncodingWritesASortedJSONBody() throws {
    let parameters: [String: any Sendable] = [
      "foo": "bar",
      "baz": ["a", 1, true] as [any Sendable],
      "qux": ["a": 1, "b": [2, 2], "c": [3, 3, 3]] as [String: any Sendable],
      "none": String?.none,
      "price": 1.5,
      "whole": 2.0,
      "text": "é \"q\" /",
    ]
    let request = try provider.build(
      ParameterTarget(
        method: .post, task: .parameters(parameters, encoding: .json.bools(.numeric))))
    let body = try #require(request.httpBody)
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"baz":["a",1,true],"foo":"bar","none":null,"price":1.5,"qux":{"a":1,"b":[2,2],"#
        + #""c":[3,3,3]},"text":"é \"q\" /","whole":2}"#)
    #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    #expect(request.url?.query == nil)
  }

  @Test func jsonEncodingOfNoParametersIsAnEmptyObject() throws {
    let request = try provider.build(
      ParameterTarget(method: .post, task: .parameters([:], encoding: .json)))
    #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == "{}")
  }

  @Test func jsonEncodingWritesTheSameBytesAsAJSONTask() throws {
    struct Body: Encodable, Sendable {
      var name: String
      var tags: [String]
      var size: [String: Int]
    }
    let value = Body(name: "Ada", tags: ["x", "y"], size: ["w": 3, "h": 4])
    let parameters: [String: any Sendable] = [
      "name": "Ada", "tags": ["x", "y"], "size": ["w": 3, "h": 4],
    ]
    let fromParameters = try provider.build(
      ParameterTarget(method: .post, task: .parameters(parameters, encoding: .json)))
    let fromJSON = try provider.build(ParameterTarget(method: .post, task: .json(value)))
    #expect(fromParameters.httpBody == fromJSON.httpBody)
  }

  // MARK: - Values that cannot be encoded

  struct Point: Sendable { var x = 1 }

  @Test(
    arguments: [
      ("since", ["since": Date()] as [String: any Sendable], "Date"),
      ("filter[since]", ["filter": ["since": Date()]], "Date"),
      ("dates[1]", ["dates": [1, Date()] as [any Sendable]], "Date"),
      ("point", ["point": Point()], "Point"),
      ("blob", ["blob": Data([1])], "Data"),
      ("ratio", ["ratio": Double.nan], "Double"),
      ("ratio", ["ratio": Float.infinity], "Float"),
      ("byID", ["byID": [1: "a"]], "Dictionary<Int, String>"),
      ("tags", ["tags": Set(["a"])], "Set<String>"),
    ] as [(String, [String: any Sendable], String)])
  func anUnencodableValueThrowsNamingItsKey(
    _ key: String, _ parameters: [String: any Sendable], _ type: String
  ) throws {
    for encoding in [ParameterEncoding.url, .queryString, .json] {
      let error = #expect(throws: ParameterEncodingError.self) {
        try provider.build(
          ParameterTarget(method: .post, task: .parameters(parameters, encoding: encoding)))
      }
      #expect(error?.key == key)
      #expect(error?.valueType == type)
      #expect(error?.description.hasPrefix("Cannot encode the parameter \"\(key)\": ") == true)
    }
  }

  @Test func deepNestingIsRefusedNotAStackOverflow() throws {
    var value: any Sendable = 1
    for _ in 0..<600 { value = [value] }
    let error = #expect(throws: ParameterEncodingError.self) {
      try provider.build(ParameterTarget(task: .parameters(["deep": value], encoding: .url)))
    }
    #expect(error?.reason.contains("512") == true)
    let loop = #expect(throws: ParameterEncodingError.self) {
      try provider.build(ParameterTarget(task: .parameters(["loop": Loop()], encoding: .json)))
    }
    #expect(loop?.key == "loop" && loop?.reason.contains("512") == true)
  }

  /// A raw value that is itself, forever.
  final class Loop: RawRepresentable, Sendable {
    init() {}
    init?(rawValue: Loop) { nil }
    var rawValue: Loop { self }
  }

  @Test func anUnencodableValueFailsTheCallBeforeAnythingIsSent() async throws {
    let transport = CountingTransport()
    let provider = Provider<ParameterTarget>(transport: transport)
    do {
      _ = try await provider.response(
        ParameterTarget(task: .parameters(["when": ["from": Date()]], encoding: .url)))
      Issue.record("expected the call to fail")
    } catch ProviderError.underlying(let error as ParameterEncodingError, let response) {
      #expect(error.key == "when[from]")
      #expect(response == nil)
    }
    #expect(transport.count == 0)
  }

  // MARK: - Promises checked against Foundation

  /// Alamofire's allowed set, built from Foundation's `urlQueryAllowed` as its documentation
  /// describes it: the oracle for the escaping of every string.
  static let alamofireAllowed = CharacterSet.urlQueryAllowed.subtracting(
    CharacterSet(charactersIn: ":#[]@!$&'()*+,;="))

  @Test func escapingMatchesFoundationWithAlamofiresSetForGeneratedText() throws {
    var generator = SeededGenerator(seed: 37)
    let pool: [Unicode.Scalar] =
      (0x20...0x7E).compactMap(Unicode.Scalar.init) + [
        "\u{0}", "\n", "\t", "\u{7F}", "é", "ß", "日", "😃", "\u{301}", "\u{FEFF}", "\u{10FFFF}",
      ]
    for _ in 0..<2_000 {
      var text = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 0...12, using: &generator) {
        text.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
      }
      let string = String(text)
      let expected = string.addingPercentEncoding(withAllowedCharacters: Self.alamofireAllowed)
      #expect(ParameterEncoding.escape(string) == expected, "\(string.debugDescription)")
      // Decoded by hand: Foundation's `removingPercentEncoding` drops a leading U+FEFF on Linux.
      #expect(Self.percentDecoded(ParameterEncoding.escape(string)) == string)
    }
  }

  /// `%XX` sequences turned back into bytes, read as UTF-8.
  static func percentDecoded(_ text: String) -> String {
    var bytes: [UInt8] = []
    var rest = Substring(text).utf8[...]
    while let byte = rest.popFirst() {
      if byte == UInt8(ascii: "%"), rest.count >= 2,
        let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        rest = rest.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func generatedFlatParametersReadBackThroughURLComponents() throws {
    var generator = SeededGenerator(seed: 3_986)
    let pool = Array("ab Z09-._~/?:#[]@!$&'()*+,;=%\"<>é日😃".unicodeScalars)
    func word(_ generator: inout SeededGenerator) -> String {
      var text = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 1...8, using: &generator) {
        text.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
      }
      return String(text)
    }
    for _ in 0..<300 {
      var parameters: [String: String] = [:]
      for _ in 0..<Int.random(in: 1...5, using: &generator) {
        parameters[word(&generator)] = word(&generator)
      }
      let request = try provider.build(
        ParameterTarget(task: .parameters(parameters, encoding: .url)))
      let url = try #require(request.url)
      let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
      let expected = parameters.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      #expect(items.map(\.name) == expected)
      #expect(items.map { $0.value ?? "" } == expected.map { parameters[$0] ?? "" })
    }
  }

  @Test func generatedTreesRoundTripThroughJSONDecoder() throws {
    var generator = SeededGenerator(seed: 8_259)
    for _ in 0..<300 {
      guard case .object(let members) = Tree.random(depth: 0, using: &generator, object: true)
      else { continue }
      let parameters = members.mapValues(\.sendable)
      let request = try provider.build(
        ParameterTarget(method: .post, task: .parameters(parameters, encoding: .json)))
      let body = try #require(request.httpBody)
      #expect(try JSONDecoder().decode(Tree.self, from: body) == .object(members))
    }
  }
}

// MARK: - Support

/// A transport that counts its calls and answers 200 with `{}`.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
  // `@unchecked Sendable`: `calls` is only touched with `lock` held.
  private let lock = NSLock()
  private var calls = 0
  var count: Int { lock.withLock { calls } }

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    lock.withLock { calls += 1 }
    let url = request.url ?? URL(fileURLWithPath: "/")
    let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
    guard let response else { throw URLError(.badServerResponse) }
    return (Data("{}".utf8), response)
  }
}

/// A generated parameter value, decoded back by Foundation's `JSONDecoder` as the oracle.
indirect enum Tree: Codable, Equatable {
  case string(String), int(Int), double(Double), bool(Bool), array([Tree]), object([String: Tree])

  var sendable: any Sendable {
    switch self {
    case .string(let text): text
    case .int(let number): number
    case .double(let number): number
    case .bool(let flag): flag
    case .array(let elements): elements.map(\.sendable)
    case .object(let members): members.mapValues(\.sendable)
    }
  }

  static func random(depth: Int, using generator: inout SeededGenerator, object: Bool = false)
    -> Tree
  {
    let kind = object ? 5 : Int.random(in: 0...(depth < 3 ? 5 : 3), using: &generator)
    switch kind {
    case 0:
      let scalars = "aZ \"\\/é😃\n\u{1}".unicodeScalars.map { $0 }
      var text = String.UnicodeScalarView()
      for _ in 0..<Int.random(in: 0...6, using: &generator) {
        text.append(scalars[Int.random(in: 0..<scalars.count, using: &generator)])
      }
      return .string(String(text))
    case 1: return .int(Int.random(in: -1_000_000...1_000_000, using: &generator))
    case 2:
      // Fractions only: JSONDecoder reads an integral number as `.int` first.
      return .double(Double(Int.random(in: -99_999...99_999, using: &generator)) + 0.25)
    case 3: return .bool(Bool.random(using: &generator))
    case 4:
      return .array(
        (0..<Int.random(in: 0...3, using: &generator)).map { _ in
          random(depth: depth + 1, using: &generator)
        })
    default:
      var members: [String: Tree] = [:]
      for index in 0..<Int.random(in: 0...4, using: &generator) {
        members["k\(index)\(Bool.random(using: &generator) ? "é" : "")"] = random(
          depth: depth + 1, using: &generator)
      }
      return .object(members)
    }
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let flag = try? container.decode(Bool.self) {
      self = .bool(flag)
    } else if let number = try? container.decode(Int.self) {
      self = .int(number)
    } else if let number = try? container.decode(Double.self) {
      self = .double(number)
    } else if let text = try? container.decode(String.self) {
      self = .string(text)
    } else if let elements = try? container.decode([Tree].self) {
      self = .array(elements)
    } else {
      self = .object(try container.decode([String: Tree].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let text): try container.encode(text)
    case .int(let number): try container.encode(number)
    case .double(let number): try container.encode(number)
    case .bool(let flag): try container.encode(flag)
    case .array(let elements): try container.encode(elements)
    case .object(let members): try container.encode(members)
    }
  }
}
