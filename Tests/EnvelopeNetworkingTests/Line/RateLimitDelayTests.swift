import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

/// One rate-limited (or not) answer and the wait `RetryPolicy()` must choose for it.
struct RateLimitCase: Sendable, CustomTestStringConvertible {
  var name: String
  var status: Int
  /// Header values; `{now+N}` becomes the epoch second N seconds after the test's clock, and
  /// `{date+N}` the HTTP date.
  var headers: [String: String]
  /// The wait in seconds, or nil for no retry.
  var wait: Double?

  var testDescription: String { name }
}

/// The test's clock: a whole second, so that epoch seconds are exact.
private let now = Date(timeIntervalSince1970: 1_700_000_000)

private func httpDate(_ date: Date) -> String {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.timeZone = TimeZone(identifier: "GMT")
  formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
  return formatter.string(from: date)
}

/// `{now+N}` and `{date+N}` replaced.
private func resolved(_ value: String) -> String {
  let epoch: @Sendable (Date) -> String = { String(Int($0.timeIntervalSince1970)) }
  let formats: [(String, (Date) -> String)] = [("{now+", epoch), ("{date+", httpDate)]
  for (prefix, format) in formats where value.hasPrefix(prefix) {
    let seconds = Double(value.dropFirst(prefix.count).dropLast()) ?? 0
    return format(now.addingTimeInterval(seconds))
  }
  return value
}

