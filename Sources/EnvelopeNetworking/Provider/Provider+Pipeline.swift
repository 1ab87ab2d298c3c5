import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The request pipeline, one straight line. A call is attempts until one succeeds or no plugin
// asks for another. An attempt is:
//
//   build → prepare → willSend → send → validate → read the envelope → didReceive → process
//         → decode → (on success) didDecode → store
//
// `send` is one call to the provider's line of transports (stubs → cache → timeout → yours),
// composed when the provider is made; no stage knows whether a stub, the cache or the network
// answered. The envelope's status is read once per response, and the value decoded once. A
// provider without plugins has no stage between the read and the decode: its attempt reads and
// decodes in one pass (`directAttempt`), by the same rules.

/// What a call reads from a response: the envelope status it checks before any plugin sees a
/// success, and the value it decodes after the plugins (or, without plugins, both in one pass).
///
/// A protocol with a small struct per kind of call, not a struct of closures: each closure's
/// context was an allocation per call, and each closure looked the value type's metadata up
/// again.
protocol CallPlan<Value> {
  associatedtype Value
  /// How the call uses the cache.
  var cacheUse: CacheUse { get }
  /// Reads the envelope before the plugins see the response: `status` is set as soon as the
  /// code is read; throws for a non-success code, and for a body the call cannot decode.
  /// Returns nil for calls that read no envelope, and for an empty body that stands for the
  /// empty value.
  func read(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?
  ) throws -> ReadEnvelope?
  /// Decodes the value from the response the plugins handed on (from the envelope read, when
  /// it is still that body); `report` is set to what the decoder reported.
  func decode(
    _ response: Response, _ envelope: ReadEnvelope?, _ target: some TargetType,
    with decoder: LenientDecoder, report: inout DecodingReport
  ) throws -> Value
  /// `read` and `decode` in one pass, when nothing stands between them (no plugins, a cached
  /// answer): the same value, errors and `status`.
  func decodeOnce(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> Value
  /// The next link a page call follows instead of the target's URL (`pages`); nil for others.
  var link: PageLink? { get }
}

extension CallPlan {
  /// No link: the target's URL.
  var link: PageLink? { nil }
}

/// An envelope call: the status and the payload's presence read first, then `T` decoded at
/// `path` inside data from the same scan (a body a plugin replaced is decoded as
/// `decodeEnvelope` does, its code checked).
struct EnvelopePlan<T: Decodable>: CallPlan {
  /// The target's format; nil for the decoder's own, as the decoder applies it.
  var format: EnvelopeFormat?
  var path: JSONPath = .root
  var cacheUse: CacheUse = .byPolicy

  func read(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?
  ) throws -> ReadEnvelope? {
    if response.data.isEmpty {
      _ = try EmptyBody.value(T.self, response, target)
      return nil
    }
    return try decoder.readEnvelope(
      expecting: T.self, from: response.data, format: format, at: path, status: &status)
  }

  func decode(
    _ response: Response, _ envelope: ReadEnvelope?, _ target: some TargetType,
    with decoder: LenientDecoder, report: inout DecodingReport
  ) throws -> T {
    if let envelope {
      return try decoder.decodePayload(T.self, of: envelope, in: response.data, report: &report)
    }
    // No envelope read: an empty body, or a body a plugin put in place of a failure.
    var status: EnvelopeStatus?
    return try decodeOnce(response, target, with: decoder, status: &status, report: &report)
  }

  func decodeOnce(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> T {
    if response.data.isEmpty { return try EmptyBody.value(T.self, response, target) }
    return try decoder.decodeEnvelope(
      T.self, from: response.data, format: format, at: path, status: &status, report: &report)
  }
}

/// A call without an envelope: `T` at `path` of the body.
struct ValuePlan<T: Decodable>: CallPlan {
  var path: JSONPath
  var cacheUse: CacheUse { .byPolicy }

  func read(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?
  ) throws -> ReadEnvelope? {
    if response.data.isEmpty { _ = try EmptyBody.value(T.self, response, target) }
    return nil
  }

  func decode(
    _ response: Response, _ envelope: ReadEnvelope?, _ target: some TargetType,
    with decoder: LenientDecoder, report: inout DecodingReport
  ) throws -> T {
    if response.data.isEmpty { return try EmptyBody.value(T.self, response, target) }
    let decoded = try decoder.decodeWithReport(T.self, from: response.data, at: path)
    report = decoded.report
    return decoded.value
  }

