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
/// ```
public final class Provider<Target: TargetType>: Sendable {
  /// Where requests go when not stubbed.
  public let transport: any HTTPTransport
  /// Decodes bodies; its `envelope` is the default format.
  public let decoder: LenientDecoder
  /// Hooks, run in order.
  public let plugins: [any Plugin]
  /// Whether to answer from `TargetType.sample`.
  public let stub: StubBehavior
  /// The folder stub fixtures are read from; nil for `./Fixtures`.
  public let fixtures: URL?
  /// The stub scenario answered when the target names it in `scenarios`; others answer `sample`.
  public let scenario: String?
  /// Where targets with a `cachePolicy` keep responses; nil for no cache.
  public let cache: (any ResponseCache)?

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
  public init(
    transport: any HTTPTransport = URLSessionTransport(), decoder: LenientDecoder = .init(),
    plugins: [any Plugin] = [], stub: StubBehavior = .never, fixtures: URL? = nil,
    scenario: String? = nil, cache: (any ResponseCache)? = nil
  ) {
    self.transport = transport
    self.decoder = decoder
    self.plugins = plugins
    self.stub = stub
    self.fixtures = fixtures
    self.scenario = scenario
    self.cache = cache
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
      scenario: name, cache: cache)
  }

  /// Sends the request and validates the HTTP status.
  ///
  /// - Parameter target: the endpoint.
  /// - Returns: the response.
  /// - Throws: `ProviderError`, or `CancellationError` when the calling task is cancelled.
  public func response(_ target: Target) async throws -> Response {
    try await run(target) { $0 }
  }

  /// Sends the request, validates the status, and unwraps the envelope (the target's format,
  /// else the decoder's).
  ///
  /// - Parameters:
  ///   - target: the endpoint.
  ///   - type: the payload type. An empty body is accepted for 204, 205 and HEAD when `T` is
  ///     `Empty` or Optional.
  /// - Returns: the payload.
  /// - Throws: `ProviderError` (`.business` for a non-success code) or the format's mapped error.
  public func request<T: Decodable>(_ target: Target, as type: T.Type = T.self) async throws -> T {
    try await run(target) { response in
      if let empty = try self.emptyValue(T.self, response, target) { return empty }
      let format = target.envelope ?? self.decoder.envelope
      return try self.mapErrors(response) {
        try self.decoder.decodeEnvelope(T.self, from: response.data, format: format)
      }
    }
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
    try await run(target) { response in
      if let empty = try self.emptyValue(T.self, response, target) { return empty }
      return try self.mapErrors(response) {
        try self.decoder.decode(T.self, from: response.data, at: path)
      }
    }
  }

  // MARK: - The pipeline

  /// One call with retries: prepare, send, validate, process, decode; then ask about a retry.
  private func run<T>(_ target: Target, decode: (Response) throws -> T) async throws -> T {
    var attempt = 0
    while true {
      attempt += 1
      try Task.checkCancellation()
      let outcome: Result<T, any Error>
      do {
        let response = try await attemptOnce(target).get()
        outcome = .success(try decode(response))
        await store(response, target)
      } catch is CancellationError {
        throw CancellationError()
      } catch {
        outcome = .failure(error)
      }
      switch outcome {
      case .success(let value):
        return value
      case .failure(let error):
        var delay: Duration?
        for plugin in plugins where delay == nil {
          delay = await plugin.retry(after: error, target: target, attempt: attempt)
        }
        guard let delay else { throw error }
        if delay > .zero { try await Task.sleep(for: delay) }
      }
    }
  }

  private func attemptOnce(_ target: Target) async throws -> Result<Response, ProviderError> {
    var request = try makeRequest(target)
    for plugin in plugins { request = try await plugin.prepare(request, target: target) }
    for plugin in plugins { await plugin.willSend(request, target: target) }
    var result: Result<Response, ProviderError>
    do {
      let response = try await send(request, target)
      result =
        target.validStatusCodes.contains(response.statusCode)
        ? .success(response) : .failure(.status(response))
    } catch let error as ProviderError {
      result = .failure(error)
    } catch let error as URLError {
      if Task.isCancelled || error.code == .cancelled { throw CancellationError() }
      result = .failure(.transport(error))
    }
    for plugin in plugins { await plugin.didReceive(result, target: target) }
    for plugin in plugins { result = await plugin.process(result, target: target) }
    return result
  }

  private func makeRequest(_ target: Target) throws -> URLRequest {
    var request = URLRequest(url: target.url, timeoutInterval: target.timeout)
    request.httpMethod = target.method.rawValue
    try target.task.apply(to: &request, url: target.url)
    for (name, value) in target.headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
  }

  private func send(_ request: URLRequest, _ target: Target) async throws -> Response {
    switch stub {
    case .never:
      let cache = usableCache(target, request)
      if let cache, case .cacheElseLoad(let maxAge) = target.cachePolicy,
        let entry = await cache.cachedResponse(for: request),
        Date().timeIntervalSince(entry.storedAt) < maxAge.seconds
      {
        return entry.response
      }
      do {
        return try await load(request, target)
      } catch let error as URLError where cache != nil && target.cachePolicy == .loadElseCache {
        guard let entry = await cache?.cachedResponse(for: request) else { throw error }
        return entry.response
      }
    case .immediate, .delayed:
      let sample = scenario.flatMap { target.scenarios[$0] } ?? target.sample
      let answer = try sample.resolve(fixtures: fixtures)
      if case .delayed(let delay) = stub { try await Task.sleep(for: delay) }
      if let delay = answer.delay { try await Task.sleep(for: delay) }
      if let failure = answer.failure { throw failure }
      return Response(
        statusCode: answer.status, headers: answer.headers, data: answer.body, request: request)
    }
  }

  private func load(_ request: URLRequest, _ target: Target) async throws -> Response {
    let (data, http) = try await withTimeout(target.timeout) { [transport] in
      try await transport.send(request)
    }
    return Response(
      statusCode: http.statusCode, headers: http.stringHeaders, data: data, request: request)
  }

  // MARK: - Cache

  /// The cache when this target's request may use it: a cache is set, the policy is not
  /// `.never`, the request is a `GET` and it goes to the network.
  private func usableCache(_ target: Target, _ request: URLRequest?) -> (any ResponseCache)? {
    guard let cache, target.cachePolicy != .never, case .never = stub,
      (request?.httpMethod ?? "GET") == "GET"
    else { return nil }
    return cache
  }

  /// Keeps a decoded 2xx network response. A failed write only means a later miss.
  private func store(_ response: Response, _ target: Target) async {
    guard !response.isFromCache, (200...299).contains(response.statusCode),
      let request = response.request, let cache = usableCache(target, request)
    else { return }
    try? await cache.store(response, for: request)
  }

  /// Runs `body`, failing with `URLError(.timedOut)` after `seconds` (FoundationNetworking does
  /// not enforce `URLRequest.timeoutInterval` for a server that accepts and then stalls).
  private func withTimeout<R: Sendable>(
    _ seconds: TimeInterval, _ body: @escaping @Sendable () async throws -> R
  ) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
      group.addTask { try await body() }
      group.addTask {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        throw URLError(.timedOut)
      }
      defer { group.cancelAll() }
      guard let first = try await group.next() else { throw URLError(.unknown) }
      return first
    }
  }

  // MARK: - Decoding helpers

  /// nil to decode as usual; a value for an empty body where none is expected.
  private func emptyValue<T>(_ type: T.Type, _ response: Response, _ target: Target) throws -> T? {
    guard response.data.isEmpty else { return nil }
    let noContent = [204, 205].contains(response.statusCode) || target.method == .head
    if noContent {
      if T.self == Empty.self, let empty = Empty() as? T { return empty }
      if let optional = T.self as? any ExpressibleByNilLiteral.Type,
        let none = Self.nilValue(optional) as? T
      {
        return none
      }
    }
    throw ProviderError.emptyBody(response)
  }

  private static func nilValue<N: ExpressibleByNilLiteral>(_ type: N.Type) -> Any {
    N(nilLiteral: ())
  }

  /// Wraps envelope and decoding errors with the response; mapped user errors pass through.
  private func mapErrors<T>(_ response: Response, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch EnvelopeError.business(let code, let message) {
      throw ProviderError.business(code: code, message: message, response: response)
    } catch let error as DecodingError {
      throw ProviderError.decoding(error, response: response)
    } catch EnvelopeError.missingData(_), EnvelopeError.missingCode {
      throw ProviderError.decoding(
        DecodingError.valueNotFound(
          Any.self,
          DecodingError.Context(codingPath: [], debugDescription: "Envelope has no code or data.")),
        response: response)
    }
  }
}
