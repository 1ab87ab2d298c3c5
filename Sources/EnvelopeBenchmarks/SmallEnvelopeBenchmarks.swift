import EnvelopeKit
import EnvelopeNetworking
import Foundation

// `--small [runs]`: the envelopes an app decodes on every screen, a 255 B user and a 4.7 KB page
// of 20 users, in both policies, through `decodeEnvelope`, a stubbed `Provider.request` and
// `decode(BenchEnvelope<T>.self)` (the envelope as a generic Codable struct, as the peer
// benchmark measures it), each against a reused `JSONDecoder` decoding the same model in the
// same run, interleaved; medians of per-call times. Several runs give min / median / max of
// each ratio.

/// The stubbed endpoints.
private enum BenchTarget: TargetType {
  case user, page

  static let userBody = SmallEnvelopeBodies.user
  static let pageBody = SmallEnvelopeBodies.page

  var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
  var path: String { self == .user ? "/me" : "/users" }
  var sample: StubResponse { .body(self == .user ? Self.userBody : Self.pageBody) }
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

/// One row's figures from one run.
struct SmallEnvelopeRow {
  var name: String
  /// JSONDecoder time / decodeEnvelope time.
  var decode: Double
  /// JSONDecoder time / Provider.request time.
  var provider: Double
  /// Provider.request time minus decodeEnvelope time, in µs.
  var overhead: Double
  /// decodeEnvelope time, in µs.
  var decodeTime: Double
  /// JSONDecoder time / `decode(BenchEnvelope<T>.self)` time.
  var structDecode: Double
  /// `decodeEnvelope(_:from:format:)` time, with a format other than the decoder's, in µs.
  var formatDecodeTime: Double
}

/// A format the decoder does not have (the default's paths, its own value), made once as an
/// app keeps its formats, for the `decodeEnvelope(_:from:format:)` column.
private let namedFormat = EnvelopeFormat(
  code: "code", messages: ["msg", "message"], data: "data", success: [0])

/// One run of the four rows (two payloads, two policies).
private func smallEnvelopeRun(calls: Int, rounds: Int) async throws -> [SmallEnvelopeRow] {
  var rows: [SmallEnvelopeRow] = []
  let foundation = JSONDecoder()
  for policy in [DecodingPolicy.lenient, .strict] {
    let decoder = LenientDecoder(policy: policy)
    let provider = Provider<BenchTarget>(decoder: decoder, stub: .immediate)
    let user = BenchTarget.userBody
    let userTimes = try await medians(
      rounds: rounds, calls: calls,
      [
        { _ = try foundation.decode(BenchEnvelope<BenchUser>.self, from: user) },
        { _ = try decoder.decodeEnvelope(BenchUser.self, from: user) },
        { _ = try await provider.request(.user, as: BenchUser.self) },
        { _ = try decoder.decode(BenchEnvelope<BenchUser>.self, from: user) },
        { _ = try decoder.decodeEnvelope(BenchUser.self, from: user, format: namedFormat) },
      ])
    let page = BenchTarget.pageBody
    let pageTimes = try await medians(
      rounds: rounds, calls: max(200, calls / 10),
      [
        { _ = try foundation.decode(BenchEnvelope<BenchPage>.self, from: page) },
        { _ = try decoder.decodeEnvelope(BenchPage.self, from: page) },
        { _ = try await provider.request(.page, as: BenchPage.self) },
        { _ = try decoder.decode(BenchEnvelope<BenchPage>.self, from: page) },
        { _ = try decoder.decodeEnvelope(BenchPage.self, from: page, format: namedFormat) },
      ])
    for (name, times) in [
      ("\(user.count) B user, \(policy)", userTimes),
      ("\(page.count) B page, \(policy)", pageTimes),
    ] {
      rows.append(
        SmallEnvelopeRow(
          name: name, decode: times[0] / times[1], provider: times[0] / times[2],
          overhead: (times[2] - times[1]) * 1e6, decodeTime: times[1] * 1e6,
          structDecode: times[0] / times[3], formatDecodeTime: times[4] * 1e6))
    }
  }
  return rows
}

/// `runs` runs; prints the table of min / median / max and returns the summary lines (medians).
@MainActor func smallEnvelopeBenchmarks(runs: Int) async throws -> [String] {
  let calls = quick ? 2_000 : 4_000
  var all: [[SmallEnvelopeRow]] = []
  for _ in 0..<runs { all.append(try await smallEnvelopeRun(calls: calls, rounds: quick ? 5 : 9)) }
  func spread(_ values: [Double], _ format: String) -> String {
    let sorted = values.sorted()
    return [sorted[0], sorted[sorted.count / 2], sorted[sorted.count - 1]]
      .map { String(format: format, $0) }.joined(separator: " / ")
  }
  print("\nSmall envelopes, \(runs) run(s), min / median / max (ratios against JSONDecoder)")
  var summary: [String] = []
  for position in all[0].indices {
    let rows = all.map { $0[position] }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    print(
      "  \(rows[0].name.padding(toLength: 22, withPad: " ", startingAt: 0))"
        + " decodeEnvelope \(spread(rows.map(\.decode), "%.2fx"))"
        + " | Provider.request \(spread(rows.map(\.provider), "%.2fx"))"
        + " | provider over decode \(spread(rows.map(\.overhead), "%.1f")) µs"
        + " (decode \(spread(rows.map(\.decodeTime), "%.2f")) µs,"
        + " with format: \(spread(rows.map(\.formatDecodeTime), "%.2f")) µs)"
        + " | decode(BenchEnvelope<T>.self) \(spread(rows.map(\.structDecode), "%.2fx"))")
    let decode = median(rows.map(\.decode))
    let overhead = median(rows.map(\.overhead))
    let decodeTime = median(rows.map(\.decodeTime))
    summary.append(
      String(
        format:
          "%@: decodeEnvelope %5.2fx JSONDecoder, Provider.request %5.2fx, decode(BenchEnvelope<T>.self) %5.2fx; provider costs %.1f µs over the decode (%.1f µs)",
        rows[0].name, decode, median(rows.map(\.provider)), median(rows.map(\.structDecode)),
        overhead, decodeTime))
    let isUser = position % 2 == 0
    check(
      decode >= (isUser ? 3.0 : 3.5),
      "\(rows[0].name): decodeEnvelope at least \(isUser ? "3.0" : "3.5")x JSONDecoder")
    if isUser {
      check(overhead <= decodeTime, "\(rows[0].name): the provider costs no more than the decode")
    }
  }
  return summary
}

/// `--profile-small user|page|struct|struct-page|provider|provider-page|status|empty [seconds]`:
/// one contender in a loop (`struct`: `decode(BenchEnvelope<T>.self)`), for `perf record`.
/// Seconds 0: exactly 1,000 calls; a negative number -n: exactly n × 1,000 calls (what
/// `scripts/count-per-call.sh` compares with 1,000 to leave the setup out of its counts).
func profileSmall(_ what: String, seconds: Double) async throws {
  let decoder = LenientDecoder()
  let provider = Provider<BenchTarget>(decoder: decoder, stub: .immediate)
  let end = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
  let exactCalls = seconds < 0 ? Int(-seconds) * 1000 : 1000
  var calls = 0
  while calls < exactCalls || DispatchTime.now().uptimeNanoseconds < end {
    for _ in 0..<1000 {
      switch what {
      case "page": _ = try decoder.decodeEnvelope(BenchPage.self, from: BenchTarget.pageBody)
      case "struct":
        _ = try decoder.decode(BenchEnvelope<BenchUser>.self, from: BenchTarget.userBody)
      case "struct-page":
        _ = try decoder.decode(BenchEnvelope<BenchPage>.self, from: BenchTarget.pageBody)
      case "provider": _ = try await provider.request(.user, as: BenchUser.self)
      case "provider-page": _ = try await provider.request(.page, as: BenchPage.self)
      case "empty": _ = try decoder.decode([String: Int].self, from: Data("{}".utf8))
      case "status": _ = try decoder.envelopeStatus(from: BenchTarget.userBody)
      default: _ = try decoder.decodeEnvelope(BenchUser.self, from: BenchTarget.userBody)
      }
    }
    calls += 1000
  }
  print("\(what): \(calls) calls")
}

/// `--small-parts`: what a small envelope's decode is made of, per call (µs), interleaved.
func smallEnvelopeParts() async throws {
  let decoder = LenientDecoder()
  let foundation = JSONDecoder()
  let body = BenchTarget.userBody
  let user = Data(userJSON(0).utf8)
  let empty = Data("{}".utf8)
  let names = [
    "JSONDecoder envelope", "JSONDecoder user alone", "decodeEnvelope", "decode user alone",
    "envelopeStatus", "decode {} as [String: Int]", "JSON(data:) of the envelope",
  ]
  let times = try await medians(
    rounds: 9, calls: 4_000,
    [
      { _ = try foundation.decode(BenchEnvelope<BenchUser>.self, from: body) },
      { _ = try foundation.decode(BenchUser.self, from: user) },
      { _ = try decoder.decodeEnvelope(BenchUser.self, from: body) },
      { _ = try decoder.decode(BenchUser.self, from: user) },
      { _ = try decoder.envelopeStatus(from: body) },
      { _ = try decoder.decode([String: Int].self, from: empty) },
      { _ = try JSON(data: body) },
    ])
  for (name, time) in zip(names, times) {
    print(String(format: "  %-32@ %6.2f µs", name as NSString, time * 1e6))
  }
}
