import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The request pipeline, stage by stage: build, prepare, send (stub, cache or transport),
// validate, decode, plugins, retry, store.
extension Provider {
  /// One call: attempts until one succeeds or no plugin asks for another.
  func run<T>(
    _ target: Target, cacheUse: CacheUse = .byPolicy,
    decode: @escaping (Response) throws -> Decoded<T>
  ) async throws -> DecodedResponse<T> {
    let id = ProviderCall.nextID()
    var attempt = 0
    while true {
      attempt += 1
      try Task.checkCancellation()
      let call = ProviderCall(id: id, attempt: attempt)
      let outcome = try await ProviderCall.$current.withValue(call) {
        try await attemptOnce(target, cacheUse, decode)
      }
      switch outcome {
      case .success(let decoded):
        try await ProviderCall.$current.withValue(call) {
          try await finish(decoded, target, cacheUse)
        }
        return decoded
      case .failure(let error):
        let delay = await ProviderCall.$current.withValue(call) {
          await retryDelay(after: error, target: target, attempt: attempt)
        }
        guard let delay else { throw Self.surfaced(error) }
        if delay > .zero { try await Task.sleep(for: delay) }
      }
    }
  }

  /// Prepare, send, validate and decode once; every failure becomes a `ProviderError` and goes
  /// through `didReceive` and `process`.
  private func attemptOnce<T>(
    _ target: Target, _ cacheUse: CacheUse, _ decode: (Response) throws -> Decoded<T>
  ) async throws -> Result<DecodedResponse<T>, ProviderError> {
    var decoded: (response: Response, value: Decoded<T>)?
    let result = try await exchange(target) { request in
      try await send(request, target, cacheUse)
    } check: { response in
      decoded = (response, try decode(response))
    }
    switch result {
    case .failure(let error):
      return .failure(error)
    case .success(let response):
      // A plugin may have replaced the response: decode what it handed on.
      if let decoded, decoded.response.statusCode == response.statusCode,
        decoded.response.data == response.data
      {
        return .success(
          DecodedResponse(
            value: decoded.value.value, response: response, report: decoded.value.report))
      }
      do {
        let value = try decode(response)
        return .success(
          DecodedResponse(value: value.value, response: response, report: value.report))
      } catch {
        return .failure(try Self.providerError(error, response: response))
      }
    }
  }

  /// The stages every attempt shares (calls and transfers): build and prepare the request, tell
  /// the plugins, send, validate the status, run `check` on the response, then `didReceive` and
  /// `process`. Every failure is a `ProviderError`; cancellation is rethrown.
  func exchange(
    _ target: Target, send: (URLRequest) async throws -> Response,
    check: (Response) throws -> Void = { _ in }
  ) async throws -> Result<Response, ProviderError> {
    var result: Result<Response, ProviderError>
    do {
      let request = try await preparedRequest(target)
      for plugin in plugins { await plugin.willSend(request, target: target) }
      let response = try await send(request)
      guard target.validStatusCodes.contains(response.statusCode) else {
        throw ProviderError.status(response)
      }
      do {
        try check(response)
      } catch {
        throw try Self.providerError(error, response: response)
      }
      result = .success(response)
    } catch {
      result = .failure(try Self.providerError(error, response: nil))
    }
    for plugin in plugins { await plugin.didReceive(result, target: target) }
    for plugin in plugins { result = await plugin.process(result, target: target) }
    return result
  }

  /// The target's request after every plugin's `prepare`.
  func preparedRequest(_ target: Target) async throws -> URLRequest {
    var request = try makeRequest(target)
    for plugin in plugins { request = try await plugin.prepare(request, target: target) }
    return request
  }

  /// Reports drift to the plugins and keeps the response in the cache.
  private func finish<T>(_ decoded: DecodedResponse<T>, _ target: Target, _ cacheUse: CacheUse)
    async throws
  {
    if !decoded.report.isEmpty {
      for plugin in plugins {
        await plugin.didDecode(decoded.report, target: target, response: decoded.response)
      }
    }
    await store(decoded.response, target, cacheUse)
  }

  /// The first delay a plugin asks for; the plugins are told about the retry.
  private func retryDelay(after error: ProviderError, target: Target, attempt: Int) async
    -> Duration?
  {
    var delay: Duration?
    for plugin in plugins where delay == nil {
      delay = await plugin.retry(after: error, target: target, attempt: attempt)
    }
    if let delay {
      for plugin in plugins {
        await plugin.willRetry(after: error, target: target, attempt: attempt + 1, delay: delay)
      }
    }
    return delay
  }

  // MARK: - Errors

