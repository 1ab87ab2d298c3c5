import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// A call has one attempt, with or without plugins (their chain is empty without them): the
// status read and the value decoded in one pass before the plugins look, and a decoding error
// thrown after them. A provider without plugins and one whose plugin changes nothing must not
// differ in anything a caller sees: value, report, error, the response an error carries and the
// envelope status on it. Held to each other over generated responses, so that a stage that
// behaves differently around an empty chain shows up here.

/// An endpoint answering whatever the generator made: from its `sample` when stubbed, else from
/// `HeaderEcho` (your transport's place in the line, behind the cache), which reads the body and status
/// from the request's headers.
private struct GeneratedStub: TargetType {
  var body: String
  var status: Int
  var method: HTTPMethod
  var envelope: EnvelopeFormat?
  var path: String = "/generated"
  var cachePolicy: CachePolicy = .never
  var fails = false
  var baseURL: URL { URL(string: "https://unreachable.invalid") ?? URL(fileURLWithPath: "/") }
  var sample: StubResponse {
    fails ? .failure(URLError(.notConnectedToInternet)) : .body(Data(body.utf8), status: status)
  }
  var headers: [String: String] {
    [
      "X-Body": Data(body.utf8).base64EncodedString(), "X-Status": "\(status)",
      "X-Fails": "\(fails)",
    ]
  }
}

/// Answers what the request's headers ask for (see `GeneratedStub.headers`).
private struct HeaderEcho: HTTPTransport {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    if request.value(forHTTPHeaderField: "X-Fails") == "true" {
      throw URLError(.notConnectedToInternet)
    }
    let body = Data(base64Encoded: request.value(forHTTPHeaderField: "X-Body") ?? "") ?? Data()
    let status = Int(request.value(forHTTPHeaderField: "X-Status") ?? "") ?? 0
    guard let url = request.url,
      let response = HTTPURLResponse(
        url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])
    else { throw URLError(.badURL) }
    return (body, response)
  }
}

private struct GeneratedUser: Decodable, Equatable {
  var id: Int
  var name: String?
}

/// A plugin that changes nothing: its provider takes the pipeline with plugin stages.
private struct Passive: Plugin {}

private struct Refused: Error, Equatable {
  var code: String
}

/// Seeded choices (a 64-bit LCG's high bits): the same cases on every run.
private struct Choices {
  var state: UInt64

  mutating func next(_ bound: Int) -> Int {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Int((state >> 33) % UInt64(bound))
  }

  mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }
}

/// What a caller sees of one call, as text.
private func seen(_ call: () async throws -> some Any) async -> String {
  func described(_ response: Response?) -> String {
    guard let response else { return "no response" }
    return "http \(response.statusCode) \(response.data.count) bytes "
      + "status \(String(describing: response.envelopeStatus)) "
      + "cache \(response.isFromCache) \(String(describing: response.cacheAnswer?.reason))"
  }
  do {
    let value = try await call()
    if let decoded = value as? DecodedResponse<GeneratedUser> {
      return
        "value \(decoded.value) report \(decoded.report.entries) \(described(decoded.response))"
    }
    if let response = value as? Response { return "response \(described(response))" }
    return "value \(value)"
  } catch let error as ProviderError {
    return "\(error) carries \(described(error.response))"
  } catch {
    return "\(type(of: error)) \(error)"
  }
}

