import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A request whose body is an `httpBodyStream` keeps it on a 307 or 308, whether the call is
/// sent whole (`send`) or streamed (`stream`): the same hops, the same body.
@Suite(.aheadOfTheBacklog) struct RedirectBodyStreamTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  enum Path: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case send, stream
    var testDescription: String { rawValue }

    /// What `/echo` saw, through this path of the transport.
    func echo(_ request: URLRequest, through transport: URLSessionTransport) async throws
      -> String
    {
      switch self {
      case .send:
        return String(decoding: try await transport.send(request).0, as: UTF8.self)
      case .stream:
        let streamed = try await transport.stream(request)
        return String(decoding: try await streamed.body.collect(), as: UTF8.self)
      }
    }
  }

  static let body = "kept=yes&from=a-stream"

  @Test(arguments: [307, 308], Path.allCases)
  func aBodyStreamIsSentAgainOnA307Or308(_ status: Int, _ path: Path) async throws {
    var request = URLRequest(
      url: try #require(
        URL(string: "http://127.0.0.1:\(server.port)/redirect?status=\(status)&to=/echo")),
      timeoutInterval: 20)
    request.httpMethod = "POST"
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    request.httpBodyStream = InputStream(data: Data(Self.body.utf8))
    let sent = request
    // 100 s, as StreamingTransportTests allow: a full run on a loaded machine held the
    // concurrency pool past 60 s, and this failed with `Overran`.
    let (text, _) = try await timed(limit: .seconds(100)) {
      try await path.echo(sent, through: URLSessionTransport())
    }
    let echo = try JSON(data: Data(text.utf8))
    #expect(echo["data"]?["method"]?.stringValue == "POST", "\(text)")
    #expect(echo["data"]?["body"]?.stringValue == Self.body, "\(text)")
  }
}
