import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The snippets of "Errors your app defines" (EnvelopeNetworking.docc/ErrorsYourAppDefines.md).
// `MigrationGuideTests` checks that every swift block of the article is quoted from these
// files; the tests below run the snippets against stubs.

/// The types the article's snippets use.
enum ErrorsGuide {
  // MARK: - GitHub's error body

  /// `{"message": "Validation Failed", "documentation_url": "…", "errors": [{…}]}`.
  struct GitHubError: Error, Decodable, Equatable {
    struct FieldError: Decodable, Equatable {
      var resource: String
      var field: String
      var code: String
    }

    var message: String
    var documentationURL: URL
    var errors: [FieldError]?

    // `.convertFromSnakeCase` reads `documentation_url` as `documentationUrl`.
    enum CodingKeys: String, CodingKey {
      case message, errors
      case documentationURL = "documentationUrl"
    }
  }

  enum GitHub: TargetType {
    case repo(String)
    case createIssue(repo: String, title: String)

    var baseURL: URL { URL(string: "https://api.github.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .repo(let name): "/repos/\(name)"
      case .createIssue(let repo, _): "/repos/\(repo)/issues"
      }
    }
    var method: HTTPMethod { if case .createIssue = self { .post } else { .get } }
    var sample: StubResponse {
      switch self {
      case .repo:
        .body(
          Data(#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#.utf8),
          status: 404)
      case .createIssue:
        .body(
          Data(
            #"{"message":"Validation Failed","documentation_url":"https://docs.github.com/rest","errors":[{"resource":"Issue","field":"title","code":"missing_field"}]}"#
              .utf8), status: 422)
      }
    }

    // One place for this API's errors: every call of every GitHub target throws them.
    func error(for response: Response) -> (any Error)? {
      response.errorBody(as: GitHubError.self)
    }
  }

  static func gitHubProvider() -> Provider<GitHub> {
    var decoder = LenientDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return Provider<GitHub>(decoder: decoder, stub: .immediate)
  }

  struct Repo: Decodable {
    var name: String
  }

  /// The repository's name, or what GitHub said.
  static func repoName(_ provider: Provider<GitHub>) async throws -> String {
    do {
      let repo = try await provider.request(.repo("swiftlang/nope"), as: Repo.self, at: .root)
      return repo.name
    } catch let error as GitHubError {
      // "Not Found", and GitHub's page about it
      return "\(error.message) (\(error.documentationURL.absoluteString))"
    }
  }

  /// The fields a 422 names.
  static func fieldErrors(_ provider: Provider<GitHub>) async throws -> [String] {
    do {
      _ = try await provider.response(.createIssue(repo: "swiftlang/swift", title: ""))
      return []
    } catch let error as GitHubError {
      return (error.errors ?? []).map { "\($0.field): \($0.code)" }
    }
  }

  // MARK: - Problem details

  enum Billing: TargetType {
    case charge(cents: Int)

    var baseURL: URL { URL(string: "https://billing.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String { "/charges" }
    var method: HTTPMethod { .post }
    // Moya's .customCodes([200, 202]): codes with gaps.
    var validStatusCodes: StatusCodes { [200, 202] }
    var sample: StubResponse {
      .body(
        Data(
          #"{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","status":403,"balance":30}"#
            .utf8), status: 403, headers: ["Content-Type": "application/problem+json"])
    }

    func error(for response: Response) -> (any Error)? {
      response.problemDetails  // nil unless the body is application/problem+json
    }
  }

  /// The balance a 403 problem reports.
  static func balance(_ provider: Provider<Billing>) async throws -> Int? {
    do {
      _ = try await provider.response(.charge(cents: 5_000))
      return nil
    } catch let problem as ProblemDetails {
      // problem.title == "You do not have enough credit."
      return problem.extensions["balance"]?.numberValue?.intValue
    }
  }
}

@Suite struct ErrorsYourAppDefinesSnippets {
  @Test func gitHubErrorsAreTheAppsOwn() async throws {
    let provider = ErrorsGuide.gitHubProvider()
    #expect(try await ErrorsGuide.repoName(provider) == "Not Found (https://docs.github.com/rest)")
    #expect(try await ErrorsGuide.fieldErrors(provider) == ["title: missing_field"])
  }

  @Test func problemDetailsAreThrownAsThemselves() async throws {
    #expect(try await ErrorsGuide.balance(Provider(stub: .immediate)) == 30)
  }

  @Test func codesWithGapsAreAccepted() {
    let codes = ErrorsGuide.Billing.charge(cents: 1).validStatusCodes
    #expect(codes.contains(202) && !codes.contains(201))
  }
}