@Suite struct DirectAttemptTests {
  private static let codes = ["0", #""0""#, "1", "1001", "null", #""ok""#, "[]", "0.5"]
  private static let payloads = [
    #"{"id":7,"name":"Ada"}"#, #"{"id":"18","name":"Ada"}"#, #"{"id":"abc"}"#, #"{"name":"x"}"#,
    "null", "[]", #""text""#, #"{"list":[{"id":1}],"id":2}"#,
  ]

  /// A body: mostly envelopes whose code, message and data vary; sometimes empty or not JSON.
  private static func body(_ random: inout Choices) -> String {
    switch random.next(20) {
    case 0: return ""
    case 1: return "<html>busy</html>"
    case 2: return #"{"code":0,"data":{"id":1"#
    default: break
    }
    var fields: [String] = []
    if random.next(8) > 0 {
      fields.append(#""code":"# + random.pick(codes))
    }
    if random.next(2) == 0 { fields.append(#""msg":"expired""#) }
    if random.next(6) > 0 {
      fields.append(#""data":"# + random.pick(payloads))
    }
    if random.next(2) == 0 { fields.reverse() }
    return "{" + fields.joined(separator: ",") + "}"
  }

  @Test(arguments: [DecodingPolicy.lenient, .strict], [false, true])
  func withAndWithoutPluginsEveryCallEndsAlike(policy: DecodingPolicy, stubbed: Bool) async throws {
    var random = Choices(state: (policy == .lenient ? 0x51 : 0x52) + (stubbed ? 0 : 0x100))
    let decoder = LenientDecoder(policy: policy)
    // Stubbed: the stub answers. Otherwise your transport answers behind a cache of each
    // provider's own, which the targets' policies read and fill.
    func provider(_ plugins: [any Plugin]) -> Provider<GeneratedStub> {
      stubbed
        ? Provider(decoder: decoder, plugins: plugins, stub: .immediate)
        : Provider(
          transport: HeaderEcho(), decoder: decoder, plugins: plugins, cache: MemoryCache())
    }
    let direct = provider([])
    let staged = provider([Passive()])
    let formats: [EnvelopeFormat?] = [
      nil, EnvelopeFormat.default.mappingErrors { Refused(code: "\($0.code ?? 0)") },
      EnvelopeFormat(code: "code", messages: ["msg"], data: "data", success: [0, "ok"]),
    ]
    let policies: [CachePolicy] = [
      .never, .cacheElseLoad(maxAge: .seconds(600)), .loadElseCache(onServerError: true),
    ]
    var compared = 0
    var kinds = Set<String>()
    for _ in 0..<200 {
      var target = GeneratedStub(
        body: Self.body(&random), status: random.pick([200, 200, 200, 204, 205, 404, 500]),
        method: random.next(6) == 0 ? .head : .get, envelope: random.pick(formats))
      target.path = random.pick(["/a", "/b", "/c"])
      target.cachePolicy = random.pick(policies)
      target.fails = random.next(12) == 0
      func both(_ name: String, _ call: (Provider<GeneratedStub>) async throws -> some Any) async {
        let one = await seen { try await call(direct) }
        let other = await seen { try await call(staged) }
        #expect(one == other, "\(name) of \(target)")
        kinds.insert(String(one.prefix(while: { $0 != " " && $0 != "(" })))
        if one.contains("cache true") { kinds.insert("answered by the cache") }
        if one.contains("from cache") { kinds.insert("a cached value first") }
        compared += 1
      }
      await both("request") { try await $0.request(target, as: GeneratedUser.self) }
      await both("request optional") { try await $0.request(target, as: GeneratedUser?.self) }
      await both("request empty") { try await $0.request(target, as: Empty.self) }
      await both("inData") {
        try await $0.request(target, as: [GeneratedUser].self, inData: "list")
      }
      await both("decodedResponse") { try await $0.decodedResponse(target, as: GeneratedUser.self) }
      await both("at") { try await $0.request(target, as: GeneratedUser.self, at: "data") }
      await both("response") { try await $0.response(target) }
      await both("cachedThenNetwork") { provider in
        var values: [String] = []
        for try await user in provider.cachedThenNetwork(target, as: GeneratedUser.self) {
          values.append("\(user.value) from \(user.source == .network ? "network" : "cache")")
        }
        return values
      }
    }
    #expect(compared == 1_600)
    // The generator reached every way a call ends.
    var expected = ["value", "response", "business", "envelope", "decoding", "status"]
    expected += ["emptyBody", "Refused", "transport"]
    if !stubbed { expected += ["answered by the cache", "a cached value first"] }
    for kind in expected {
      #expect(kinds.contains(kind), "no call ended as \(kind): \(kinds.sorted())")
    }
  }

  @Test(arguments: [false, true])
  func aFailureAfterTheCodeWasReadKeepsTheStatus(withPlugins: Bool) async throws {
    let plugins: [any Plugin] = withPlugins ? [Passive()] : []
    let provider = Provider<GeneratedStub>(
      decoder: LenientDecoder(policy: .strict), plugins: plugins, stub: .immediate)
    func failure(_ body: String, as type: (some Decodable).Type) async -> ProviderError? {
      let target = GeneratedStub(body: body, status: 200, method: .get, envelope: nil)
      do {
        _ = try await provider.request(target, as: type)
        return nil
      } catch {
        return error as? ProviderError
      }
    }
    let missing = await failure(#"{"code":0,"msg":"ok"}"#, as: GeneratedUser.self)
    #expect(
      missing?.response?.envelopeStatus == EnvelopeStatus(code: 0, message: "ok", isSuccess: true))
    let broken = await failure(#"{"code":0,"data":{"id":"abc"}}"#, as: GeneratedUser.self)
    guard case .decoding = broken else {
      Issue.record("expected a decoding error, got \(String(describing: broken))")
      return
    }
    #expect(broken?.response?.envelopeStatus?.code == 0)
    let business = await failure(#"{"code":7,"msg":"no"}"#, as: GeneratedUser.self)
    #expect(business?.response?.envelopeStatus?.isSuccess == false)
    let noCode = await failure(#"{"data":{"id":1}}"#, as: GeneratedUser.self)
    #expect(noCode != nil && noCode?.response?.envelopeStatus == nil)
  }
}
