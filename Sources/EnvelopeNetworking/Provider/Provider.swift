import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends `TargetType` requests through a line of transports (stubs, the cache, your transport),
/// runs plugins, validates the HTTP status and unwraps envelopes.
///
/// ```swift
/// let provider = Provider<API>()
/// let user = try await provider.request(.user("ada"), as: User.self)   // envelope unwrapped
/// let repos = try await provider.request(.repos, as: [Repo].self, at: "items")  // no envelope
/// let page = try await provider.request(.feed, as: [Post].self, inData: "list")  // data.list
/// ```
///
/// A plain JSON API (the body is the value, failures are HTTP statuses) says so once, with
/// `EnvelopeFormat.plain` on its targets (`TargetType.envelope`) or on the provider's decoder;
/// then `request(_:as:)` reads the whole body, `request(_:as:inData:)` a path from its root, and
/// the cache, stubs, recordings and `pages` follow.
///
/// Every failure of an attempt is a `ProviderError` that goes through each plugin's
/// `didReceive`, `process` and `retry`. What reaches you is that error, but for two: a response
/// that failed (a status the target does not accept, a business failure) is thrown as your
/// target's own error when ``TargetType/error(for:)`` gives one, and an error your envelope
/// format's `mappingErrors` returns is thrown as itself (plugins see it as
/// `.underlying(error, response:)`).
public final class Provider<Target: TargetType>: Sendable {
  /// Where requests go when not stubbed.
  public let transport: any HTTPTransport
  /// Decodes bodies; its `envelope` is the default format.
  public let decoder: LenientDecoder
  /// Hooks, run in order.
  public let plugins: [any Plugin]
  /// Whether to answer from `TargetType.sample`, for targets `stubbing` leaves alone.
  public let stub: StubBehavior
  /// The folder stub fixtures are read from: the one given, else `ENVELOPEKIT_FIXTURES`, else the
  /// nearest `Fixtures/` folder above the source file that made the provider (whatever the
  /// working directory); nil when there is none (a fixture stub then throws naming where it
  /// looked).
  public var fixtures: URL? { try? fixtureFolder.locate() }
  /// How `fixtures` is found.
  let fixtureFolder: FixtureFolder
  /// The stub scenario answered when the target names it in `scenarios`; others answer `sample`.
  public let scenario: String?
  /// Where targets with a `cachePolicy` keep responses; nil for no cache.
  public let cache: (any ResponseCache)?
  /// Who the cache entries belong to (e.g. a user id); nil to partition by credential headers.
  public let cacheScope: (@Sendable () async -> String?)?
  /// Replaces every target's `baseURL` (staging, a test server's port); nil to keep them.
  public let baseURL: URL?
  /// Stub behaviour per target; nil to use `stub` for all.
  public let stubbing: (@Sendable (Target) -> StubBehavior)?
  /// Header names (lower-case) that carry credentials besides the default ones: they partition
  /// the cache.
  public let sensitiveHeaders: Set<String>
  /// What is secret wherever this provider's requests and responses are written (logs, errors,
  /// descriptions, the cache): the default names, `sensitiveHeaders` and the
  /// `sensitiveHeaders` of its `URLSessionTransport`. Every response of the provider carries it
  /// (``Response/redaction``).
  public var redaction: Redaction { redactionRule.redaction }
  /// `redaction`, shared by every response and exchange of the provider.
  let redactionRule: RedactionRule
  /// Whether identical GETs in flight share one network exchange (`InFlightTransport`).
  let deduplicatesRequests: Bool
  /// The line every request goes through, composed here: stubs → cache → requests in flight
  /// (with `deduplicatesRequests`) → timeout → `transport`.
  let line: any LineTransport
  /// The requests `build` starts from, by base, path and timeout (see `BaseRequests`).
  let baseRequests = BaseRequests()
  /// The cache's transport in the line, for the store stage and removal; nil without a cache.
  let cacheLayer: CacheTransport?
  /// Whether an attempt runs your code that may read `ProviderCall.current`: plugin hooks and
  /// the cache scope (read by the cache, and by the requests in flight). The task-local is set
  /// around such attempts only (a stubbed call without them would pay for it for nothing);
  /// `TimedTransport` sets it around your transport.
  let attemptsCallYourCode: Bool

