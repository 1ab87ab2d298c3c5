import EnvelopeKit
import Foundation
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `delta-seconds` (RFC 9110 §10.2.3 `Retry-After`, RFC 9111 §1.2.2 `max-age`) is `1*DIGIT`: any
/// number of digits. A value past what the cache or the policy can count is a long time, never
/// no value at all.
struct DeltaSecondsTests {
  private let now = Date(timeIntervalSince1970: 1_700_000_000)

  /// Digit strings of every length from 1 to 40, the oracle their value as a `Double`.
  private static func digitStrings() -> [String] {
    var generator = SeededGenerator(seed: 0xDE17A)
    var strings: [String] = []
    for length in 1...40 {
      for _ in 0..<25 {
        let digits = (0..<length).map { _ in
          String(Int.random(in: 0...9, using: &generator))
        }
        strings.append(digits.joined())
      }
    }
    return strings
  }

  @Test func aRetryAfterOfAnyNumberOfDigitsIsThatDelayCappedAtAWeek() throws {
    for text in Self.digitStrings() {
      let seconds = try #require(Double(text))
      let expected = now.addingTimeInterval(min(seconds, Timeout.longest))
      let response = Response(statusCode: 429, headers: ["Retry-After": text], data: Data())
      #expect(response.retryAfter(now: now) == expected, "Retry-After: \(text)")
    }
  }

  @Test func aRetryAfterPastWhatAnIntegerHoldsIsNotRetriedAfterTheBackoff() {
    let response = Response(
      statusCode: 429, headers: ["Retry-After": "99999999999999999999"], data: Data())
    // The server asks for more than `maxDelay` (30 s): the call fails at once, as for any wait
    // longer than what is left.
    #expect(
      RetryPolicy().delay(after: .status(response), attempt: 1, now: now)
        == .seconds(Timeout.longest))
  }

  @Test func aMaxAgeOfAnyNumberOfDigitsKeepsAnEntryFreshForThatLong() throws {
    for text in Self.digitStrings() {
      let seconds = try #require(Double(text))
      // RFC 9111 §1.2.2: past the greatest integer the cache can represent, 2³¹.
      let lifetime: TimeInterval = min(seconds, 2_147_483_648)
      for age: TimeInterval in [0, 59, 3600, 86_400 * 365] {
        let entry = CachedResponse(
          response: Response(
            statusCode: 200, headers: ["Cache-Control": "max-age=\(text)"], data: Data()),
          storedAt: now.addingTimeInterval(-age))
        #expect(
          CacheTransport.isFresh(entry, .http, now: now) == (age < lifetime),
          "max-age=\(text), age \(age)")
      }
    }
  }
}
