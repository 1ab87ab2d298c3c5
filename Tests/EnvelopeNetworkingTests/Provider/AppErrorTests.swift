import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A GitHub-style error body: `{"message":…,"documentation_url":…,"errors":[…]}`.
struct GitHubMessage: Decodable, Equatable, Sendable {
  /// One of a 422's field errors.
  struct FieldError: Decodable, Equatable, Sendable {
    var resource: String
    var field: String
    var code: String
  }
  var message: String
  var documentationURL: URL
  var errors: [FieldError]?

  // `.convertFromSnakeCase` reads `documentation_url` as `documentationUrl`, as Foundation does.
  enum CodingKeys: String, CodingKey {
    case message, errors
    case documentationURL = "documentationUrl"
  }
}

/// The errors an app defines for its API.
enum AppError: Error, Equatable {
  case api(status: Int, message: String, documentationURL: URL, fields: [GitHubMessage.FieldError])
  case business(code: String, message: String?)
  case http(status: Int)
}

/// Remembers each response a target's `error(for:)` was given.
final class AskedResponses: @unchecked Sendable {
  private let lock = NSLock()
  private var responses: [Response] = []
  var all: [Response] { lock.withLock { responses } }
  func add(_ response: Response) { lock.withLock { responses.append(response) } }
}

/// The loopback server's `/reply` (any status, body and content type), mapped to `AppError`.
struct AppErrorTarget: TargetType {
  var path = "/reply"
  var method: HTTPMethod = .get
  var query: [URLQueryItem] = []
  var validStatusCodes: StatusCodes = 200...299
  /// Whether `error(for:)` maps; when false it only remembers the response and gives nil.
  var mapsErrors = true
  var asked: AskedResponses?
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var timeout: TimeInterval { 10 }

  /// One place for the API's errors: problem details, a business code, GitHub's body, else
  /// the status.
  func error(for response: Response) -> (any Error)? {
    asked?.add(response)
    guard mapsErrors else { return nil }
    if let problem = response.problemDetails { return problem }
    if let status = response.envelopeStatus, !status.isSuccess {
      return AppError.business(code: status.code.map { "\($0)" } ?? "", message: status.message)
    }
    if let body = response.errorBody(as: GitHubMessage.self) {
      return AppError.api(
        status: response.statusCode, message: body.message,
        documentationURL: body.documentationURL, fields: body.errors ?? [])
    }
    return AppError.http(status: response.statusCode)
  }

  /// `/reply` answering `status` with `body` as `type`.
  static func reply(_ status: Int, _ body: String = "", type: String = "application/json")
    -> AppErrorTarget
  {
    AppErrorTarget(query: [
      URLQueryItem(name: "status", value: "\(status)"), URLQueryItem(name: "body", value: body),
      URLQueryItem(name: "type", value: type),
    ])
  }
}

/// Remembers the errors each plugin hook saw.
final class FailuresSeen: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var received: [any Error] = []
  private var processed: [any Error] = []
  private var retried: [any Error] = []
  var receivedAll: [any Error] { lock.withLock { received } }
  var processedAll: [any Error] { lock.withLock { processed } }
  var retriedAll: [any Error] { lock.withLock { retried } }

  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    if case .failure(let error) = result { lock.withLock { received.append(error) } }
  }
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    if case .failure(let error) = result { lock.withLock { processed.append(error) } }
    return result
  }
  func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration? {
    lock.withLock { retried.append(error) }
    return nil
  }
}

