import EnvelopeKit
import EnvelopeNetworking
import Foundation

// `--provider`: a stubbed `Provider.request` of a small envelope against the bare
// `decodeEnvelope` and `JSONDecoder` decoding the same model, in the same run, interleaved.

/// The small envelope's user: snake_case keys through `CodingKeys`, optionals, a Bool, a Double.
private struct BenchUser: Codable, Sendable {
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

private struct BenchEnvelope: Decodable {
  var code: Int
  var msg: String
  var data: BenchUser?
}

/// The stubbed endpoint.
private struct BenchTarget: TargetType {
  static let body = Data(
    #"{"code":0,"msg":"ok","data":{"id":18,"name":"Ada Lovelace","email":"ada@example.com","age":36,"score":98.5,"is_active":true,"avatar_url":null,"city":"London","created_at":"2024-05-01T10:00:00Z","followers":1815}}"#
      .utf8)
  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { "/me" }
  var sample: StubResponse { .body(Self.body) }
}

/// Per-call medians of `rounds` rounds of `calls` calls each, contenders interleaved.
private func medians(
  rounds: Int, calls: Int, _ contenders: [() async throws -> Void]
) async throws -> [Double] {
  var samples = Array(repeating: [Double](), count: contenders.count)
  for contender in contenders { try await contender() }
  for _ in 0..<rounds {
    for (position, contender) in contenders.enumerated() {
      let start = DispatchTime.now().uptimeNanoseconds
      for _ in 0..<calls { try await contender() }
      let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
      samples[position].append(elapsed / Double(calls))
    }
  }
  return samples.map { $0.sorted()[$0.count / 2] }
}

/// The stubbed-request row; returns the summary line.
func providerBenchmark() async throws -> String {
  let body = BenchTarget.body
  let foundation = JSONDecoder()
  let decoder = LenientDecoder()
  let provider = Provider<BenchTarget>(decoder: decoder, stub: .immediate)
  let calls = quick ? 2_000 : 5_000
  let times = try await medians(
    rounds: quick ? 5 : 9, calls: calls,
    [
      { _ = try foundation.decode(BenchEnvelope.self, from: body) },
      { _ = try decoder.decodeEnvelope(BenchUser.self, from: body) },
      { _ = try await provider.request(BenchTarget(), as: BenchUser.self) },
    ])
  let line = String(
    format:
      "stubbed Provider.request (%d B envelope): %5.2fx JSONDecoder; decodeEnvelope %5.2fx; "
      + "provider costs %.1f µs over the bare decode (%.1f µs), %.2fx the decode",
    body.count, times[0] / times[2], times[0] / times[1], (times[2] - times[1]) * 1e6,
    times[1] * 1e6, (times[2] - times[1]) / times[1])
  print("\n" + line)
  return line
}
