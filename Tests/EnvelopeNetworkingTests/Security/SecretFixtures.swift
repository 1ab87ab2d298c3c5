import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Secrets planted in requests (and by the server in responses); no file or log line may
/// contain any of them.
enum PlantedSecrets {
  static let bearer = "planted-bearer-token"
  static let cookie = "planted-cookie-value"
  static let apiKey = "planted-api-key"
  static let session = "planted-session-header"
  /// Azure API Management's key header: secret by a word of the rule, not by a listed name.
  static let subscriptionKey = "planted-subscription-key"
  static let queryToken = "planted-query-token"
  static let bodyPassword = "planted-body-password"
  /// Written by the loopback server: `/profile` and `/login/form`.
  static let fromServer = [
    "planted-password", "planted-refresh", "planted-set-cookie", "plain-secret", "planted-cookie",
  ]
  static let all =
    [bearer, cookie, apiKey, session, subscriptionKey, queryToken, bodyPassword] + fromServer

  /// Credential headers of one user.
  static func headers(user: String = "") -> [String: String] {
    [
      "Authorization": "Bearer \(bearer)\(user)", "Cookie": "sid=\(cookie)\(user)",
      "X-Api-Key": apiKey + user, "X-Session": session + user,
      "Ocp-Apim-Subscription-Key": subscriptionKey + user,
    ]
  }

  /// The secrets found in `text`.
  static func found(in text: String) -> [String] {
    all.filter { text.contains($0) }
  }
}

/// Any route of the loopback server, with secrets in every place a request can carry them.
struct SecretTarget: TargetType {
  var path: String
  var method: HTTPMethod = .get
  var query: [URLQueryItem] = [URLQueryItem(name: "token", value: PlantedSecrets.queryToken)]
  var task: RequestTask = .plain
  var user = ""
  var authorization: AuthorizationType { .none }
  var baseURL: URL { TestServer.shared?.baseURL ?? URL(fileURLWithPath: "/") }
  var headers: [String: String] { PlantedSecrets.headers(user: user) }
  var cachePolicy: CachePolicy { .cacheElseLoad(maxAge: .seconds(60)) }
  var timeout: TimeInterval { 10 }
}

/// Every file below `folder`, read as text.
func filesText(below folder: URL) -> [(name: String, text: String)] {
  let manager = FileManager.default
  return (manager.subpaths(atPath: folder.path) ?? []).sorted().compactMap { path in
    guard let data = manager.contents(atPath: folder.appendingPathComponent(path).path) else {
      return nil
    }
    return (path, String(decoding: data, as: UTF8.self))
  }
}