/// Every kind of provider call, run for its error.
enum AppErrorCall: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case response, request, requestInData, requestAt, decodedResponse, decodedResponseAt
  case cachedThenNetwork, pages, pagesAt, download, upload

  var testDescription: String { rawValue }

  /// The error this call throws for `target`; nil when it succeeds.
  func error(_ provider: Provider<AppErrorTarget>, _ target: AppErrorTarget) async -> (any Error)? {
    do {
      switch self {
      case .response: _ = try await provider.response(target)
      case .request: _ = try await provider.request(target, as: Item.self)
      case .requestInData: _ = try await provider.request(target, as: Int.self, inData: "id")
      case .requestAt: _ = try await provider.request(target, as: Item.self, at: .root)
      case .decodedResponse: _ = try await provider.decodedResponse(target, as: Item.self)
      case .decodedResponseAt:
        _ = try await provider.decodedResponse(target, as: Item.self, at: .root)
      case .cachedThenNetwork:
        for try await _ in provider.cachedThenNetwork(target, as: Item.self) {}
      case .pages:
        if let error = await collect(provider.pages(target, as: [Item].self)).error { throw error }
      case .pagesAt:
        let pages = provider.pages(target, as: [Item].self, at: .root)
        if let error = await collect(pages).error { throw error }
      case .download:
        let file = FileManager.default.temporaryDirectory
          .appendingPathComponent("EnvelopeKit-apperror-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        for try await _ in provider.download(target, to: file) {}
      case .upload:
        var target = target
        target.method = .post
        for try await _ in provider.upload(target) {}
      }
      return nil
    } catch {
      return error
    }
  }
}

@Suite struct AppErrorTests {
  static let docs = URL(string: "https://docs.github.com/rest") ?? URL(fileURLWithPath: "/")
  static let notFound =
    #"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#

  init() throws {
    try #require(TestServer.shared != nil, "python3 must be available for the loopback server")
  }

  /// The provider's decoder reads snake_case keys as camelCase.
  static var snakeCase: LenientDecoder {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }

  /// A GitHub-style 404 reaches the caller as the app's error, its `documentation_url` read
  /// through the provider's `.convertFromSnakeCase` decoder, whatever the call, with plugins
  /// (the staged attempt) and without (the one-pass attempt).
  @Test(arguments: AppErrorCall.allCases, [false, true])
  func aGitHubNotFoundIsTheAppsErrorInEveryCall(call: AppErrorCall, plugins: Bool) async throws {
    let provider = Provider<AppErrorTarget>(
      decoder: Self.snakeCase, plugins: plugins ? [FailuresSeen()] : [])
    let error = await call.error(provider, .reply(404, Self.notFound))
    let expected = AppError.api(
      status: 404, message: "Not Found", documentationURL: Self.docs, fields: [])
    #expect(error as? AppError == expected, "\(String(describing: error))")
  }

  /// Without the key strategy the body is not GitHub's shape for the app's type: the mapping
  /// falls back to the status, so the body was read with the provider's decoder.
  @Test func theErrorBodyIsReadWithTheProvidersDecoder() async throws {
    let provider = Provider<AppErrorTarget>()
    let error = await AppErrorCall.response.error(provider, .reply(404, Self.notFound))
    #expect(error as? AppError == .http(status: 404), "\(String(describing: error))")
  }

