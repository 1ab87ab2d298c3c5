import Foundation
import Testing

@testable import EnvelopeNetworking

/// The provider remembers the requests it starts from: the same URL as joining afresh (the base
/// itself for an empty path) and the timeout asked for, for more paths than it keeps, asked
/// twice, under two bases.
@Suite struct BaseRequestsTests {
  @Test func rememberedRequestsHaveTheBaseRequests() throws {
    let requests = BaseRequests()
    let bases = [
      try #require(URL(string: "https://api.example.com/v1")),
      try #require(URL(string: "http://127.0.0.1:8080")),
    ]
    let paths = (0..<(BaseRequests.limit + 50)).map { "/users/\($0)" } + ["/a b", "/é", "", "/x?y"]
    for _ in 0..<2 {
      for base in bases {
        for path in paths {
          let timeout = TimeInterval(path.count % 3 + 1)
          let request = requests.request(base, path, timeout: timeout)
          let joined = path.isEmpty ? base : base.appendingPathComponent(path)
          #expect(request.url == joined, "\(base) \(path)")
          #expect(request.timeoutInterval == timeout)
          #expect(request.httpMethod == "GET" && request.allHTTPHeaderFields?.isEmpty != false)
        }
      }
    }
  }

  /// A target whose request `build` changes (method, headers, body) changes a copy: the next
  /// plain GET of the same endpoint starts from the remembered request untouched.
  @Test func aChangedRequestLeavesTheRememberedOneAlone() throws {
    let provider = Provider<Endpoint>(stub: .immediate)
    let posted = try provider.build(
      Endpoint(method: .post, headers: ["X-Secret": "s3"], form: true))
    #expect(posted.httpMethod == "POST" && posted.value(forHTTPHeaderField: "X-Secret") == "s3")
    #expect(posted.httpBody == Data("a=1".utf8))
    for _ in 0..<2 {
      let plain = try provider.build(Endpoint(method: .get, headers: [:], form: false))
      #expect(plain.httpMethod == "GET")
      #expect(plain.value(forHTTPHeaderField: "X-Secret") == nil)
      #expect(plain.httpBody == nil)
      #expect(plain.url == posted.url)
    }
  }
}

private struct Endpoint: TargetType {
  var method: HTTPMethod
  var headers: [String: String]
  var form: Bool
  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/users" }
  var task: RequestTask { form ? .form(["a": "1"]) : .plain }
  var sample: StubResponse { .body(Data("{}".utf8)) }
}
