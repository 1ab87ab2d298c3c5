import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Credentials and bodies stay where they were sent, whatever chain of redirects the servers
/// answer with: the session configuration's headers never reach another origin, a 303 ends the
/// body for the rest of the chain, and a body never goes from https to http.
@Suite(.serialized) struct RedirectCredentialTests {
  let server: TestServer

  init() throws {
    server = try #require(TestServer.shared, "python3 must be available for the loopback server")
  }

  /// The path and query of `/redirect` answering `status` to `target`.
  func redirect(_ status: Int, to target: String) -> String {
    var components = URLComponents()
    components.path = "/redirect"
    components.queryItems = [
      URLQueryItem(name: "status", value: "\(status)"), URLQueryItem(name: "to", value: target),
    ]
    return components.string ?? ""
  }

  /// `path` at the server's 127.0.0.1 origin.
  func atFirstOrigin(_ path: String) throws -> URL {
    try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
  }

  /// A POST of `password=S3CR3T`.
  func post(_ url: URL) -> URLRequest {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data("password=S3CR3T".utf8)
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    return request
  }

  @Test(arguments: [301, 302, 303, 307, 308])
  func sessionConfigurationCredentialsNeverReachAnotherOrigin(_ status: Int) async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["Authorization": "Bearer S3CR3T"]
    let transport = URLSessionTransport(session: URLSession(configuration: configuration))
    let url = try atFirstOrigin(redirect(status, to: "http://localhost:\(server.port)/echo"))
    let (data, response) = try await transport.send(post(url))
    let text = String(decoding: data, as: UTF8.self)
    #expect(!text.contains("S3CR3T"), "the other origin saw: \(text)")
    // Not followed: the redirect itself is the answer.
    #expect(response.statusCode == status)
  }

  @Test func sessionConfigurationCredentialsStillFollowASameOriginRedirect() async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpAdditionalHeaders = ["Authorization": "Bearer S3CR3T"]
    let transport = URLSessionTransport(session: URLSession(configuration: configuration))
    let (data, response) = try await transport.send(
      post(try atFirstOrigin(redirect(307, to: "/echo"))))
    #expect(response.statusCode == 200)
    #expect(String(decoding: data, as: UTF8.self).contains("Bearer S3CR3T"))
  }

  @Test func aPostRedirectedBy303StaysAGetAfterA307() async throws {
    let url = try atFirstOrigin(redirect(303, to: redirect(307, to: "/echo")))
    let (data, response) = try await URLSessionTransport().send(post(url))
    let text = String(decoding: data, as: UTF8.self)
    #expect(response.statusCode == 200)
    #expect(text.contains("\"method\": \"GET\""), "after a 303 the chain is a GET: \(text)")
    #expect(!text.contains("S3CR3T"), "the body came back after the 303: \(text)")
  }

  @Test func aBodyEndedBy303DoesNotComeBackOnA307ToTheFirstOrigin() async throws {
    // POST to A, 303 to B (a GET), B answers 307 back to A's /echo.
    let back = try atFirstOrigin("/echo").absoluteString
    let atB = "http://localhost:\(server.port)" + redirect(307, to: back)
    var request = post(try atFirstOrigin(redirect(303, to: atB)))
    request.setValue("Bearer S3CR3T", forHTTPHeaderField: "Authorization")
    let (data, _) = try await URLSessionTransport().send(request)
    let text = String(decoding: data, as: UTF8.self)
    #expect(!text.contains("S3CR3T"), "A saw: \(text)")
    #expect(!text.contains("\"method\": \"POST\""), "A saw: \(text)")
  }

  @Test(arguments: [307, 308]) func aBodyIsNeverResentFromHTTPSToHTTP(_ status: Int) throws {
    let redirectGuard = RedirectGuard(sensitiveHeaders: [])
    let url = try #require(URL(string: "https://api.test/form"))
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data("password=S3CR3T".utf8)
    func redirect(to location: String) throws -> HTTPURLResponse {
      try #require(
        HTTPURLResponse(
          url: url, statusCode: status, httpVersion: "HTTP/1.1",
          headerFields: ["Location": location]))
    }
    #expect(
      redirectGuard.resend(request, after: try redirect(to: "http://api.test/form"), hasBody: true)
        == nil)
    // The same hop to https is re-sent, with its body.
    let next = redirectGuard.resend(
      request, after: try redirect(to: "https://api.test/other"), hasBody: true)
    #expect(next?.httpBody == request.httpBody)
    #expect(next?.url?.absoluteString == "https://api.test/other")
  }
}