  func decodeOnce(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> T {
    try decode(response, nil, target, with: decoder, report: &report)
  }
}

/// A call for the response itself: nothing read, nothing decoded.
struct ResponsePlan: CallPlan {
  var cacheUse: CacheUse { .byPolicy }

  func read(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?
  ) -> ReadEnvelope? { nil }

  func decode(
    _ response: Response, _ envelope: ReadEnvelope?, _ target: some TargetType,
    with decoder: LenientDecoder, report: inout DecodingReport
  ) -> Response { response }

  func decodeOnce(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) -> Response { response }
}

/// The rule for an empty body: the empty value of a no-content response (204, 205, HEAD) when
/// `T` has one (`Empty`, an Optional, an empty collection); `.emptyBody` for any other.
enum EmptyBody {
  static func value<T>(_ type: T.Type, _ response: Response, _ target: some TargetType) throws
    -> T
  {
    let noContent = [204, 205].contains(response.statusCode) || target.method == .head
    if noContent, let empty = EmptyPayload.value(T.self) { return empty }
    throw ProviderError.emptyBody(response)
  }
}

/// Another plan's value with its response and report (`decodedResponse`). A plan of its own, so
/// that a call for the value alone (`request`) makes no `DecodedResponse<T>` (a generic wrapper
/// is a metadata lookup in every function that names it) and keeps no copy of the response.
struct WithResponse<Inner: CallPlan>: CallPlan {
  var inner: Inner
  var cacheUse: CacheUse { inner.cacheUse }

  func read(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?
  ) throws -> ReadEnvelope? {
    try inner.read(response, target, with: decoder, status: &status)
  }

  func decode(
    _ response: Response, _ envelope: ReadEnvelope?, _ target: some TargetType,
    with decoder: LenientDecoder, report: inout DecodingReport
  ) throws -> DecodedResponse<Inner.Value> {
    let value = try inner.decode(response, envelope, target, with: decoder, report: &report)
    return DecodedResponse(value: value, response: response, report: report)
  }

  func decodeOnce(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> DecodedResponse<Inner.Value> {
    let value = try inner.decodeOnce(
      response, target, with: decoder, status: &status, report: &report)
    var response = response
    response.keep(status)
    return DecodedResponse(value: value, response: response, report: report)
  }
}

extension Response {
  /// Keeps the envelope status read for this response (none read: as it was).
  mutating func keep(_ status: EnvelopeStatus?) {
    if let status { envelopeStatus = status }
  }
}

extension Provider {
  /// One call: attempts until one succeeds or no plugin asks for another.
  ///
  /// An attempt's failure is thrown, not returned: a `Result` or an Optional of the plan's
  /// generic value costs every call a runtime metadata lookup.
  nonisolated(nonsending) func run<Plan: CallPlan>(_ target: Target, _ plan: Plan) async throws
    -> Plan.Value
  {
    let id = ProviderCall.nextID()
    var attempt = 0
    while true {
      attempt += 1
      try Task.checkCancellation()
      let exchange = Exchange(
        call: ProviderCall(id: id, attempt: attempt), target: target, cacheUse: plan.cacheUse,
        plugins: plugins)
      do {
        // The line is handed the exchange; the task-local is for your code (see
        // `attemptsCallYourCode`). Without plugins, nothing stands between the envelope read
        // and the decode: one pass (`directAttempt`).
        guard attemptsCallYourCode else {
          return try await self.directAttempt(target, plan, exchange)
        }
        return try await Exchange.$current.withValue(exchange) {
          guard !plugins.isEmpty else {
            return try await self.directAttempt(target, plan, exchange)
          }
          return try await self.attempt(target, plan, exchange)
        }
      } catch let error as ProviderError {
        let delay = await Exchange.$current.withValue(exchange) {
          await self.retryDelay(after: error, target: target, attempt: attempt)
        }
        guard let delay else { throw surfaced(error, target) }
        if delay > .zero { try await Task.sleep(for: delay) }
      }
    }
  }

  /// One attempt of a provider with plugins: the shared stages, then the value decoded once
  /// from what the plugins handed on, then didDecode and store. Throws a `ProviderError`, or
  /// `CancellationError`.
  private nonisolated(nonsending) func attempt<Plan: CallPlan>(
    _ target: Target, _ plan: Plan, _ exchange: Exchange
  ) async throws -> Plan.Value {
    var envelope: ReadEnvelope?
    let result = try await self.exchange(target, following: plan.link) { response, status in
      envelope = try plan.read(response, target, with: decoder, status: &status)
    } send: {
      try await self.line.response(to: $0, in: exchange)
    }
    let response: Response
    switch consume result {  // moved out, not copied
    case .success(let value): response = value
    case .failure(let error): throw error
    }
    var report = DecodingReport()
    let value: Plan.Value
    do {
      value = try plan.decode(response, envelope, target, with: decoder, report: &report)
    } catch {
      var failed = response
      failed.failureDecoder = FailureDecoder(decoder)
      throw try Self.providerError(error, response: failed)
    }
    // Each stage called only when it has work: an async call costs a frame even when it
    // returns at once.
    if !report.isEmpty { await didDecode(report, response, target) }
    if cacheLayer != nil { await store(response, target, plan.cacheUse) }
    return value
  }