  /// Creates a provider.
  ///
  /// - Parameters:
  ///   - transport: the transport; `URLSessionTransport()` by default.
  ///   - decoder: the decoder; its policy and envelope format apply to every call.
  ///   - plugins: hooks, run in order.
  ///   - stub: whether to answer from samples.
  ///   - fixtures: the fixture folder for `StubResponse.fixture`; nil to find the nearest
  ///     `Fixtures/` above the caller's source file (see `fixtures`).
  ///   - scenario: a stub scenario name (see `TargetType.scenarios`), or nil for `sample`.
  ///   - cache: the response cache used by targets whose `cachePolicy` is not `.never`.
  ///   - baseURL: replaces every target's `baseURL`.
  ///   - stubbing: picks the stub behaviour per target; overrides `stub`.
  ///   - cacheScope: gives the owner of cache entries, e.g. the signed-in user's id; when nil
  ///     (or when it returns nil) entries are partitioned by every credential header.
  ///   - sensitiveHeaders: more header names that carry credentials.
  ///   - deduplicatesRequests: whether identical GETs in flight share one network exchange:
  ///     a GET without a body, to the same URL, with the same headers (after the plugins
  ///     prepared them, credentials included), the same timeout, cookie handling and cache
  ///     policy, and the same `cacheScope` answer. Each caller gets its own copy of the response (or of the error) and decodes
  ///     its own value through its own plugins; a cancelled caller stops waiting without
  ///     stopping the others, and the exchange is cancelled when the last caller is. Other
  ///     methods, stubs and cache answers are never shared, and an exchange is forgotten when
  ///     it ends (a retry starts a new one). Off by default.
  ///   - filePath: the caller's `#filePath`, where fixtures are searched from.
  public convenience init(
    transport: any HTTPTransport = URLSessionTransport(), decoder: LenientDecoder = .init(),
    plugins: [any Plugin] = [], stub: StubBehavior = .never, fixtures: URL? = nil,
    scenario: String? = nil, cache: (any ResponseCache)? = nil, baseURL: URL? = nil,
    stubbing: (@Sendable (Target) -> StubBehavior)? = nil,
    cacheScope: (@Sendable () async -> String?)? = nil, sensitiveHeaders: Set<String> = [],
    deduplicatesRequests: Bool = false, filePath: String = #filePath
  ) {
    self.init(
      transport: transport, decoder: decoder, plugins: plugins, stub: stub,
      fixtures: FixtureFolder(explicit: fixtures, sourceFile: filePath), scenario: scenario,
      cache: cache, baseURL: baseURL, stubbing: stubbing, cacheScope: cacheScope,
      sensitiveHeaders: sensitiveHeaders, deduplicatesRequests: deduplicatesRequests)
  }

  /// The designated initializer, with the fixture folder's rule already made.
  init(
    transport: any HTTPTransport, decoder: LenientDecoder, plugins: [any Plugin],
    stub: StubBehavior, fixtures: FixtureFolder, scenario: String?, cache: (any ResponseCache)?,
    baseURL: URL?, stubbing: (@Sendable (Target) -> StubBehavior)?,
    cacheScope: (@Sendable () async -> String?)?, sensitiveHeaders: Set<String>,
    deduplicatesRequests: Bool
  ) {
    self.transport = transport
    self.decoder = decoder
    self.plugins = plugins
    self.stub = stub
    self.fixtureFolder = fixtures
    self.scenario = scenario
    self.cache = cache
    self.cacheScope = cacheScope
    self.baseURL = baseURL
    self.stubbing = stubbing
    self.sensitiveHeaders = Set(sensitiveHeaders.map { $0.lowercased() })
    self.deduplicatesRequests = deduplicatesRequests
    let transportNames = (transport as? URLSessionTransport)?.sensitiveHeaders ?? []
    let redactionRule = RedactionRule(
      Redaction(headers: self.sensitiveHeaders.union(transportNames)))
    self.redactionRule = redactionRule
    var line: any LineTransport = TimedTransport(base: transport)
    if deduplicatesRequests { line = InFlightTransport(next: line, scope: cacheScope) }
    cacheLayer = cache.map {
      CacheTransport(
        next: line, cache: $0, scope: cacheScope, baseURL: baseURL,
        redaction: redactionRule.redaction,
        session: (transport as? URLSessionTransport)?.session)
    }
    if let cacheLayer { line = cacheLayer }
    var stubs = stubbing != nil
    if case .never = stub {} else { stubs = true }
    if stubs {
      line = StubTransport<Target>(
        next: line, behavior: { target in stubbing?(target) ?? stub }, scenario: scenario,
        fixtures: fixtures)
    }
    self.line = line
    attemptsCallYourCode =
      !plugins.isEmpty || cacheLayer != nil || (deduplicatesRequests && cacheScope != nil)
  }