  /// Any error of an attempt as a `ProviderError`; cancellation is rethrown as it is.
  static func providerError(_ error: any Error, response: Response?) throws -> ProviderError {
    switch error {
    case let error as ProviderError:
      return error
    case is CancellationError:
      throw error
    case let error as URLError:
      if Task.isCancelled || error.code == .cancelled { throw CancellationError() }
      return .transport(error)
    case EnvelopeError.business(let code, let message):
      guard let response else { return .underlying(error, response: nil) }
      return .business(code: code, message: message, response: response)
    case let error as EnvelopeError:
      guard let response else { return .underlying(error, response: nil) }
      return .envelope(error, response: response)
    case let error as DecodingError:
      guard let response else { return .underlying(error, response: nil) }
      return .decoding(error, response: response)
    default:
      if Task.isCancelled { throw CancellationError() }
      return .underlying(error, response: response)
    }
  }

  /// What the caller receives: the provider error, except that an error the envelope format
  /// mapped (the only `.underlying` that has a response) is thrown as itself.
  static func surfaced(_ error: ProviderError) -> any Error {
    if case .underlying(let mapped, let response) = error, response != nil { return mapped }
    return error
  }

  // MARK: - Building the request

  /// The URL (the provider's `baseURL` override, the path, the task's and the target's query),
  /// method, body and headers.
  private func makeRequest(_ target: Target) throws -> URLRequest {
    let base = baseURL ?? target.baseURL
    let url = target.path.isEmpty ? base : base.appendingPathComponent(target.path)
    var request = URLRequest(url: url, timeoutInterval: target.timeout)
    request.httpMethod = target.method.rawValue
    try target.task.apply(to: &request, query: target.query)
    for (name, value) in target.headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
  }

  // MARK: - Sending

  /// The stub behaviour for `target`.
  func stubBehavior(_ target: Target) -> StubBehavior {
    stubbing?(target) ?? stub
  }

  /// Answers from a stub, the cache or the transport.
  func send(_ request: URLRequest, _ target: Target, _ cacheUse: CacheUse) async throws
    -> Response
  {
    switch stubBehavior(target) {
    case .never:
      guard let cache, let key = await cacheKey(request, target, cacheUse) else {
        return try await load(request, target)
      }
      var fallsBackOnServerError: Bool?  // nil: the cache never stands in for the network
      if cacheUse == .byPolicy {
        switch target.cachePolicy {
        case .cacheElseLoad(let maxAge):
          if let entry = await cache.cachedResponse(forKey: key), entry.isFresh(maxAge) {
            return cached(entry, request)
          }
        case .loadElseCache(let onServerError):
          fallsBackOnServerError = onServerError
        case .never:
          break
        }
      }
      do {
        let response = try await load(request, target)
        if fallsBackOnServerError == true, (500...599).contains(response.statusCode),
          let entry = await cache.cachedResponse(forKey: key)
        {
          return cached(entry, request)
        }
        return response
      } catch let error as URLError where fallsBackOnServerError != nil {
        guard let entry = await cache.cachedResponse(forKey: key) else { throw error }
        return cached(entry, request)
      }
    case .immediate, .delayed:
      let sample = scenario.flatMap { target.scenarios[$0] } ?? target.sample
      let answer = try sample.resolve(fixtures: fixtures)
      if case .delayed(let delay) = stubBehavior(target) { try await Task.sleep(for: delay) }
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

  private func cached(_ entry: CachedResponse, _ request: URLRequest) -> Response {
    var response = entry.response
    response.request = request
    response.isFromCache = true
    return response
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

  // MARK: - Cache

  /// The cache key when this request may use the cache: a cache is set, the request goes to
  /// the network, and the target's policy is not `.never` (or the call is a cache-then-network
  /// refresh). See `CachePartition`.
  func cacheKey(_ request: URLRequest, _ target: Target, _ cacheUse: CacheUse) async -> String? {
    guard cache != nil, case .never = stubBehavior(target),
      cacheUse == .refresh || target.cachePolicy != .never
    else { return nil }
    let scope = await cacheScope?()
    return CachePartition.key(
      for: request, identity: target.cacheKey, endpoint: (baseURL ?? target.baseURL, target.path),
      scope: scope, redaction: Redaction(headers: sensitiveHeaders))
  }

  /// Keeps a decoded 2xx network response. A failed write only means a later miss.
  private func store(_ response: Response, _ target: Target, _ cacheUse: CacheUse) async {
    guard !response.isFromCache, (200...299).contains(response.statusCode),
      let request = response.request, let cache,
      let key = await cacheKey(request, target, cacheUse)
    else { return }
    do {
      try await cache.store(response, forKey: key)
    } catch {
      // A cache that cannot be written is a miss next time; the call itself succeeded.
    }
  }
}

/// How one call uses the provider's cache.
enum CacheUse {
  /// As the target's `cachePolicy` says.
  case byPolicy
  /// Network only, and store the answer whatever the policy (the network leg of
  /// `cachedThenNetwork`).
  case refresh
}

extension CachedResponse {
  /// Stored less than `maxAge` ago; an entry dated in the future is stale.
  func isFresh(_ maxAge: Duration) -> Bool {
    let age = Date().timeIntervalSince(storedAt)
    return age >= 0 && age < maxAge.seconds
  }
}
