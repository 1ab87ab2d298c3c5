import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `/anything?status=422&error_code=…&retry_after_ms=…` echoes, read as an error body
/// with camelCase properties.
struct EchoedProblem: Decodable, Equatable {
  struct Args: Decodable, Equatable {
    var errorCode: String
    var retryAfterMs: Int
  }
  var args: Args
}

/// The echoed URL split at `?` by a value transform.
struct SplitURLProblem: Decodable, Equatable {
  var url: [String]
}

@Suite struct ErrorBodyDecoderTests {
  /// Sends `/anything` with the query items, expecting a 422; the error.
  func failure(_ decoder: LenientDecoder, _ items: [String: String]) async throws -> ProviderError?
  {
    let server = try #require(TestServer.shared, "python3 must be available")
    let provider = Provider<AnythingTarget>(decoder: decoder)
    let query = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
    let target = AnythingTarget(
      baseURL: server.baseURL, query: query + [URLQueryItem(name: "status", value: "422")])
    do {
      _ = try await provider.response(target)
      Issue.record("a 422 succeeded")
      return nil
    } catch let error as ProviderError {
      #expect(error.response?.statusCode == 422)
      return error
    }
  }

  /// A snake_case error body maps to camelCase properties with a provider configured with
  /// `.convertFromSnakeCase`, as its successful bodies do.
  @Test func errorBodyReadsWithTheProvidersKeyStrategy() async throws {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let error = try #require(
      try await failure(decoder, ["error_code": "E42", "retry_after_ms": "250"]))
    #expect(
      error.errorBody(as: EchoedProblem.self)
        == EchoedProblem(args: .init(errorCode: "E42", retryAfterMs: 250)))
  }

  /// The provider's value transforms apply too.
  @Test func errorBodyReadsWithTheProvidersTransforms() async throws {
    var decoder = LenientDecoder()
    decoder.transform(SplitURLProblem.self, key: "url", .separated(by: "?"))
    let error = try #require(try await failure(decoder, ["page": "2"]))
    let url = try #require(error.errorBody(as: SplitURLProblem.self)?.url)
    #expect(url.count == 2 && url.last == "page=2&status=422", "\(url)")
  }
}