  /// The same provider answering stubs from another scenario.
  ///
  /// ```swift
  /// let expired = provider.scenario("expired")
  /// await #expect(throws: ProviderError.self) { try await expired.request(.me, as: User.self) }
  /// ```
  ///
  /// - Parameter name: the scenario, or nil for each target's `sample`.
  /// - Returns: a provider sharing everything else with this one.
  public func scenario(_ name: String?) -> Provider<Target> {
    Provider(
      transport: transport, decoder: decoder, plugins: plugins, stub: stub,
      fixtures: fixtureFolder, scenario: name, cache: cache, baseURL: baseURL, stubbing: stubbing,
      cacheScope: cacheScope, sensitiveHeaders: sensitiveHeaders,
      deduplicatesRequests: deduplicatesRequests)
  }

  /// Sends the request and validates the HTTP status.
  ///
  /// - Parameter target: the endpoint.
  /// - Returns: the response.
  /// - Throws: `ProviderError` (or the target's own error for a failed response,
  ///   ``TargetType/error(for:)``), or `CancellationError` when the calling task is cancelled.
  public func response(_ target: Target) async throws -> Response {
    try await run(target, ResponsePlan())
  }

  /// Sends the request, validates the status, and unwraps the envelope (the target's format,
  /// else the decoder's).
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the payload type. An empty body is accepted for 204, 205 and HEAD when `T` is
  ///     `Empty` or Optional.
  /// - Returns: the payload.
  /// - Throws: `ProviderError` (`.business` for a non-success code, `.envelope` for a missing or
  ///   invalid code or missing data), the format's mapped error, or the target's own error for
  ///   a failed response (``TargetType/error(for:)``).
  public func request<T: Decodable>(_ target: Target, as type: T.Type = T.self) async throws -> T {
    try await run(target, EnvelopePlan<T>(format: target.envelope))
  }

  /// Sends the request, checks the envelope's code, then decodes `T` at a path inside data
  /// (MoyaMapper's `modelKey = "data>list"`); under `EnvelopeFormat.plain`, at a path from the
  /// body's root.
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the value type.
  ///   - path: where the value is, relative to the format's data path.
  /// - Returns: the value.
  /// - Throws: the errors of `request(_:as:)`.
  public func request<T: Decodable>(
    _ target: Target, as type: T.Type = T.self, inData path: JSONPath
  ) async throws -> T {
    try await run(target, EnvelopePlan<T>(format: target.envelope, path: path))
  }

  /// Sends the request, validates the status, and decodes the value at a key path (no envelope).
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the value type.
  ///   - path: where the value is; `.root` for the whole body.
  /// - Returns: the value.
  /// - Throws: `ProviderError`, or the target's own error for a failed response
  ///   (``TargetType/error(for:)``).
  public func request<T: Decodable>(_ target: Target, as type: T.Type = T.self, at path: JSONPath)
    async throws -> T
  {
    try await run(target, ValuePlan<T>(path: path))
  }

