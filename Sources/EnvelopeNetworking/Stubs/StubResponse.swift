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
