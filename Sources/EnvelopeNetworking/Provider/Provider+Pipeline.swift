import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The request pipeline, one straight line. A call is attempts until one succeeds or no plugin
// asks for another. An attempt is:
//
//   build → prepare → willSend → send → validate → read and decode → didReceive → process
//         → (on success) didDecode → store
//
// `send` is one call to the provider's line of transports (stubs → cache → requests in flight,
// with `deduplicatesRequests` → timeout → yours), composed when the provider is made; no stage
// knows whether a stub, the cache or the network
// answered. The plugin stages are a chain the attempt passes through, empty when the provider
// has none: there is one attempt, with or without plugins. The envelope's status is read and the
// value decoded in one pass of the decoder, as soon as the status is accepted: plugins see the
// status on the response (`Response.envelopeStatus`), a business failure and a malformed body
// (`Malformed`) are failures they see, and the value waits for them. Nothing of the body's scan
// outlives that pass, so nothing is copied for the plugins' awaits; a body a plugin's `process`
// puts in place of the one read is decoded again, by the same rules.

/// What a call decodes from a response: the envelope's status (checked before anything else)
/// and the value, in one pass.
///
/// A protocol with a small struct per kind of call, not a struct of closures: each closure's
/// context was an allocation per call, and each closure looked the value type's metadata up
/// again.
protocol CallPlan<Value> {
  associatedtype Value
  /// How the call uses the cache.
  var cacheUse: CacheUse { get }
  /// The envelope format the body is read under: nil for the decoder's own, `.plain` for a call
  /// that reads the body as it is.
  var format: EnvelopeFormat? { get }
  /// Reads the envelope and decodes the value in one pass: `status` is set as soon as the code
  /// is read; throws for a non-success code (before the value is touched), for a body the call
  /// cannot decode, and for an empty body that stands for no value; `report` is set to what the
  /// decoder reported.
  func decode(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> Value
  /// The value decoded before the plugins looked, handed over with the response the plugins
  /// handed on (the same body; a header a plugin changed): the response a value carries is that
  /// one.
  func handing(_ value: consuming Value, over response: Response) -> Value
  /// The next link a page call follows instead of the target's URL (`pages`); nil for others.
  var link: PageLink? { get }
}

extension CallPlan {
  /// No link: the target's URL.
  var link: PageLink? { nil }
  /// The value as it is: it carries no response.
  func handing(_ value: consuming Value, over response: Response) -> Value { value }
}

/// An envelope call (`EnvelopeFormat.plain`: the whole body): the status and the payload's
/// presence read first, then `T` decoded at `path` inside data from the same scan.
struct EnvelopePlan<T: Decodable>: CallPlan {
  /// The target's format; nil for the decoder's own, as the decoder applies it.
  var format: EnvelopeFormat?
  var path: JSONPath = .root
  var cacheUse: CacheUse = .byPolicy

