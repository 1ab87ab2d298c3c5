import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The first transport of a provider's line: answers a stubbed target from its `sample` (or the
/// provider's scenario) and hands every other request on. The provider makes it from its
/// `stub`, `stubbing`, `scenario` and `fixtures`.
struct StubTransport<Target: TargetType>: HTTPTransport {
  let next: any HTTPTransport
  let behavior: @Sendable (Target) -> StubBehavior
  let scenario: String?
  let fixtures: URL?

  /// The stub's answer, or the next transport's when the target is not stubbed.
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    guard let stub = stub(for: Exchange.current) else { return try await next.send(request) }
    if Exchange.current?.cacheUse == .cacheOnly { throw CacheMiss() }  // a stub has no cache
    let answer = try stub.sample.resolve(fixtures: fixtures)
    if case .delayed(let delay) = stub.behavior { try await Task.sleep(for: delay) }
    if let delay = answer.delay { try await Task.sleep(for: delay) }
    if let failure = answer.failure { throw failure }
    return (
      answer.body,
      try HTTPURLResponse.answer(to: request, status: answer.status, headers: answer.headers)
    )
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

  /// The target's stub, nil when the target goes to the network.
  private func stub(for exchange: Exchange?) -> (sample: StubResponse, behavior: StubBehavior)? {
    guard let target = exchange?.target as? Target else { return nil }
    let behavior = behavior(target)
    if case .never = behavior { return nil }
    return (scenario.flatMap { target.scenarios[$0] } ?? target.sample, behavior)
  }
}

extension HTTPURLResponse {
  /// A response to `request` with a status and headers, as a stub or the cache answers.
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
