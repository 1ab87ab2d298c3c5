import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The one reader of rate-limit fields: whether a response was refused for a rate limit, and when
// the server says the request may be sent again. `RetryPolicy` waits by it; your app reads it
// from the error (`ProviderError.retryAfter`).
//
// Fields read, the first present wins:
//   Retry-After              seconds or an HTTP date (RFC 9110 §10.2.3), on any response
//   RateLimit                draft-ietf-httpapi-ratelimit-headers: `"name";r=0;t=30` (draft 08
//                            and later) or `limit=10, remaining=0, reset=30` (draft 07); with
//                            RateLimit-Policy's window `w` when an exhausted quota has no `t`
//   RateLimit-Reset          seconds (drafts up to 06)
//   X-RateLimit-Reset        epoch seconds (GitHub, Twitter); a value under 10⁹ is seconds from now

extension Response {
  /// Whether the server refused this request for its rate limit: a 429, or a 403 whose quota is
  /// spent (`X-RateLimit-Remaining: 0`, `RateLimit-Remaining: 0`, or a `RateLimit` quota with
  /// `r=0`). Any other 403 is a refusal, not a limit.
  public var isRateLimited: Bool {
    switch statusCode {
    case 429: return true
    case 403: return RateLimitFields(self).quotaSpent
    default: return false
    }
  }

  /// When the server says this request may be sent again, or nil when it does not say: its
  /// `Retry-After` (seconds or an HTTP date), and for a rate-limited response (`isRateLimited`)
  /// the reset of the `RateLimit` field (`t=`, `reset=`), `RateLimit-Reset` or
  /// `X-RateLimit-Reset` (epoch seconds). Seconds are counted from now: read it when the
  /// response arrives (a failed call's error has it as ``ProviderError/retryAfter``).
  ///
  /// ```swift
  /// catch let error as ProviderError where error.response?.isRateLimited == true {
  ///   showRateLimited(until: error.retryAfter)
  /// }
  /// ```
  public var retryAfter: Date? { retryAfter(now: Date()) }

  /// `retryAfter`, with seconds counted from `now`.
  func retryAfter(now: Date) -> Date? {
    if let value = header("Retry-After"), let date = RateLimitFields.retryAfter(value, now: now) {
      return date
    }
    guard isRateLimited else { return nil }
    return RateLimitFields(self).reset(now: now)
  }
}

extension ProviderError {
  /// When the server says the failed request may be sent again (a 429, a 403 whose rate limit is
  /// spent, a 503 with `Retry-After`): the response's ``Response/retryAfter``; nil when there is
  /// no response or it does not say. `RetryPolicy` waits for it up to its `maxDelay`; past that,
  /// the call fails at once and this is when to try again.
  public var retryAfter: Date? { response?.retryAfter }
}

/// A response's rate-limit fields, read once.
struct RateLimitFields {
  /// One quota of a `RateLimit` field: its name (draft 08 and later), what is left and the
  /// seconds until it resets.
  struct Quota {
    var name: String?
    var remaining: Double?
    var reset: Double?
  }

  let quotas: [Quota]
  /// `RateLimit-Policy` windows (`w`) by quota name ("" for an unnamed one).
  let windows: [String: Double]
  let legacyRemaining: String?
  let legacyReset: String?
  let vendorRemaining: String?
  let vendorReset: String?

  init(_ response: Response) {
    quotas = response.header("RateLimit").map(Self.quotas) ?? []
    var windows: [String: Double] = [:]
    for quota in response.header("RateLimit-Policy").map(Self.policies) ?? [] {
      if let window = quota.reset { windows[quota.name ?? "", default: window] = window }
    }
    self.windows = windows
    legacyRemaining = response.header("RateLimit-Remaining")
    legacyReset = response.header("RateLimit-Reset")
    vendorRemaining = response.header("X-RateLimit-Remaining")
    vendorReset = response.header("X-RateLimit-Reset")
  }

  /// Whether a field says no request is left.
  var quotaSpent: Bool {
    let left = [vendorRemaining, legacyRemaining].compactMap { $0.flatMap(Self.number) }
    return left.contains { $0 <= 0 } || quotas.contains { ($0.remaining ?? 1) <= 0 }
  }

  /// When the spent quota resets: the `RateLimit` field's, else the older fields'.
  func reset(now: Date) -> Date? {
    // The quotas that are spent (or say nothing of what is left) are what the server waits for;
    // the longest of their resets.
    let waiting = quotas.filter { ($0.remaining ?? 0) <= 0 }
    let resets = waiting.compactMap { $0.reset ?? windows[$0.name ?? ""] ?? windows.values.max() }
    if let seconds = resets.max() { return now.addingTimeInterval(max(0, seconds)) }
    if let seconds = legacyReset.flatMap(Self.number) {
      return now.addingTimeInterval(max(0, seconds))
    }
    if let value = vendorReset.flatMap(Self.number) {
      // Epoch seconds; a small number is a delay (as some APIs send it).
      return value >= 1_000_000_000
        ? Date(timeIntervalSince1970: value) : now.addingTimeInterval(max(0, value))
    }
    return nil
  }

  /// A `Retry-After` value: whole seconds from `now`, or an HTTP date.
  static func retryAfter(_ value: String, now: Date) -> Date? {
    let text = value.trimmingCharacters(in: .whitespaces)
    if let seconds = DeltaSeconds.parse(text, cap: Timeout.longest) {
      return now.addingTimeInterval(seconds)
    }
    return HTTPDate.parse(text)
  }

  /// A finite, non-negative number of the field, or nil.
  static func number(_ text: String) -> Double? {
    guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite,
      value >= 0
    else { return nil }
    return value
  }

  /// `RateLimit` quotas: `"name";r=0;t=30, …` (each member one quota), or draft 07's
  /// `limit=10, remaining=0, reset=30` (the unnamed members together one quota).
  static func quotas(_ value: String) -> [Quota] {
    members(value, remaining: ["r", "remaining"], reset: ["t", "reset"])
  }

  /// `RateLimit-Policy` windows: `"name";q=100;w=60, …` or draft 07's `10;w=60`.
  static func policies(_ value: String) -> [Quota] {
    members(value, remaining: ["q"], reset: ["w"])
  }

  private static func members(_ value: String, remaining: Set<String>, reset: Set<String>)
    -> [Quota]
  {
    var named: [Quota] = []
    var unnamed = Quota()
    var hasUnnamed = false
    for member in HeaderList.split(value[...], on: ",") {
      var quota = Quota()
      for (offset, part) in HeaderList.split(member, on: ";").enumerated() {
        let (name, text) = HeaderList.parameter(part)
        guard let text else {
          if offset == 0 { quota.name = HeaderList.unquoted(part) }
          continue
        }
        if offset == 0, name.first == "\"" {
          quota.name = HeaderList.unquoted(part)
        } else if remaining.contains(name) {
          quota.remaining = number(text)
        } else if reset.contains(name) {
          quota.reset = number(text)
        }
      }
      if quota.name != nil {
        named.append(quota)
      } else {
        hasUnnamed = true
        unnamed.remaining = quota.remaining ?? unnamed.remaining
        unnamed.reset = quota.reset ?? unnamed.reset
      }
    }
    return hasUnnamed ? named + [unnamed] : named
  }
}
