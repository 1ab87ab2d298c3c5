import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Whether and how the provider answers from `TargetType.sample` instead of the network.
public enum StubBehavior: Sendable {
  /// Use the network.
  case never
  /// Answer from the sample at once.
  case immediate
  /// Answer from the sample after a delay.
  case delayed(Duration)
}

/// What a stub answers.
public struct StubResponse: Sendable {
  enum Source: Sendable {
    case fixture(String)
    case body(Data)
    case failure(URLError)
  }

  let source: Source
  let status: Int
  let headers: [String: String]
  /// How a stream of this stub hands its body out; nil for one chunk.
  var chunking: StreamChunking?

  init(source: Source, status: Int, headers: [String: String]) {
    self.source = source
    self.status = status
    self.headers = headers
  }

  /// A fixture file below the provider's fixture folder (`Provider.fixtures`: the folder given,
  /// else `ENVELOPEKIT_FIXTURES`, else the nearest `Fixtures/` above the source file that made
  /// the provider; `.json` is added when the name has no extension): a body-only JSON file, or an interaction with `response.status`,
  /// `response.headers`, `response.body` (JSON) or `response.bodyText`, and optional
  /// `response.delayMilliseconds` or `response.error` (a `URLError` code number).
  ///
  /// - Parameters:
  ///   - name: the file name, e.g. `user/ada` for `Fixtures/user/ada.json`.
  ///   - status: the status for a body-only file.
  ///   - headers: the headers for a body-only file.
  /// - Returns: the stub.
  public static func fixture(_ name: String, status: Int = 200, headers: [String: String] = [:])
    -> StubResponse
  {
    StubResponse(source: .fixture(name), status: status, headers: headers)
  }

  /// An inline body.
  ///
  /// - Parameters:
  ///   - data: the body.
  ///   - status: the HTTP status.
  ///   - headers: the response headers.
  /// - Returns: the stub.
  public static func body(_ data: Data, status: Int = 200, headers: [String: String] = [:])
    -> StubResponse
  {
    StubResponse(source: .body(data), status: status, headers: headers)
  }

  /// The same stub, streamed in chunks of `size` bytes with `delay` between them (a call that
  /// reads the whole body gets it whole, without the delays): to test events or lines split
  /// across chunks.
  ///
  /// ```swift
  /// var sample: StubResponse { .fixture("chat.sse").chunked(size: 7, delay: .milliseconds(5)) }
  /// ```
  ///
  /// - Parameters:
  ///   - size: the bytes of each chunk; a value below 1 counts as 1.
  ///   - delay: the wait before each chunk after the first.
  /// - Returns: the stub.
  public func chunked(size: Int, delay: Duration = .zero) -> StubResponse {
    var stub = self
    stub.chunking = StreamChunking(size: size, delay: delay)
    return stub
  }

  /// A transport failure, e.g. `URLError(.notConnectedToInternet)`.
  ///
  /// - Parameter error: the error the transport throws.
  /// - Returns: the stub.
  public static func failure(_ error: URLError) -> StubResponse {
    StubResponse(source: .failure(error), status: 0, headers: [:])
  }
}

/// A stub resolved to what the provider hands on: a response, or a failure after a delay.
struct StubAnswer {
  var status: Int
  var headers: [String: String]
  var body: Data
  var delay: Duration?
  var failure: URLError?
}

extension StubResponse {
  /// Resolves the stub, reading fixtures from the folder `fixtures` locates.
  func resolve(fixtures: FixtureFolder) throws -> StubAnswer {
    switch source {
    case .body(let data):
      return StubAnswer(status: status, headers: headers, body: data)
    case .failure(let error):
      return StubAnswer(status: 0, headers: [:], body: Data(), failure: error)
    case .fixture(let name):
      let root: URL
      do {
        root = try fixtures.locate()
      } catch {
        throw ProviderError.fixtureNotFound("\(name): \(error)")
      }
      let file = try FixtureName.resolve(name.contains(".") ? name : name + ".json", in: root)
      guard let data = FileManager.default.contents(atPath: file.path) else {
        throw ProviderError.fixtureNotFound(file.path)
      }
      guard let interaction = try Interaction.read(data) else {
        return StubAnswer(status: status, headers: headers, body: data)
      }
      return StubAnswer(
        status: interaction.status, headers: interaction.headers, body: interaction.body,
        delay: interaction.delayMilliseconds.map { .milliseconds($0) },
        failure: interaction.error.map { URLError($0) })
    }
  }
}
