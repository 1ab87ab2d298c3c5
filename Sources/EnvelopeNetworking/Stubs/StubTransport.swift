import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The first transport of a provider's line: answers a stubbed target from its `sample` (or the
/// provider's scenario) and hands every other request on. The provider makes it from its
/// `stub`, `stubbing`, `scenario` and `fixtures`.
struct StubTransport<Target: TargetType>: LineTransport {
  let next: any LineTransport
  let behavior: @Sendable (Target) -> StubBehavior
  let scenario: String?
  let fixtures: FixtureFolder
  var transfers: any HTTPTransport { next }

  /// The stub's answer, or the next transport's when the target is not stubbed.
  nonisolated(nonsending) func response(to request: URLRequest, in exchange: Exchange?)
    async throws -> Response
  {
    // Unwrapped once: each `exchange?.` copied the whole exchange out of the optional.
    guard let current = exchange, let stub = stub(for: current.target) else {
      return try await next.response(to: request, in: exchange)
    }
    if current.cacheUse == .cacheOnly { throw CacheMiss() }  // a stub has no cache
    let answer = try stub.sample.resolve(fixtures: fixtures)
    if case .delayed(let delay) = stub.behavior { try await pause(delay) }
    if let delay = answer.delay { try await pause(delay) }
    if let failure = answer.failure { throw failure }
    return Response(
      statusCode: answer.status, headers: answer.headers, data: answer.body, request: request)
  }

  /// The stub's answer as a stream (its body in the sample's chunks, after its delays), or the
  /// next transport's stream when the target is not stubbed.
  nonisolated(nonsending) func stream(_ request: URLRequest, in exchange: Exchange?)
    async throws -> StreamedResponse
  {
    guard let stub = stub(for: exchange) else {
      return try await next.stream(request, in: exchange)
    }
    let answer = try stub.sample.resolve(fixtures: fixtures)
    if case .delayed(let delay) = stub.behavior { try await pause(delay) }
    if let delay = answer.delay { try await pause(delay) }
    if let failure = answer.failure { throw failure }
    let http = try HTTPURLResponse.answer(
      to: request, status: answer.status, headers: answer.headers)
    return StreamedResponse(
      response: http,
      body: ResponseBody(answer.body, chunking: stub.sample.chunking ?? .whole))
  }

  /// A stubbed download writes the sample's body to the file.
  func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  {
    guard stub(for: Exchange.current) != nil else {
      return try await next.download(request, to: file, progress: progress)
    }
    let (data, response) = try await send(request)
    try data.write(to: file, options: .atomic)
    progress(Int64(data.count), Int64(data.count))
    return response
  }

  /// A stubbed upload reports the file's size as sent and answers the sample.
  func upload(_ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress)
    async throws -> (Data, HTTPURLResponse)
  {
    guard stub(for: Exchange.current) != nil else {
      return try await next.upload(request, fromFile: file, progress: progress)
    }
    let answer = try await send(request)
    let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?
      .int64Value
    progress(size ?? 0, size)
    return answer
  }

  /// Waits a stub's delay. Apart from the answers so that the clock's values are no locals of
  /// theirs: each was an allocation of the task's on every stubbed call, delayed or not.
  @inline(never)
  private nonisolated(nonsending) func pause(_ delay: Duration) async throws {
    try await Task.sleep(for: delay)
  }

  /// The target's stub, nil when the target goes to the network.
  private func stub(for exchange: Exchange?) -> Stub? {
    guard let target = exchange?.target else { return nil }
    return stub(for: target)
  }

  /// `target`'s stub when it is a `Target`: the opened type compared by identity first (an
  /// `as?` from the existential cost every stubbed call 0.6%), cast otherwise (a subclass of a
  /// class target).
  private func stub<Other: TargetType>(for other: Other) -> Stub? {
    guard Other.self == Target.self else { return castStub(for: other) }
    return stub(of: reinterpret(other, as: Target.self))
  }

  /// `stub(for:)` for another type than `Target`. Apart from it so that the usual call costs no
  /// `Optional<Target>` metadata lookup.
  @inline(never)
  private func castStub(for other: some TargetType) -> Stub? {
    guard let target = other as? Target else { return nil }
    return stub(of: target)
  }

  private func stub(of target: Target) -> Stub? {
    let behavior = behavior(target)
    if case .never = behavior { return nil }
    return Stub(
      sample: scenario.flatMap { target.scenarios[$0] } ?? target.sample, behavior: behavior)
  }
}

/// A stubbed target's answer and how it is given. A struct, not a tuple: an Optional tuple's
/// metadata is looked up at run time on every call.
private struct Stub {
  var sample: StubResponse
  var behavior: StubBehavior
}

/// A transport of the provider's line (stubs, the cache, the timeout around yours): it answers
/// with a `Response` directly, so a stub's or the cache's answer is never turned into an
/// `HTTPURLResponse` and back. Its `send` (what makes it an `HTTPTransport`) is built on that.
protocol LineTransport: HTTPTransport {
  /// The response to `request` for an attempt (the provider hands it on; `HTTPTransport.send`
  /// takes only the request, so a transfer's line reads `Exchange.current`).
  nonisolated(nonsending) func response(to request: URLRequest, in exchange: Exchange?)
    async throws -> Response
  /// Where downloads and uploads go (the line never caches or times them).
  var transfers: any HTTPTransport { get }
  /// The streamed response to `request` for an attempt: each stage's rule for streams (stubs
  /// stream their sample, the cache passes streams on, the timeout applies between chunks).
  nonisolated(nonsending) func stream(_ request: URLRequest, in exchange: Exchange?)
    async throws -> StreamedResponse
}

extension LineTransport {
  /// The body and an `HTTPURLResponse` made from `response(to:)`.
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let response = try await response(to: request, in: Exchange.current)
    let http = try HTTPURLResponse.answer(
      to: request, status: response.statusCode, headers: response.headers)
    return (response.data, http)
  }

  /// The streamed answer of `stream(_:in:)`, for the call `Exchange.current` is.
  func stream(_ request: URLRequest) async throws -> StreamedResponse {
    try await stream(request, in: Exchange.current)
  }

  /// Hands the download on to `transfers`.
  func download(_ request: URLRequest, to file: URL, progress: @escaping TransferProgress)
    async throws -> HTTPURLResponse
  {
    try await transfers.download(request, to: file, progress: progress)
  }

  /// Hands the upload on to `transfers`.
  func upload(_ request: URLRequest, fromFile file: URL, progress: @escaping TransferProgress)
    async throws -> (Data, HTTPURLResponse)
  {
    try await transfers.upload(request, fromFile: file, progress: progress)
  }
}

extension HTTPURLResponse {
  /// A response to `request` with a status and headers, as the line's transports answer.
  static func answer(to request: URLRequest, status: Int, headers: [String: String]) throws
    -> HTTPURLResponse
  {
    guard let url = request.url,
      let response = HTTPURLResponse(
        url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    else { throw URLError(.badServerResponse) }
    return response
  }
}
