import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An HTTP method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
  /// The method name, e.g. `GET`.
  public var rawValue: String

  /// Creates a method.
  ///
  /// - Parameter rawValue: the method name.
  public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

  /// Creates a method from a literal.
  ///
  /// - Parameter value: the method name.
  public init(stringLiteral value: String) { self.init(rawValue: value) }

  /// `GET`.
  public static let get: HTTPMethod = "GET"
  /// `POST`.
  public static let post: HTTPMethod = "POST"
  /// `PUT`.
  public static let put: HTTPMethod = "PUT"
  /// `PATCH`.
  public static let patch: HTTPMethod = "PATCH"
  /// `DELETE`.
  public static let delete: HTTPMethod = "DELETE"
  /// `HEAD`.
  public static let head: HTTPMethod = "HEAD"
}

/// An API endpoint. An enum of endpoints is the expected style:
///
/// ```swift
/// enum GitHub: TargetType {
///   case user(String)
///   var baseURL: URL { URL(string: "https://api.github.com")! }
///   var path: String { switch self { case .user(let name): "/users/\(name)" } }
/// }
/// ```
public protocol TargetType: Sendable {
  /// The server root.
  var baseURL: URL { get }
  /// The path below `baseURL`.
  var path: String { get }
  /// The method; default `.get`.
  var method: HTTPMethod { get }
  /// Parameters and body; default `.plain`.
  var task: RequestTask { get }
  /// Extra headers; default none.
  var headers: [String: String] { get }
  /// URL query items added whatever the task, in order (a name may repeat); default none. A
  /// POST can have a query and a JSON body.
  var query: [URLQueryItem] { get }
  /// How the request carries the access token of an `AccessTokenPlugin`; default `.bearer`.
  /// Login and refresh endpoints say `.none`.
  var authorization: AuthorizationType { get }
  /// The envelope format; default nil, the provider's decoder's format.
  var envelope: EnvelopeFormat? { get }
  /// What a stub answers; default 200 with an empty body.
  var sample: StubResponse { get }
  /// Named alternatives to `sample` for tests, e.g. `["expired": .fixture("auth/expired")]`;
  /// a provider created with `scenario:` answers from the one it names. Default none.
  var scenarios: [String: StubResponse] { get }
  /// Whether and how responses are cached; default `.never`. Needs a provider `cache`.
  var cachePolicy: CachePolicy { get }
  /// What identifies the cache entry besides its owner; default `.default` (method, URL with
  /// sorted query, body hash).
  var cacheKey: CacheKey { get }
  /// HTTP statuses accepted as success; default `200...299`. A range or codes with gaps:
  /// `[200, 204, 304]` (see ``StatusCodes``).
  var validStatusCodes: StatusCodes { get }
  /// The request timeout in seconds; default 60.
  var timeout: TimeInterval { get }

  /// Your error for a response that failed, thrown to the caller instead of the provider's;
  /// nil (the default) keeps the provider's.
  ///
  /// Asked for a status this target does not accept (``ProviderError/status(_:)``), a
  /// business failure (``ProviderError/business(code:message:response:)``, in a 2xx or not)
  /// and the error the envelope format's `mappingErrors` gave for one: one place per API for
  /// its error bodies. Every call asks it (`request`, `decodedResponse`, `response`,
  /// `cachedThenNetwork`, `pages`, `download`, `upload`), once the call has failed: plugins
  /// (`didReceive`, `process`) and retries (``RetryPolicy``) see the ``ProviderError`` first.
  /// Decoding, transport and other failures are not given to it.
  ///
  /// The response reads its body with the provider's decoder (``Response/errorBody(as:)``:
  /// its key strategy, mappings and transforms) and keeps the envelope status read
  /// (``Response/envelopeStatus``):
  ///
  /// ```swift
  /// func error(for response: Response) -> (any Error)? {
  ///   if let problem = response.problemDetails { return problem }  // application/problem+json
  ///   // GitHub's {"message": "Not Found", "documentation_url": "…"}
  ///   return response.errorBody(as: GitHubError.self)
  /// }
  /// ```
  ///
  /// - Parameter response: the response that failed.
  /// - Returns: your error, or nil for the provider's.
  func error(for response: Response) -> (any Error)?
}

extension TargetType {
  /// `.get`.
  public var method: HTTPMethod { .get }
  /// `.plain`.
  public var task: RequestTask { .plain }
  /// No extra headers.
  public var headers: [String: String] { [:] }
  /// No query items.
  public var query: [URLQueryItem] { [] }
  /// `.bearer`.
  public var authorization: AuthorizationType { .bearer }
  /// The provider's format.
  public var envelope: EnvelopeFormat? { nil }
  /// 200 with an empty body.
  public var sample: StubResponse { .body(Data()) }
  /// No scenarios.
  public var scenarios: [String: StubResponse] { [:] }
  /// `.never`.
  public var cachePolicy: CachePolicy { .never }
  /// `.default`.
  public var cacheKey: CacheKey { .default }
  /// 200...299.
  public var validStatusCodes: StatusCodes { 200...299 }
  /// 60 seconds.
  public var timeout: TimeInterval { 60 }
  /// None: the provider's error.
  public func error(for response: Response) -> (any Error)? { nil }

  /// `baseURL` joined with `path`.
  public var url: URL {
    path.isEmpty ? baseURL : baseURL.appendingPathComponent(path)
  }
}

/// How a target carries the access token.
public enum AuthorizationType: Sendable, Hashable {
  /// No token, and never refreshed: login and refresh endpoints.
  case none
  /// `Authorization: Bearer <token>`.
  case bearer
  /// `Authorization: <scheme> <token>`, e.g. `.custom("Token")`.
  case custom(String)
}