  /// An attempt of a provider without plugins: build, send, validate, then the envelope read
  /// and the decode in one pass (no hook stands between them), then store. The same values,
  /// errors (and the response and status they carry) and stores as `attempt` with plugins that
  /// change nothing (a test holds the two to each other); one scan of the body instead of two,
  /// and three async frames fewer.
  private nonisolated(nonsending) func directAttempt<Plan: CallPlan>(
    _ target: Target, _ plan: Plan, _ exchange: Exchange
  ) async throws -> Plan.Value {
    var response: Response
    do {
      var request = try build(target)
      if let link = plan.link { request = link.credentialed(link.aim(request)) }
      response = try await line.response(to: request, in: exchange)
    } catch {
      throw try Self.providerError(error, response: nil)
    }
    var report = DecodingReport()
    let value = try accept(&response, target) { response, status in
      try plan.decodeOnce(response, target, with: decoder, status: &status, report: &report)
    }
    if cacheLayer != nil { await store(response, target, plan.cacheUse) }
    return value
  }

  /// The stages before the decode, for a call's attempt with plugins and for every transfer:
  /// build, prepare, willSend, send, validate, read the envelope, didReceive, process. Every
  /// failure is a `ProviderError`; cancellation is rethrown. A page call `following` a link
  /// sends the built request there, and the prepared one without the credentials another
  /// origin must not get.
  nonisolated(nonsending) func exchange(
    _ target: Target, following link: PageLink? = nil,
    read: (Response, inout EnvelopeStatus?) throws -> Void = { _, _ in },
    send: (URLRequest) async throws -> Response
  ) async throws -> Result<Response, ProviderError> {
    var result: Result<Response, ProviderError>
    do {
      var built = try build(target)
      if let link { built = link.aim(built) }
      var request = plugins.isEmpty ? built : try await prepare(built, target)
      if let link { request = link.credentialed(request) }
      for plugin in plugins { await plugin.willSend(request, target: target) }
      var response = try await send(request)
      try accept(&response, target, read)
      result = .success(response)
    } catch {
      result = .failure(try Self.providerError(error, response: nil))
    }
    for plugin in plugins { await plugin.didReceive(result, target: target) }
    for plugin in plugins { result = await plugin.process(result, target: target) }
    return result
  }

  // MARK: - Stages

  /// build: the URL (the provider's `baseURL` override, the path, the task's and the target's
  /// query), method, timeout, body and headers.
  func build(_ target: Target) throws -> URLRequest {
    var request = baseRequests.request(
      baseURL ?? target.baseURL, target.path,
      timeout: try Timeout.requestInterval(target.timeout))
    // GET is a new request's method already; setting it compares method names, case-insensitively.
    if target.method != .get { request.httpMethod = target.method.rawValue }
    try target.task.apply(to: &request, query: target.query)
    for (name, value) in target.headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
  }

  /// validate, then `step` (the envelope read, or without plugins the read and the decode); the
  /// status read is kept on the response, and a failure is thrown as a `ProviderError` that
  /// carries the response (apart from `exchange` so that no copy of the response is kept for its
  /// errors). The one place both attempts apply these rules.
  private func accept<Outcome>(
    _ response: inout Response, _ target: Target,
    _ step: (Response, inout EnvelopeStatus?) throws -> Outcome
  ) throws -> Outcome {
    var status: EnvelopeStatus?
    do {
      try validate(&response, target)
      let outcome = try step(response, &status)
      response.keep(status)
      return outcome
    } catch {
      response.keep(status)
      if response.failureDecoder == nil { response.failureDecoder = FailureDecoder(decoder) }
      throw try Self.providerError(error, response: response)
    }
  }

  /// prepare: each plugin in order may change the request.
  nonisolated(nonsending) func prepare(_ request: URLRequest, _ target: Target) async throws
    -> URLRequest
  {
    var request = request
    for plugin in plugins { request = try await plugin.prepare(request, target: target) }
    return request
  }

