import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends `TargetType` requests through a transport (or stubs), runs plugins, validates the HTTP
/// status and unwraps envelopes.
///
/// ```swift
/// let provider = Provider<API>()
/// let user = try await provider.request(.user("ada"), as: User.self)   // envelope unwrapped
/// let repos = try await provider.request(.repos, as: [Repo].self, at: "items")  // no envelope
/// let page = try await provider.request(.feed, as: [Post].self, inData: "list")  // data.list
/// ```
///
/// Every failure of an attempt is a `ProviderError` that goes through each plugin's
/// `didReceive`, `process` and `retry`. One exception reaches you unwrapped: an error your
/// envelope format's `mappingErrors` returns is thrown as itself (plugins see it as
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
  /// The folder stub fixtures are read from; nil for `./Fixtures`.
  public let fixtures: URL?
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

  /// Creates a provider.
  ///
  /// - Parameters:
  ///   - transport: the transport; `URLSessionTransport()` by default.
  ///   - decoder: the decoder; its policy and envelope format apply to every call.
  ///   - plugins: hooks, run in order.
  ///   - stub: whether to answer from samples.
  ///   - fixtures: the fixture folder for `StubResponse.fixture`.
  ///   - scenario: a stub scenario name (see `TargetType.scenarios`), or nil for `sample`.
  ///   - cache: the response cache used by targets whose `cachePolicy` is not `.never`.
  ///   - baseURL: replaces every target's `baseURL`.
  ///   - stubbing: picks the stub behaviour per target; overrides `stub`.
  ///   - cacheScope: gives the owner of cache entries, e.g. the signed-in user's id; when nil
  ///     (or when it returns nil) entries are partitioned by every credential header.
  ///   - sensitiveHeaders: more header names that carry credentials.
  public init(
    transport: any HTTPTransport = URLSessionTransport(), decoder: LenientDecoder = .init(),
    plugins: [any Plugin] = [], stub: StubBehavior = .never, fixtures: URL? = nil,
    scenario: String? = nil, cache: (any ResponseCache)? = nil, baseURL: URL? = nil,
    stubbing: (@Sendable (Target) -> StubBehavior)? = nil,
    cacheScope: (@Sendable () async -> String?)? = nil, sensitiveHeaders: Set<String> = []
  ) {
    self.transport = transport
    self.decoder = decoder
    self.plugins = plugins
    self.stub = stub
    self.fixtures = fixtures
    self.scenario = scenario
    self.cache = cache
    self.cacheScope = cacheScope
    self.baseURL = baseURL
    self.stubbing = stubbing
    self.sensitiveHeaders = Set(sensitiveHeaders.map { $0.lowercased() })
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
      transport: transport, decoder: decoder, plugins: plugins, stub: stub, fixtures: fixtures,
      scenario: name, cache: cache, baseURL: baseURL, stubbing: stubbing, cacheScope: cacheScope,
      sensitiveHeaders: sensitiveHeaders)
  }

  /// Sends the request and validates the HTTP status.
  ///
  /// - Parameter target: the endpoint.
  /// - Returns: the response.
  /// - Throws: `ProviderError`, or `CancellationError` when the calling task is cancelled.
  public func response(_ target: Target) async throws -> Response {
    try await run(target) { response in Decoded(value: response, report: DecodingReport()) }.value
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
  ///   invalid code or missing data) or the format's mapped error.
  public func request<T: Decodable>(_ target: Target, as type: T.Type = T.self) async throws -> T {
    try await decodedResponse(target, as: type).value
  }

  /// Sends the request, checks the envelope's code, then decodes `T` at a path inside data
  /// (MoyaMapper's `modelKey = "data>list"`).
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
    try await run(target) { response in
      try self.decoder.decodeEnvelopeWithReport(
        T.self, from: response.data, format: target.envelope ?? self.decoder.envelope, at: path)
    }.value
  }

  /// Sends the request, validates the status, and decodes the value at a key path (no envelope).
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the value type.
  ///   - path: where the value is; `.root` for the whole body.
  /// - Returns: the value.
  /// - Throws: `ProviderError`.
  public func request<T: Decodable>(_ target: Target, as type: T.Type = T.self, at path: JSONPath)
    async throws -> T
  {
    try await decodedResponse(target, as: type, at: path).value
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
    try await run(target) { try self.envelopeValue(T.self, $0, target) }
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
          let network = try await self.run(target, cacheUse: .refresh) {
            try self.envelopeValue(T.self, $0, target)
          }
          continuation.yield(Sourced(value: network.value, source: .network))
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The cached value of `target`, decoded; nil when there is none or it no longer decodes.
  private func cachedValue<T: Decodable>(_ target: Target, _ type: T.Type) async -> Sourced<T>? {
    guard let cache else { return nil }
    do {
      let request = try await preparedRequest(target)
      guard let key = await cacheKey(request, target, .refresh),
        var entry = await cache.cachedResponse(forKey: key)
      else { return nil }
      entry.response.request = request
      let value = try envelopeValue(T.self, entry.response, target).value
      return Sourced(value: value, source: .cache(storedAt: entry.storedAt))
    } catch {
      return nil  // the network answers instead; its errors are the ones reported
    }
  }

  /// The payload of an envelope response, or the empty value of a no-content response.
  private func envelopeValue<T: Decodable>(_ type: T.Type, _ response: Response, _ target: Target)
    throws -> Decoded<T>
  {
    if let empty = try emptyValue(T.self, response, target) {
      return Decoded(value: empty, report: DecodingReport())
    }
    return try decoder.decodeEnvelopeWithReport(
      T.self, from: response.data, format: target.envelope ?? decoder.envelope)
  }

  /// Like `request(_:as:at:)`, with the response and the lenient report.
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the value type.
  ///   - path: where the value is; `.root` for the whole body.
  /// - Returns: the value, its response and its report.
  /// - Throws: `ProviderError`.
  public func decodedResponse<T: Decodable>(
    _ target: Target, as type: T.Type = T.self, at path: JSONPath
  ) async throws -> DecodedResponse<T> {
    try await run(target) { response in
      if let empty = try self.emptyValue(T.self, response, target) {
        return Decoded(value: empty, report: DecodingReport())
      }
      return try self.decoder.decodeWithReport(T.self, from: response.data, at: path)
    }
  }

  // MARK: - Empty bodies

  /// nil to decode as usual; a value for an empty body where none is expected.
  private func emptyValue<T>(_ type: T.Type, _ response: Response, _ target: Target) throws -> T? {
    guard response.data.isEmpty else { return nil }
    let noContent = [204, 205].contains(response.statusCode) || target.method == .head
    if noContent, let empty = EmptyPayload.value(T.self) { return empty }
    throw ProviderError.emptyBody(response)
  }
}