@Suite struct RateLimitDelayTests {
  static let cases: [RateLimitCase] = [
    .init(name: "429 Retry-After seconds", status: 429, headers: ["Retry-After": "2"], wait: 2),
    .init(
      name: "429 Retry-After HTTP date", status: 429, headers: ["Retry-After": "{date+3}"],
      wait: 3),
    .init(
      name: "spent 403 Retry-After seconds", status: 403,
      headers: ["X-RateLimit-Remaining": "0", "Retry-After": "1"], wait: 1),
    .init(
      name: "spent 403 Retry-After HTTP date", status: 403,
      headers: ["X-RateLimit-Remaining": "0", "retry-after": "{date+4}"], wait: 4),
    .init(
      name: "spent 403 X-RateLimit-Reset epoch", status: 403,
      headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "{now+5}"], wait: 5),
    .init(
      name: "429 X-RateLimit-Reset epoch", status: 429, headers: ["x-ratelimit-reset": "{now+8}"],
      wait: 8),
    .init(
      name: "429 X-RateLimit-Reset as seconds", status: 429, headers: ["X-RateLimit-Reset": "12"],
      wait: 12),
    .init(
      name: "Retry-After before X-RateLimit-Reset", status: 429,
      headers: ["Retry-After": "1", "X-RateLimit-Reset": "{now+20}"], wait: 1),
    .init(
      name: "429 RateLimit draft 08", status: 429, headers: ["RateLimit": #""default";r=0;t=7"#],
      wait: 7),
    .init(
      name: "429 RateLimit draft 07", status: 429,
      headers: ["RateLimit": "limit=10, remaining=0, reset=4"], wait: 4),
    .init(
      name: "spent 403 RateLimit, the spent quota's reset", status: 403,
      headers: ["RateLimit": #""burst";r=0;t=2, "day";r=50;t=3600"#], wait: 2),
    .init(
      name: "RateLimit without t: RateLimit-Policy window", status: 429,
      headers: ["RateLimit": #""default";r=0"#, "RateLimit-Policy": #""default";q=100;w=9"#],
      wait: 9),
    .init(
      name: "RateLimit before X-RateLimit-Reset", status: 429,
      headers: ["RateLimit": #""a";r=0;t=3"#, "X-RateLimit-Reset": "{now+30}"], wait: 3),
    .init(
      name: "spent 403 RateLimit-Reset (draft 06)", status: 403,
      headers: ["RateLimit-Remaining": "0", "RateLimit-Reset": "6"], wait: 6),
    .init(
      name: "a reset passed is no wait", status: 403,
      headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "{now+-10}"], wait: 0),
    .init(name: "plain 403", status: 403, headers: [:], wait: nil),
    .init(
      name: "403 with requests left", status: 403,
      headers: ["X-RateLimit-Remaining": "12", "X-RateLimit-Reset": "{now+5}"], wait: nil),
    .init(
      name: "403 with a RateLimit quota left", status: 403,
      headers: ["RateLimit": #""day";r=3;t=100"#], wait: nil),
    .init(
      name: "403 with Retry-After but no spent quota", status: 403,
      headers: ["Retry-After": "1"], wait: nil),
  ]

  @Test(arguments: cases)
  func theDefaultPolicyWaitsForTheServersReset(_ test: RateLimitCase) throws {
    let headers = test.headers.mapValues(resolved)
    let response = Response(statusCode: test.status, headers: headers, data: Data())
    let delay = RetryPolicy().delay(after: .status(response), attempt: 1, now: now)
    #expect(delay.map(seconds) == test.wait, "\(headers)")
  }

  @Test func aRateLimitedAnswerWithoutAResetWaitsTheBackoff() throws {
    let response = Response(statusCode: 403, headers: ["X-RateLimit-Remaining": "0"], data: Data())
    let delay = try #require(
      RetryPolicy(baseDelay: .milliseconds(100)).delay(after: .status(response), attempt: 1))
    #expect(delay >= .milliseconds(50) && delay <= .milliseconds(100))
  }

  @Test func aRateLimitedBusinessFailureIsRetriedAtItsReset() {
    let response = Response(statusCode: 429, headers: ["Retry-After": "3"], data: Data())
    let error = ProviderError.business(code: 42900, message: "slow down", response: response)
    #expect(RetryPolicy().delay(after: error, attempt: 1, now: now) == .seconds(3))
  }

  /// Generated rate-limit fields, well-formed or not: a wait is never negative, it is the time
  /// until the `retryAfter` the app is told (never before it), and a 403 whose quota is not
  /// spent is never retried.
  @Test func generatedRateLimitFieldsNeverWaitTooLittleOrRetryARefusal() throws {
    var generator = SeededGenerator(seed: 0x4A7E_11A1)
    let names = [
      "Retry-After", "RateLimit", "RateLimit-Policy", "RateLimit-Remaining", "RateLimit-Reset",
      "X-RateLimit-Remaining", "X-RateLimit-Reset",
    ]
    let values = [
      "0", "1", "-3", "2.5", "1e300", "nan", "abc", "{now+4}", "{date+2}", #""q";r=0;t=3"#,
      #""q";r=2;t=1"#, "limit=5, remaining=0, reset=2", #""q";q=10;w=6"#, "r=0", ";;,,\"",
    ]
    for _ in 0..<1_000 {
      var headers: [String: String] = [:]
      for _ in 0..<Int.random(in: 0...3, using: &generator) {
        let name = names.randomElement(using: &generator) ?? "RateLimit"
        headers[name] = resolved(values.randomElement(using: &generator) ?? "0")
      }
      let status = Bool.random(using: &generator) ? 403 : 429
      let response = Response(statusCode: status, headers: headers, data: Data())
      let delay = RetryPolicy().delay(after: .status(response), attempt: 1, now: now)
      if status == 403 && !response.isRateLimited {
        #expect(delay == nil, "\(headers)")
        continue
      }
      let wait = try #require(delay, "\(headers)")
      #expect(wait >= .zero)
      // What the app is told and what the policy waits agree (a wait is capped at a week).
      if let date = response.retryAfter(now: now) {
        let left = min(max(0, date.timeIntervalSince(now)), 7 * 24 * 3600)
        #expect(seconds(wait) >= left && seconds(wait) < left + 0.002, "\(headers)")
      }
    }
  }
}