  /// validate: a status the target accepts. Otherwise a body that is an envelope of the
  /// target's (or provider's) format with a non-success code is that business failure (or the
  /// format's mapped error), keeping the HTTP status; anything else is `.status`.
  private func validate(_ response: inout Response, _ target: Target) throws {
    guard !target.validStatusCodes.contains(response.statusCode) else { return }
    // The error carries the response: `errorBody(as:)` reads it with this provider's decoder.
    response.failureDecoder = FailureDecoder(decoder)
    let format = target.envelope ?? decoder.envelope
    if !response.data.isEmpty,
      let status = try? decoder.envelopeStatus(from: response.data, format: format),
      !status.isSuccess
    {
      response.envelopeStatus = status
      throw try Self.providerError(format.error(for: status), response: response)
    }
    throw ProviderError.status(response)
  }

  /// didDecode: the lenient report, when not empty, once per call (a cached answer's report too;
  /// `LoggingPlugin` logs a cache hit's source instead of its drift).
  private func didDecode(_ report: DecodingReport, _ response: Response, _ target: Target) async {
    for plugin in plugins { await plugin.didDecode(report, target: target, response: response) }
  }

  /// store: a decoded network response goes to the cache (the cache transport decides what).
  private func store(_ response: Response, _ target: Target, _ cacheUse: CacheUse) async {
    await cacheLayer?.store(response, target: target, use: cacheUse)
  }

  /// retry: the first delay a plugin asks for; every plugin hears `willRetry`.
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

  /// What the caller receives for a failed call, after the plugins and retries saw `error`;
  /// the one place every call (requests, pages, transfers) decides it. A response that failed
  /// (a status the target does not accept, a business failure, or the error the envelope
  /// format mapped one to) gives the target's own error (`TargetType.error(for:)`) when it has
  /// one. Otherwise the provider error, except that an error the envelope format mapped (the
  /// only `.underlying` that has a response) is thrown as itself.
  func surfaced(_ error: ProviderError, _ target: Target) -> any Error {
    switch error {
    case .status(let response), .business(_, _, let response):
      return targetError(for: response, target) ?? error
    case .underlying(let mapped, let response?):
      // A mapped business failure; any other error with a response is not the response's.
      guard response.envelopeStatus?.isSuccess == false else { return mapped }
      return targetError(for: response, target) ?? mapped
    default:
      return error
    }
  }

  /// The target's error for a failed response, which reads with this provider's decoder (a
  /// response a plugin made in place of the failure has none yet).
  private func targetError(for response: Response, _ target: Target) -> (any Error)? {
    var response = response
    if response.failureDecoder == nil { response.failureDecoder = FailureDecoder(decoder) }
    return target.error(for: response)
  }
}

/// The requests `build` starts from, remembered for the last few hundred endpoints:
/// `URLRequest(url:timeoutInterval:)` for `base.appendingPathComponent(path)` (`base` itself for
/// an empty path).
///
/// Joining parses a URL and making a request bridges it (on Linux), together more than a third
/// of a stubbed call's own cost. A remembered request is copied on write: a plain GET takes it as
/// it is, any other change copies it first.
///
/// `@unchecked Sendable`: `joined` and `last` are only touched with `lock` held.
final class BaseRequests: @unchecked Sendable {
  private struct Key: Hashable {
    var base: URL
    var path: String
    var timeout: TimeInterval
  }

  /// Endpoints kept before the memory starts over (a provider's paths with ids in them vary).
  static let limit = 256
  private let lock = NSLock()
  private var joined: [Key: URLRequest] = [:]
  /// The endpoint asked for last, compared before hashing: a screen asks for the same endpoint
  /// again and again, and hashing a URL cost more than comparing it.
  private var last: (key: Key, request: URLRequest)?

  /// The request for `path` under `base`, with `timeout`.
  func request(_ base: URL, _ path: String, timeout: TimeInterval) -> URLRequest {
    let key = Key(base: base, path: path, timeout: timeout)
    let known = lock.withLock { () -> URLRequest? in
      if let last, last.key == key { return last.request }
      guard let request = joined[key] else { return nil }
      last = (key, request)
      return request
    }
    if let known { return known }
    let url = path.isEmpty ? base : base.appendingPathComponent(path)
    let request = URLRequest(url: url, timeoutInterval: timeout)
    lock.withLock {
      if joined.count >= Self.limit { joined.removeAll(keepingCapacity: true) }
      joined[key] = request
      last = (key, request)
    }
    return request
  }
}
