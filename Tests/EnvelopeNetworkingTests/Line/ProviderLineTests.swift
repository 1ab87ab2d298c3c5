import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A user whose `init(from:)` counts its calls.
struct CountedUser: Decodable, Equatable {
  static let decodes = HookLog()
  var id: Int
  var name: String

  enum CodingKeys: String, CodingKey { case id, name }

  init(from decoder: any Decoder) throws {
    Self.decodes.add("decoded")
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(Int.self, forKey: .id)
    name = try container.decode(String.self, forKey: .name)
  }
}

/// A plugin that hands on every result it is given, as a new value.
struct PassThrough: Plugin {
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    result.map { response in
      var copy = response
      copy.headers["X-Seen"] = "1"
      return copy
    }
  }
}

/// An API whose envelope is `{"status": "ok" | "expired", "message": …, "payload": …}`.
struct StatusAPI: HTTPTransport {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let fresh = request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
    let body =
      fresh
      ? #"{"status":"ok","payload":{"id":1,"name":"Ada"}}"#
      : #"{"status":"expired","message":"log in again"}"#
    guard let url = request.url,
      let response = HTTPURLResponse(
        url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])
    else { throw URLError(.badURL) }
    return (Data(body.utf8), response)
  }
}

struct SessionExpired: Error, Equatable { var message: String? }