  func decode(
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
  var format: EnvelopeFormat? { .plain }

  func decode(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> T {
    if response.data.isEmpty { return try EmptyBody.value(T.self, response, target) }
    let decoded = try decoder.decodeWithReport(T.self, from: response.data, at: path)
    report = decoded.report
    return decoded.value
  }
}

/// A call for the response itself: nothing read, nothing decoded.
struct ResponsePlan: CallPlan {
  var cacheUse: CacheUse { .byPolicy }
  var format: EnvelopeFormat? { .plain }

  func decode(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) -> Response { response }
}

extension Provider {
  /// Whether `other` is the body `body` is: the same bytes in memory (a copy of a `Data` shares
  /// them until one is changed), else equal bytes.
  static func same(_ body: Data, _ other: Data) -> Bool {
    guard other.count == body.count else { return false }
    let shared = body.withUnsafeBytes { mine in
      other.withUnsafeBytes { theirs in mine.baseAddress == theirs.baseAddress }
    }
    return shared || other == body
  }
}

/// The rule for a body that failed to decode: it is malformed, a failure of the response that
/// the plugins see (`didReceive` and `process`, as for a status the target does not accept),
/// when its envelope's status cannot be read from it under the call's format (not JSON, cut
/// short, nested too deep; under `.plain`, not JSON). A body whose status was read and whose
/// value does not decode is the call's decoding error, after the plugins. Asked only on that
/// rare path: the status is read again.
enum Malformed {
  static func body(_ data: Data, under format: EnvelopeFormat?, decoder: LenientDecoder) -> Bool {
    (try? decoder.envelopeStatus(from: data, format: format)) == nil
  }
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
  var format: EnvelopeFormat? { inner.format }

  func decode(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> DecodedResponse<Inner.Value> {
    let value = try inner.decode(response, target, with: decoder, status: &status, report: &report)
    var response = response
    response.keep(status)
    return DecodedResponse(value: value, response: response, report: report)
  }

  func handing(_ value: consuming DecodedResponse<Inner.Value>, over response: Response)
    -> DecodedResponse<Inner.Value>
  {
    var value = value
    value.value = inner.handing(value.value, over: response)
    value.response = response
    return value
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
    // What plugins (and your transport) keep for this call, shared by its attempts.
    let values = attemptsCallYourCode ? CallValues() : CallValues.none
    var attempt = 0
    while true {
      attempt += 1
      try Task.checkCancellation()
      // Made optional once: the line and the task-local take an `Exchange?`, and wrapping a
      // copy for each of them copied its fields (the target, the plugins, the call's values).
      let exchange: Exchange? = Exchange(
        call: ProviderCall(id: id, attempt: attempt, values: values), target: target,
        cacheUse: plan.cacheUse,
        plugins: plugins, redaction: redactionRule)
      do {
        // The line is handed the exchange; the task-local is for your code (see
        // `attemptsCallYourCode`).
        guard attemptsCallYourCode else { return try await self.attempt(target, plan, exchange) }
        return try await Exchange.$current.withValue(exchange) {
          try await self.attempt(target, plan, exchange)
        }
      } catch {
        try await afterFailure(error, target, attempt: attempt, exchange)
      }
    }
  }

  /// After a failed attempt: throws what the caller receives, or waits the delay a plugin asked
  /// for before the next attempt. Apart from `run` so that its locals (the error, the delay, the
  /// clock's instants) are not in every call's frame: an async function's local of a generic or
  /// resilient type is an allocation of the task's on each call, taken or not.
  @inline(never)
  private nonisolated(nonsending) func afterFailure(
    _ error: any Error, _ target: Target, attempt: Int, _ exchange: Exchange?
  ) async throws {
    guard let error = error as? ProviderError else { throw error }
    let delay = await Exchange.$current.withValue(exchange) {
      await self.retryDelay(after: error, target: target, attempt: attempt)
    }
    guard let delay else { throw surfaced(error, target) }
    if delay > .zero { try await Task.sleep(for: delay) }
  }

  /// One attempt, with or without plugins: the stages (`exchange`, whose plugin chain is empty
  /// without plugins), the value decoded in the pass that read the status, then didDecode and
  /// store. Throws a `ProviderError`, or `CancellationError`.
  ///
  /// The value is decoded before the plugins see the response, and handed over after them when
  /// they hand on the same body; a value that does not decode fails after them. A body whose
  /// envelope cannot be read at all (not JSON: `Malformed`) is a failed response, which the
  /// plugins see as they see a status the target does not accept. A body a plugin put in place
  /// of the one read is decoded again.
  private nonisolated(nonsending) func attempt<Plan: CallPlan>(
    _ target: Target, _ plan: Plan, _ exchange: Exchange?
  ) async throws -> Plan.Value {
    // What the pass that read the status decoded, and from which body: a value, or why not.
    // Separate locals, not a wrapper: a wrapper of the generic value was copied on the way out.
    var early: Plan.Value?
    var earlyError: DecodingError?
    var earlyBody: Data?
    var report = DecodingReport()
    let result = try await self.exchange(target, following: plan.link) { response, status in
      do {
        early = try plan.decode(response, target, with: decoder, status: &status, report: &report)
      } catch let error as DecodingError {
        if Malformed.body(response.data, under: plan.format, decoder: decoder) { throw error }
        earlyError = error
      }
      // Only a body this pass decoded (a value, or why the value did not decode) is handed
      // over: a failed body (a business code, `Malformed`) that a plugin hands on as a success
      // is read again, and fails again by the same rules.
      earlyBody = response.data
    } send: {
      try await self.line.response(to: $0, in: exchange)
    }
    let response = try settle(
      consume result, &early, earlyError: earlyError, earlyBody: earlyBody, &report, target, plan)
    // Each stage called only when it has work: an async call costs a frame even when it
    // returns at once.
    if !report.isEmpty { await didDecode(report, response, target) }
    if cacheLayer != nil { await store(response, target, plan.cacheUse) }
    return try Self.take(&early)
  }

  /// The response the plugins handed on, with the attempt's value settled in `early`: the value
  /// decoded before the plugins looked, handed over when they handed on the same body, else
  /// `response` decoded again. Throws the attempt's failure, as a `ProviderError`.
  ///
  /// Sync and apart from `attempt`: in an async function each local of a generic or resilient
  /// type (the value, an Optional of it, a `DecodingError`, a `ProviderError`, a `Result`) is
  /// an allocation of the task's on every call, taken or not.
  @inline(never)
  private func settle<Plan: CallPlan>(
    _ result: consuming Result<Response, ProviderError>, _ early: inout Plan.Value?,
    earlyError: DecodingError?, earlyBody: Data?, _ report: inout DecodingReport,
    _ target: Target, _ plan: Plan
  ) throws -> Response {
    let response: Response
    switch consume result {  // moved out, not copied
    case .success(let value): response = value
    case .failure(let error): throw error
    }
    // The status of a body a plugin put in place, once read: its failure carries it (the
    // target's `error(for:)` and `surfaced` decide on it), not the replaced body's.
    var status: EnvelopeStatus?
    do {
      // Only a plugin's `process` hands on another body: without plugins it is the one read.
      if let body = earlyBody, plugins.isEmpty || Self.same(body, response.data) {
        if let earlyError { throw earlyError }
        guard let decoded = early.take() else { throw CancellationError() }
        // Consumed: passed as it was, the value was copied (a retain per reference it holds).
        early = plan.handing(consume decoded, over: response)
      } else {
        report = DecodingReport()
        early = try plan.decode(response, target, with: decoder, status: &status, report: &report)
      }
    } catch {
      var failed = response
      failed.keep(status)
      failed.failureDecoder = FailureDecoder(decoder)
      throw try Self.providerError(error, response: failed)
    }
    return response
  }

  /// The settled value, moved out of its Optional (sync, for the same reason as `settle`).
  @inline(never)
  private static func take<Value>(_ value: inout Value?) throws -> Value {
    guard let value = value.take() else { throw CancellationError() }
    return value
  }

  /// The stages of a call's attempt and of every transfer: build, prepare, willSend, send,
  /// validate, `read` (a call's read and decode), didReceive, process. Every
  /// failure is a `ProviderError`; cancellation is rethrown. A page call `following` a link
  /// sends the built request there, and the prepared one without the credentials another
  /// origin must not get.
  nonisolated(nonsending) func exchange(
    _ target: Target, following link: PageLink? = nil, headers: [String: String] = [:],
    read: (Response, inout EnvelopeStatus?) throws -> Void = { _, _ in },
    send: (URLRequest) async throws -> Response
  ) async throws -> Result<Response, ProviderError> {
    var result: Result<Response, ProviderError>
    do {
      var built = try build(target)
      if let link { built = link.aim(built) }
      for (name, value) in headers { built.setValue(value, forHTTPHeaderField: name) }
      var request = plugins.isEmpty ? built : try await prepare(built, target)
      if let link { request = link.credentialed(request) }
      for plugin in plugins { await plugin.willSend(request, target: target) }
      var response = try await send(request)
      // Written under the provider's names from here on: errors, logs, the cache.
      response.written(under: redactionRule)
      try accept(&response, target, read)
      result = .success(response)
    } catch {
      result = .failure(try Self.providerError(error, response: nil))
    }
    for plugin in plugins { await plugin.didReceive(result, target: target) }
    for plugin in plugins { result = await plugin.process(result, target: target) }
    // A response a plugin made in place of the one received is written under them too.
    return plugins.isEmpty ? result : result.written(under: redactionRule)
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

  /// validate, then `step` (a call's read and decode); the status read is kept on the response,
  /// and a failure is thrown as a `ProviderError` that carries the response (apart from
  /// `exchange` so that no copy of the response is kept for its errors).
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
  /// format's mapped error), keeping the HTTP status; anything else (and any body under
  /// `EnvelopeFormat.plain`) is `.status`.
  private func validate(_ response: inout Response, _ target: Target) throws {
    guard !target.validStatusCodes.contains(response.statusCode) else { return }
    // The error carries the response: `errorBody(as:)` reads it with this provider's decoder.
    response.failureDecoder = FailureDecoder(decoder)
    let format = target.envelope ?? decoder.envelope
    if !format.isPlain, !response.data.isEmpty,
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
  func retryDelay(after error: ProviderError, target: Target, attempt: Int) async
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