  /// A 422's field errors come through to the app's error.
  @Test func aValidationFailureCarriesItsFieldErrors() async throws {
    let body = #"""
      {"message":"Validation Failed","documentation_url":"https://docs.github.com/rest",
       "errors":[{"resource":"Issue","field":"title","code":"missing_field"},
                 {"resource":"Issue","field":"body","code":"too_long"}]}
      """#
    let provider = Provider<AppErrorTarget>(decoder: Self.snakeCase)
    let error = await AppErrorCall.request.error(provider, .reply(422, body))
    let expected = AppError.api(
      status: 422, message: "Validation Failed", documentationURL: Self.docs,
      fields: [
        .init(resource: "Issue", field: "title", code: "missing_field"),
        .init(resource: "Issue", field: "body", code: "too_long"),
      ])
    #expect(error as? AppError == expected, "\(String(describing: error))")
  }

  /// An `application/problem+json` 403 is thrown as `ProblemDetails`, extension members and
  /// all, their names as the server wrote them (the provider's decoder converts snake_case).
  @Test func aProblemDetails403IsThrownAsProblemDetails() async throws {
    let body = #"""
      {"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.",
       "status":403,"detail":"Your balance is 30, but that costs 50.",
       "instance":"/account/12345/msgs/abc","balance":30,"accounts":["/account/12345"],
       "retry_hint":null}
      """#
    let provider = Provider<AppErrorTarget>(decoder: Self.snakeCase)
    let error = await AppErrorCall.request.error(
      provider, .reply(403, body, type: "application/problem+json; charset=utf-8"))
    let expected = ProblemDetails(
      type: "https://example.com/probs/out-of-credit", title: "You do not have enough credit.",
      status: 403, detail: "Your balance is 30, but that costs 50.",
      instance: "/account/12345/msgs/abc",
      extensions: [
        "balance": .number(JSONNumber(30)), "accounts": .array([.string("/account/12345")]),
        "retry_hint": .null,
      ])
    #expect(error as? ProblemDetails == expected, "\(String(describing: error))")
  }

  /// A business failure inside a 200 is mapped too, with the envelope status on the response.
  @Test func aBusinessFailureInA200IsTheAppsError() async throws {
    let provider = Provider<AppErrorTarget>()
    let error = await AppErrorCall.request.error(provider, AppErrorTarget(path: "/envelope/fail"))
    #expect(
      error as? AppError == .business(code: "1001", message: "token expired"),
      "\(String(describing: error))")
  }

  /// An error the envelope format maps is replaced by the target's.
  @Test func theTargetsErrorWinsOverTheFormatsMappedError() async throws {
    var decoder = LenientDecoder()
    decoder.envelope = EnvelopeFormat.default.mappingErrors { MappedFailure(code: "\($0)") }
    let provider = Provider<AppErrorTarget>(decoder: decoder)
    let error = await AppErrorCall.request.error(provider, AppErrorTarget(path: "/envelope/fail"))
    #expect(
      error as? AppError == .business(code: "1001", message: "token expired"),
      "\(String(describing: error))")
  }

  /// A business failure a plugin's `process` puts in place of a success's body is decoded
  /// again; the status read from it is the one the target's error is given (not the replaced
  /// body's success), whether or not the format maps it.
  @Test(arguments: [false, true])
  func aFailureBodyAPluginPutsInPlaceIsTheAppsError(formatMaps: Bool) async throws {
    var decoder = LenientDecoder()
    if formatMaps {
      decoder.envelope = EnvelopeFormat.default.mappingErrors { MappedFailure(code: "\($0)") }
    }
    let provider = Provider<AppErrorTarget>(
      decoder: decoder, plugins: [ReplacesBody(body: #"{"code":1001,"msg":"token expired"}"#)])
    let asked = AskedResponses()
    var target = AppErrorTarget(path: "/envelope/ok")
    target.asked = asked
    for call in [AppErrorCall.request, .decodedResponse, .pages] {
      let error = await call.error(provider, target)
      #expect(
        error as? AppError == .business(code: "1001", message: "token expired"),
        "\(call): \(String(describing: error))")
    }
    #expect(asked.all.allSatisfy { $0.envelopeStatus?.isSuccess == false })
  }

  /// Plugins and `RetryPolicy` see the `ProviderError`: a 503 is retried until the policy
  /// gives up, and only then is the app's error thrown.
  @Test func pluginsAndRetriesSeeTheProviderErrorBeforeItIsMapped() async throws {
    let seen = FailuresSeen()
    let provider = Provider<AppErrorTarget>(
      plugins: [seen, RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10))])
    let target = AppErrorTarget(
      path: "/flaky",
      query: [
        URLQueryItem(name: "status", value: "503"), URLQueryItem(name: "fails", value: "9"),
        URLQueryItem(name: "id", value: UUID().uuidString),
      ])
    let error = await AppErrorCall.response.error(provider, target)
    #expect(error as? AppError == .http(status: 503), "\(String(describing: error))")
    for hook in [seen.receivedAll, seen.processedAll, seen.retriedAll] {
      #expect(hook.count == 3, "\(hook)")
      #expect(
        hook.allSatisfy {
          if case ProviderError.status(let response) = $0 {
            response.statusCode == 503
          } else {
            false
          }
        }, "\(hook)")
    }
  }

  /// A download that fails with an error status throws the app's error and leaves no file;
  /// the plugins saw `.status`.
  @Test func aFailedDownloadThrowsTheAppsErrorAndLeavesNoFile() async throws {
    let seen = FailuresSeen()
    let provider = Provider<AppErrorTarget>(decoder: Self.snakeCase, plugins: [seen])
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("EnvelopeKit-apperror-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    var thrown: (any Error)?
    do {
      for try await _ in provider.download(.reply(404, Self.notFound), to: file) {}
    } catch {
      thrown = error
    }
    #expect(
      thrown as? AppError
        == .api(status: 404, message: "Not Found", documentationURL: Self.docs, fields: []),
      "\(String(describing: thrown))")
    #expect(!FileManager.default.fileExists(atPath: file.path))
    guard case ProviderError.status(let response)? = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
    #expect(response.statusCode == 404)
  }

  /// A transfer surfaces errors as every other call does: the error the envelope format maps
  /// a failure to reaches the caller as itself, not wrapped in `.underlying`.
  @Test func aDownloadThrowsTheFormatsMappedErrorAsItself() async throws {
    var decoder = LenientDecoder()
    decoder.envelope = EnvelopeFormat.default.mappingErrors { MappedFailure(code: "\($0)") }
    var target = AppErrorTarget(path: "/error/400")
    target.mapsErrors = false
    let error = await AppErrorCall.download.error(Provider(decoder: decoder), target)
    let mapped = try #require(error as? MappedFailure, "\(String(describing: error))")
    #expect(mapped.code.contains("40001"))
  }

  /// A target that answers nil keeps today's errors: `.status`, `.business`, the format's
  /// mapped error. It was asked, with a response that reads through the provider's decoder.
  @Test(arguments: [
    ("404", AppErrorTarget.reply(404, AppErrorTests.notFound)),
    ("business", AppErrorTarget(path: "/envelope/fail")),
    ("mapped", AppErrorTarget(path: "/envelope/fail")),
  ])
  func aNilMappingKeepsTodaysErrors(kind: String, target: AppErrorTarget) async throws {
    var decoder = Self.snakeCase
    if kind == "mapped" {
      decoder.envelope = EnvelopeFormat.default.mappingErrors { MappedFailure(code: "\($0)") }
    }
    let asked = AskedResponses()
    var target = target
    target.mapsErrors = false
    target.asked = asked
    let error = await AppErrorCall.request.error(Provider(decoder: decoder), target)
    switch (kind, error) {
    case ("404", ProviderError.status(let response)?): #expect(response.statusCode == 404)
    case ("business", ProviderError.business(let code, _, _)?): #expect(code == 1001)
    case ("mapped", let mapped as MappedFailure): #expect(mapped.code.contains("1001"))
    default: Issue.record("\(kind): \(String(describing: error))")
    }
    let response = try #require(asked.all.first, "error(for:) was not asked")
    #expect(asked.all.count == 1)
    if kind == "404" {
      #expect(response.errorBody(as: GitHubMessage.self)?.documentationURL == Self.docs)
    }
  }

  /// Decoding and transport errors are not the response's failure: not mapped, not asked.
  @Test func decodingAndTransportErrorsAreNotMapped() async throws {
    let asked = AskedResponses()
    var target = AppErrorTarget.reply(200, "not json", type: "text/plain")
    target.asked = asked
    let decoding = await AppErrorCall.requestAt.error(Provider(), target)
    guard case ProviderError.decoding? = decoding else {
      Issue.record("decoding: \(String(describing: decoding))")
      return
    }
    let closed = Provider<AppErrorTarget>(baseURL: URL(string: "http://127.0.0.1:1"))
    let transport = await AppErrorCall.response.error(closed, target)
    guard case ProviderError.transport? = transport else {
      Issue.record("transport: \(String(describing: transport))")
      return
    }
    #expect(asked.all.isEmpty)
  }

  /// Codes with gaps, over the loopback: `[200, 204, 304]` accepts 304 and rejects 201.
  @Test(arguments: [(200, true), (201, false), (204, true), (304, true), (404, false)])
  func validStatusCodesWithGapsDecideOverTheNetwork(status: Int, accepted: Bool) async throws {
    var target = AppErrorTarget.reply(status)
    target.validStatusCodes = [200, 204, 304]
    target.mapsErrors = false
    let error = await AppErrorCall.response.error(Provider(), target)
    if accepted {
      #expect(error == nil, "\(String(describing: error))")
    } else if case ProviderError.status(let response)? = error {
      #expect(response.statusCode == status)
    } else {
      Issue.record("\(status): \(String(describing: error))")
    }
  }
}

/// Puts `body` in place of a success's body (`process`).
struct ReplacesBody: Plugin {
  let body: String
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    result.map { response in
      var replaced = response
      replaced.data = Data(body.utf8)
      return replaced
    }
  }
}