@Suite(.serialized) struct ProviderLineTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func theValueIsDecodedOncePerAttempt() async throws {
    let before = CountedUser.decodes.all.count
    let provider = Provider<Route>(plugins: [PassThrough()])
    let user = try await provider.request(Route("/envelope/ok"), as: CountedUser.self)
    #expect(user.name == "Ada")
    #expect(CountedUser.decodes.all.count - before == 1)
    // Two attempts (expired, then refreshed): the failed one decodes nothing.
    let tokens = Tokens()
    let auth = AccessTokenPlugin(expiredCodes: [1001], token: { await tokens.token }) {
      try await tokens.refresh()
    }
    var target = Route("/auth")
    target.authorization = .bearer
    let refreshed = try await Provider<Route>(plugins: [auth, PassThrough()])
      .request(target, as: CountedUser.self)
    #expect(refreshed.id == 1)
    #expect(CountedUser.decodes.all.count - before == 2)
  }

  @Test func theValueDecodedBeforeThePluginsCarriesTheResponseTheyHandedOn() async throws {
    // Decoded in the pass that read the status, the value comes with the response `process`
    // handed on (a header added), and is not decoded again for the same body.
    let before = CountedUser.decodes.all.count
    let decoded = try await Provider<Route>(plugins: [PassThrough()])
      .decodedResponse(Route("/envelope/ok"), as: CountedUser.self)
    #expect(decoded.response.headers["X-Seen"] == "1")
    #expect(decoded.response.envelopeStatus?.code == 0)
    #expect(CountedUser.decodes.all.count - before == 1)
  }

  @Test func aBodyAPluginReplacesIsDecodedWithItsOwnCodeChecked() async throws {
    struct Replace: Plugin {
      let body: String
      func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
        -> Result<Response, ProviderError>
      {
        result.map { response in
          var copy = response
          copy.data = Data(body.utf8)
          return copy
        }
      }
    }
    let replaced = Provider<Route>(
      plugins: [Replace(body: #"{"code":0,"data":{"id":2,"name":"Grace"}}"#)])
    #expect(try await replaced.request(Route("/envelope/ok"), as: User.self).name == "Grace")
    let failing = Provider<Route>(plugins: [Replace(body: #"{"code":7,"msg":"no"}"#)])
    do {
      _ = try await failing.request(Route("/envelope/ok"), as: User.self)
      Issue.record("a replaced failure decoded")
    } catch ProviderError.business(let code, _, _) {
      #expect(code == 7)
    }
  }

  @Test func accessTokenPluginDecidesOnTheStatusThePipelineRead() async throws {
    // The provider's own format (not the default one): code at `status`, a mapped error.
    let format = EnvelopeFormat(
      code: "status", message: "message", data: "payload", success: ["ok"]
    )
    .mappingErrors { SessionExpired(message: $0.message) }
    var decoder = LenientDecoder()
    decoder.envelope = format
    let tokens = Tokens()
    let auth = AccessTokenPlugin(expiredCodes: ["expired"], token: { await tokens.token }) {
      try await tokens.refresh()
    }
    let timeline = Timeline()
    let provider = Provider<Route>(
      transport: StatusAPI(), decoder: decoder, plugins: [auth, timeline])
    var target = Route("/anything")
    target.authorization = .bearer
    let user = try await provider.request(target, as: User.self)
    #expect(user == User(id: 1, name: "Ada"))
    #expect(await tokens.refreshes == 1)
    let refreshes = timeline.all.filter { $0.name == "refresh" }.map(\.detail)
    #expect(refreshes.count == 2)
    #expect(refreshes.first == "started")
    #expect(refreshes.last?.hasPrefix("succeeded") == true)
  }

  @Test func anErrorEnvelopeOnA400IsABusinessFailureWithItsStatus() async throws {
    let provider = Provider<Route>()
    do {
      _ = try await provider.request(Route("/error/400"), as: User.self)
      Issue.record("a 400 decoded")
    } catch ProviderError.business(let code, let message, let response) {
      #expect(code == 40001 && message == "phone invalid")
      #expect(response.statusCode == 400)
      #expect(response.envelopeStatus?.code == 40001)
    }
    // Any call, not only envelope calls; and the format's mapped error applies.
    await #expect(throws: ProviderError.self) { try await provider.response(Route("/error/400")) }
    var decoder = LenientDecoder()
    decoder.envelope = .default.mappingErrors { SessionExpired(message: $0.message) }
    await #expect(throws: SessionExpired(message: "phone invalid")) {
      try await Provider<Route>(decoder: decoder).request(Route("/error/400"), as: User.self)
    }
    // A body that is not an error envelope stays a status failure.
    do {
      _ = try await provider.response(Route("/status/500html"))
      Issue.record("a 500 succeeded")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 500)
    }
  }

  @Test func errorBodyReadsAnyErrorResponseAsYourType() async throws {
    struct Problem: Decodable, Equatable {
      var type: String; var title: String; var status: Int; var detail: String
    }
    struct Envelope: Decodable { var code: Int; var msg: String }
    let provider = Provider<Route>()
    do {
      _ = try await provider.response(Route("/problem"))
      Issue.record("a 422 succeeded")
    } catch let error as ProviderError {
      let problem = try #require(error.errorBody(as: Problem.self))
      #expect(problem.status == 422 && problem.detail.hasPrefix("Your balance is 30"))
      #expect(error.errorBody(as: [Int].self) == nil)
    }
    do {
      _ = try await provider.response(Route("/error/400"))
    } catch let error as ProviderError {
      #expect(error.errorBody(as: Envelope.self)?.msg == "phone invalid")
    }
    #expect(ProviderError.transport(URLError(.timedOut)).errorBody(as: Envelope.self) == nil)
  }

  @Test func anInfiniteTimeoutWaitsForASlowServer() async throws {
    var target = Route("/delay", ["seconds": "2"])
    target.timeout = .infinity
    let started = ContinuousClock.now
    let user = try await Provider<Route>().request(target, as: User.self)
    #expect(user.name == "Ada")
    #expect(ContinuousClock.now - started >= .seconds(1.9))
  }

  @Test(arguments: [Double.nan, 0, -1, -Double.infinity])
  func aTimeoutThatCannotWorkIsAClearErrorAndSendsNothing(_ timeout: Double) async throws {
    let id = uniqueID()
    var target = Route("/flaky", ["id": id, "fails": "0"])
    target.timeout = timeout
    do {
      _ = try await Provider<Route>().response(target)
      Issue.record("a timeout of \(timeout) sent the request")
    } catch ProviderError.underlying(let error, nil) {
      #expect(error is ProviderConfigurationError)
      #expect("\(error)".contains("timeout must be a positive number of seconds"))
    }
    #expect(try await hits("flaky" + id).count == 0)
  }
}

@Suite(.serialized) struct RetryPolicyTests {
  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  @Test func retryAfterInSecondsIsHonoured() async throws {
    let timeline = Timeline()
    let id = uniqueID()
    let provider = Provider<Route>(plugins: [RetryPolicy(baseDelay: .milliseconds(10)), timeline])
    let count = try await provider.request(
      Route("/flaky", ["id": id, "fails": "1", "status": "503", "after": "1"]), as: Hits.self
    ).count
    #expect(count == 2)
    let events = timeline.all
    let failed = try #require(events.first { $0.name == "didReceive" })
    let retried = try #require(events.last { $0.name == "willSend" })
    // The policy chose exactly the server's second (not its 10 ms backoff), and the provider
    // never retried early. How late the retry starts is the machine's business (a loaded CI
    // runner wakes a sleeping task hundreds of milliseconds late), so only a bound far from
    // both a backoff and a doubled wait is checked.
    #expect(events.contains { $0.name == "willRetry" && $0.detail == "2 1.0 seconds" })
    let waited = seconds(retried.at - failed.at)
    #expect(waited >= 0.95 && waited < 10, "waited \(waited) s for Retry-After: 1")
  }

  @Test func retryAfterAsAnHTTPDateIsHonoured() throws {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    let date = formatter.string(from: now.addingTimeInterval(2))
    let response = Response(statusCode: 429, headers: ["retry-after": date], data: Data())
    #expect(RetryPolicy().delay(after: .status(response), attempt: 1, now: now) == .seconds(2))
    let past = Response(
      statusCode: 503, headers: ["Retry-After": formatter.string(from: now.addingTimeInterval(-5))],
      data: Data())
    #expect(RetryPolicy().delay(after: .status(past), attempt: 1, now: now) == .zero)
  }

  @Test func aPostIsNotRetriedByDefault() async throws {
    let id = uniqueID()
    var target = Route("/flaky", ["id": id, "fails": "1", "status": "503"])
    target.method = .post
    let provider = Provider<Route>(plugins: [RetryPolicy(baseDelay: .milliseconds(1))])
    do {
      _ = try await provider.response(target)
      Issue.record("a POST was retried")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 503)
    }
    #expect(try await hits("flaky" + id).count == 1)
  }

  @Test func transientFailuresAreRetriedWithBackoffAndJitter() async throws {
    let timeline = Timeline()
    let id = uniqueID()
    let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(40))
    let provider = Provider<Route>(plugins: [policy, timeline])
    let count = try await provider.request(
      Route("/flaky", ["id": id, "fails": "2", "status": "502"]), as: Hits.self
    ).count
    #expect(count == 3)
    let retries = timeline.all.filter { $0.name == "willRetry" }.map(\.detail)
    #expect(retries.count == 2)
    // The second wait is drawn from twice the first's range.
    for _ in 0..<100 {
      let first = try #require(
        policy.delay(after: .transport(URLError(.timedOut)), attempt: 1))
      let second = try #require(policy.delay(after: .transport(URLError(.timedOut)), attempt: 2))
      #expect(first >= .milliseconds(20) && first <= .milliseconds(40))
      #expect(second >= .milliseconds(40) && second <= .milliseconds(80))
    }
    // Three failures with three attempts: the third is the caller's.
    let fails = uniqueID()
    await #expect(throws: ProviderError.self) {
      try await provider.response(Route("/flaky", ["id": fails, "fails": "5", "status": "500"]))
    }
    #expect(try await hits("flaky" + fails).count == 3)
  }

  @Test func failuresOutsideThePolicyAreNotRetried() async throws {
    let timeline = Timeline()
    let provider = Provider<Route>(plugins: [RetryPolicy(baseDelay: .milliseconds(1)), timeline])
    await #expect(throws: ProviderError.self) {
      try await provider.request(Route("/envelope/fail"), as: User.self)  // business
    }
    await #expect(throws: ProviderError.self) { try await provider.response(Route("/error/400")) }
    let id = uniqueID()
    await #expect(throws: ProviderError.self) {  // 501 is not in the list
      try await provider.response(Route("/flaky", ["id": id, "status": "501"]))
    }
    #expect(!timeline.all.contains { $0.name == "willRetry" })
    // A business code named in the policy is retried.
    let policy = RetryPolicy(baseDelay: .milliseconds(1), businessCodes: [1001])
    let response = Response(statusCode: 200, data: Data())
    #expect(
      policy.delay(after: .business(code: 1001, message: nil, response: response), attempt: 1)
        != nil)
    #expect(
      policy.delay(after: .business(code: 1002, message: nil, response: response), attempt: 1)
        == nil)
  }

  @Test func aRetryAfterLongerThanMaxDelayFailsAtOnce() async throws {
    let id = uniqueID()
    let provider = Provider<Route>(plugins: [RetryPolicy(maxDelay: .seconds(1))])
    let started = ContinuousClock.now
    do {
      _ = try await provider.response(
        Route("/flaky", ["id": id, "fails": "1", "status": "429", "after": "600"]))
      Issue.record("waited 600 s past maxDelay")
    } catch ProviderError.status(let response) {
      #expect(response.statusCode == 429)
    }
    // Far below the 600 s asked for: a loaded runner took 29 s for the one request (a bound of
    // 25 s below a 30 s Retry-After failed there), and a wait for the 600 s is still well past.
    #expect(ContinuousClock.now - started < .seconds(200))
    #expect(try await hits("flaky" + id).count == 1)
  }
}