  /// Like `request(_:as:)`, with the response and the lenient report (also handed to every
  /// plugin's `didDecode` when it is not empty).
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the payload type.
  /// - Returns: the payload, its response and its report.
  /// - Throws: the errors of `request(_:as:)`.
  public func decodedResponse<T: Decodable>(_ target: Target, as type: T.Type = T.self)
    async throws -> DecodedResponse<T>
  {
    try await run(target, WithResponse(inner: EnvelopePlan<T>(format: target.envelope)))
  }

  /// Yields the cached value first, when the cache has one that decodes (`.cache(storedAt:)`),
  /// then the network's (`.network`), each unwrapped with the envelope rules of
  /// `request(_:as:)` (MoyaMapper's `cacheRequest`, RxNetwork's `onCache`).
  ///
  /// The cache is read and the network's answer stored whatever the target's `cachePolicy`
  /// (only decoded successes are stored). A network failure after a cached value ends the
  /// stream with that error; the caller keeps what it showed. Cancelling the consuming task
  /// cancels the request.
  ///
  /// ```swift
  /// for try await user in provider.cachedThenNetwork(.me, as: User.self) {
  ///   show(user.value, stale: user.source != .network)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the payload type.
  /// - Returns: one or two values, then the end (or the network's error).
  public func cachedThenNetwork<T: Decodable & Sendable>(
    _ target: Target, as type: T.Type = T.self
  ) -> AsyncThrowingStream<Sourced<T>, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        do {
          if let cached = await self.cachedValue(target, T.self) { continuation.yield(cached) }
          let network = try await self.run(
            target, EnvelopePlan<T>(format: target.envelope, cacheUse: .refresh))
          continuation.yield(Sourced(value: network, source: .network))
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The cached value of `target`, decoded; nil when there is none or it no longer decodes.
  /// The request goes through `prepare` (credentials partition the cache) and the line, which
  /// answers from the cache only.
  private func cachedValue<T: Decodable>(_ target: Target, _ type: T.Type) async -> Sourced<T>? {
    guard cacheLayer != nil else { return nil }
    let exchange = Exchange(
      call: ProviderCall(id: ProviderCall.nextID(), attempt: 1), target: target,
      cacheUse: .cacheOnly, plugins: plugins, redaction: redactionRule)
    return try? await Exchange.$current.withValue(exchange) {
      let response = try await line.response(to: prepare(build(target), target), in: exchange)
      guard let answer = response.cacheAnswer else { return nil }
      // A stored business failure or a body that no longer decodes throws: no cached value.
      var status: EnvelopeStatus?
      var report = DecodingReport()
      let value = try EnvelopePlan<T>(format: target.envelope).decode(
        response, target, with: decoder, status: &status, report: &report)
      return Sourced(value: value, source: .cache(storedAt: answer.storedAt))
    }
  }

  /// Removes the cached response of `target` under the current cache scope (MoyaMapper's
  /// `removeResponseCache`); to forget everything, e.g. on logout, call the cache's `removeAll()`.
  ///
  /// - Parameter target: the endpoint; its request is built and prepared by the plugins, as its
  ///   entry's key was.
  /// - Throws: the cache's removal error, or a plugin's `prepare` error.
  public func removeCachedResponse(for target: Target) async throws {
    guard let cacheLayer else { return }
    let exchange = Exchange(
      call: ProviderCall(id: ProviderCall.nextID(), attempt: 1), target: target, cacheUse: .refresh,
      plugins: plugins, redaction: redactionRule)
    try await Exchange.$current.withValue(exchange) {
      try await cacheLayer.remove(prepare(build(target), target), target: target)
    }
  }

  /// Like `request(_:as:at:)`, with the response and the lenient report.
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the value type.
  ///   - path: where the value is; `.root` for the whole body.
  /// - Returns: the value, its response and its report.
  /// - Throws: `ProviderError`, or the target's own error for a failed response
  ///   (``TargetType/error(for:)``).
  public func decodedResponse<T: Decodable>(
    _ target: Target, as type: T.Type = T.self, at path: JSONPath
  ) async throws -> DecodedResponse<T> {
    try await run(target, WithResponse(inner: ValuePlan<T>(path: path)))
  }
}
