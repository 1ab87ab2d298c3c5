import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The loopback server's `/plain/repo`: a GitHub-style body whose `code` member is data.
struct PlainRepo: Codable, Equatable, Sendable {
  struct Owner: Codable, Equatable, Sendable {
    var login: String
    var id: Int
  }
  var id: Int
  var name: String
  var code: Int
  var owner: Owner
}

/// A plain API named once: on the target (`TargetType.envelope`) or on the provider's decoder.
@Suite(.serialized) struct PlainAPITests {
  static let repo = PlainRepo(
    id: 7, name: "envelope", code: 99, owner: PlainRepo.Owner(login: "ada", id: 18))

  init() throws {
    _ = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  /// The same route, plain by the target's format or by the provider decoder's.
  enum Naming: String, CaseIterable, Sendable { case target, decoder }

  static func setUp(_ naming: Naming, _ query: [String: String] = [:]) -> (Provider<Route>, Route) {
    switch naming {
    case .target:
      return (Provider<Route>(), Route.plain("/plain/repo", query))
    case .decoder:
      var decoder = LenientDecoder()
      decoder.envelope = .plain
      return (Provider<Route>(decoder: decoder), Route("/plain/repo", query))
    }
  }

  @Test(arguments: Naming.allCases)
  func everyCallReadsTheBodyAsTheValue(_ naming: Naming) async throws {
    let (provider, route) = Self.setUp(naming, ["id": uniqueID()])
    // A `code` member is data: 99 is not a business failure.
    #expect(try await provider.request(route, as: PlainRepo.self) == Self.repo)
    // A path into the body, from its root; the lenient decoder's "18" → 18 is reported there.
    #expect(
      try await provider.request(route, as: PlainRepo.Owner.self, inData: "owner")
        == Self.repo.owner)
    let decoded = try await provider.decodedResponse(route, as: PlainRepo.self)
    #expect(decoded.value == Self.repo)
    #expect(decoded.response.envelopeStatus == nil)
    #expect(decoded.report.entries.map(\.path) == ["owner.id"])
    var values: [Sourced<PlainRepo>] = []
    for try await value in provider.cachedThenNetwork(route, as: PlainRepo.self) {
      values.append(value)
    }
    #expect(values.map(\.value) == [Self.repo])
  }

  @Test(arguments: Naming.allCases)
  func failuresComeFromTheStatusAlone(_ naming: Naming) async throws {
    // The 404's body has `"code": 1`: under plain it is not read as a business code.
    let (provider, route) = Self.setUp(naming, ["id": uniqueID(), "status": "404"])
    do {
      _ = try await provider.request(route, as: PlainRepo.self)
      Issue.record("a 404 decoded")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 404)
      #expect(response.envelopeStatus == nil)
    }
  }

  @Test func theCacheAnswersAPlainBody() async throws {
    let id = uniqueID()
    var route = Route.plain("/plain/repo", ["id": id])
    route.cachePolicy = .cacheElseLoad(maxAge: .seconds(60))
    let provider = Provider<Route>(cache: MemoryCache())
    #expect(try await provider.request(route, as: PlainRepo.self) == Self.repo)
    #expect(try await provider.request(route, as: PlainRepo.self) == Self.repo)
    #expect(try await hits("plain" + id).count == 1)
    var sources: [Sourced<PlainRepo>.Source] = []
    for try await value in provider.cachedThenNetwork(route, as: PlainRepo.self) {
      sources.append(value.source)
    }
    #expect(sources.count == 2)
    #expect(sources.last == .network)
  }

  @Test func aStubAnswersAPlainBody() async throws {
    var route = Route.plain("/plain/repo")
    route.server = nil
    let body = Data(#"{"id":7,"name":"envelope","code":99,"owner":{"login":"ada","id":18}}"#.utf8)
    let provider = Provider<StubbedRoute>(stub: .immediate)
    #expect(
      try await provider.request(StubbedRoute(route: route, body: body), as: PlainRepo.self)
        == Self.repo)
  }

  @Test func aMissingCodeNamesTheWayOut() async throws {
    // An envelope call on a plain body: the error says what it found and what to use.
    do {
      _ = try await Provider<Route>().request(Route("/anything"), as: PlainRepo.self)
      Issue.record("a plain body decoded as an envelope")
    } catch let error as ProviderError {
      guard case .envelope(.missingCode, _) = error else {
        Issue.record("\(error)")
        return
      }
      let text = "\(error)"
      #expect(text.contains("EnvelopeFormat.plain"))
      #expect(text.contains("codeOptional()"))
      #expect(text.contains("keys found: url, args, headers, form, json"))
    }
  }
}

/// `Route` answered by a stub with a given body.
struct StubbedRoute: TargetType {
  var route: Route
  var body: Data
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { route.path }
  var envelope: EnvelopeFormat? { route.envelope }
  var sample: StubResponse { .body(body) }
}
