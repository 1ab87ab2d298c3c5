import EnvelopeKit
import EnvelopeNetworking
import Foundation

// An offline tour: an endpoint enum on stubs from Fixtures/demo, decoded with EnvelopeKit.

struct User: Codable, Sendable {
  var id: Int
  var name: String
  var email: String?
  var roles: [String]
}

struct Repo: Codable, Sendable {
  var id: Int
  var name: String
  var stars: Int
}

enum DemoAPI: TargetType {
  case user, repos

  var baseURL: URL { URL(fileURLWithPath: "/") }  // never contacted: every call is stubbed
  var path: String { "\(self)" }
  var sample: StubResponse {
    switch self {
    case .user: .fixture("user")
    case .repos: .fixture("repos")
    }
  }
  /// Named alternatives for tests: `provider.scenario("expired")`.
  var scenarios: [String: StubResponse] { self == .user ? ["expired": .fixture("expired")] : [:] }
}

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/demo")
let provider = Provider<DemoAPI>(stub: .immediate, fixtures: fixtures)

print("1. A decoded model from an envelope (ids as strings, a role that is no string):")
let user = try await provider.request(.user, as: User.self)
print("   \(user)\n")

print("2. A list at a key path, no envelope:")
let repos = try await provider.request(.repos, as: [Repo].self, at: "items")
print("   \(repos.map { "\($0.name) ★\($0.stars)" }.joined(separator: ", "))\n")

print("3. A business error inside an HTTP 200 (the \"expired\" stub scenario of .user):")
do {
  _ = try await provider.scenario("expired").request(.user, as: User.self)
} catch {
  print("   \(error)\n")
}

print("4. A lenient decode with its report:")
let body = try Data(contentsOf: fixtures.appendingPathComponent("user.json"))
let lenient = try LenientDecoder().decodeWithReport(User.self, from: body, at: "data")
print(lenient.report.description.split(separator: "\n").map { "   \($0)" }.joined(separator: "\n"))
print()

print("5. The same body, strict (what a contract test sees):")
let strict = LenientDecoder(policy: .strict)
do {
  _ = try strict.decode(User.self, from: body, at: "data")
} catch {
  print("   \(error)")
}
