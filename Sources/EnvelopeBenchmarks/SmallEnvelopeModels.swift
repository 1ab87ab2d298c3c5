import Foundation

// The small envelopes' models and bodies, shared by `--small` (SmallEnvelopeBenchmarks.swift) and
// the peer benchmark (Benchmarks/Peer, scripts/peer-benchmark.sh), which compiles this file too.

/// The user: snake_case keys through `CodingKeys`, an Int, optionals, a Bool, a Double.
struct BenchUser: Codable, Sendable {
  var id: Int
  var name: String
  var email: String
  var age: Int
  var score: Double
  var isActive: Bool
  var avatarURL: String?
  var city: String?
  var createdAt: String
  var followers: Int
  enum CodingKeys: String, CodingKey {
    case id, name, email, age, score, city, followers
    case isActive = "is_active"
    case avatarURL = "avatar_url"
    case createdAt = "created_at"
  }
}

/// A page of users.
struct BenchPage: Codable, Sendable {
  var page: Int
  var pageSize: Int
  var total: Int
  var hasMore: Bool
  var users: [BenchUser]
  enum CodingKeys: String, CodingKey {
    case page, total, users
    case pageSize = "page_size"
    case hasMore = "has_more"
  }
}

/// The envelope as a `JSONDecoder` user declares it.
struct BenchEnvelope<T: Decodable>: Decodable {
  var code: Int
  var msg: String
  var data: T?
}

func userJSON(_ index: Int) -> String {
  let avatar = index % 3 == 0 ? "null" : "\"https://cdn.example.com/u/\(index).png\""
  let city = index % 4 == 1 ? "null" : "\"London\""
  return
    #"{"id":\#(1800 + index),"name":"Augusta Ada King-Noel","email":"augusta.ada.king@example.com","age":\#(20 + index),"score":\#(90 + index).75,"is_active":\#(index % 2 == 0),"avatar_url":\#(avatar),"city":\#(city),"created_at":"2024-05-01T10:00:00.000+00:00","followers":\#(181_500 + index)}"#
}

/// The two bodies: the envelope with one user (255 B) and with a page of 20 users (4.7 KB).
enum SmallEnvelopeBodies {
  static let user = Data((#"{"code":0,"msg":"success","data":"# + userJSON(0) + "}").utf8)
  static let page = Data(
    (#"{"code":0,"msg":"success","data":{"page":1,"page_size":20,"total":412,"has_more":true,"users":["#
      + (0..<20).map(userJSON).joined(separator: ",") + "]}}").utf8)
}
