import Foundation

/// The provider call a plugin hook runs for: a number unique in the process and the attempt.
///
/// Set around every hook, so a plugin can tell apart two calls to the same URL that are in flight
/// at once (`LoggingPlugin` prefixes its lines with `#id`).
///
/// ```swift
/// func willSend(_ request: URLRequest, target: any TargetType) async {
///   print(ProviderCall.current?.id ?? 0, request.url ?? "")
/// }
/// ```
///
/// A plugin keeps what it needs between its hooks, and across the attempts of one call, in the
/// call itself: `value(for:)` and `setValue(_:for:)` under a key of its own (in the calls of a
/// provider with plugins or a cache scope; elsewhere no hook runs, and nothing is kept). The values go when
/// the call ends, however it ends (a success, a failure, a cancelled task), so a plugin needs no
/// dictionary by call to clean up.
///
/// ```swift
/// struct Timing: Plugin {
///   static let start = CallValueKey<ContinuousClock.Instant>()
///   func willSend(_ request: URLRequest, target: any TargetType) async {
///     ProviderCall.current?.setValue(.now, for: Self.start)
///   }
///   func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
///     if let start = ProviderCall.current?.value(for: Self.start) { print(.now - start) }
///   }
/// }
/// ```
public struct ProviderCall: Sendable, Hashable {
  /// Unique per call in this process, from 1.
  public var id: Int
  /// 1 for the first attempt, 2 for the first retry.
  public var attempt: Int
  /// What plugins keep for the call, shared by its attempts.
  let values: CallValues

  /// Creates a call context with no values kept.
  ///
  /// - Parameters:
  ///   - id: the call's number.
  ///   - attempt: the attempt.
  public init(id: Int, attempt: Int) {
    self.init(id: id, attempt: attempt, values: CallValues())
  }

  /// A call context whose attempts share `values`.
  init(id: Int, attempt: Int, values: CallValues) {
    self.id = id
    self.attempt = attempt
    self.values = values
  }

  /// The value kept under `key` for this call (by any of its attempts), or nil.
  ///
  /// - Parameter key: the key.
  /// - Returns: the value, or nil.
  public func value<Value>(for key: CallValueKey<Value>) -> Value? {
    values.value(for: key)
  }

  /// Keeps `value` under `key` for the rest of this call; nil removes it.
  ///
  /// - Parameters:
  ///   - value: the value.
  ///   - key: the key.
  public func setValue<Value>(_ value: Value?, for key: CallValueKey<Value>) {
    values.setValue(value, for: key)
  }

  /// Calls are equal when their numbers and attempts are.
  ///
  /// - Parameters:
  ///   - lhs: a call.
  ///   - rhs: another call.
  /// - Returns: whether they are the same attempt of the same call.
  public static func == (lhs: ProviderCall, rhs: ProviderCall) -> Bool {
    lhs.id == rhs.id && lhs.attempt == rhs.attempt
  }

  /// Hashes the number and the attempt.
  ///
  /// - Parameter hasher: the hasher.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
    hasher.combine(attempt)
  }

  /// The call the current hook runs for; nil outside a provider call.
  public static var current: ProviderCall? { Exchange.current?.call }

  private static let counter = Counter()

  /// The next call number.
  static func nextID() -> Int { counter.next() }
}

/// One attempt as the provider's line of transports sees it: the call, the target, how the call
/// uses the cache, and the plugins (for token-refresh events).
///
/// The provider hands it to its line (`LineTransport.response(to:in:)`), and sets it as the
/// task-local `current` around your code: plugin hooks and the cache scope (for the whole attempt,
/// when the provider has either) and your transport (`TimedTransport`). A transfer sets it for
/// the whole transfer, because `HTTPTransport.download` and `upload` take only the request.
/// A struct: it is handed on, not shared, and a class was an allocation per attempt.
struct Exchange: Sendable {
  let call: ProviderCall
  let target: any TargetType
  let cacheUse: CacheUse
  /// Hands a plugin's token-refresh events to every plugin (see `TokenRefresh`).
  let plugins: [any Plugin]
  /// The provider's names: what a hook or a transport that writes the request hides
  /// (`LoggingPlugin`, recordings), besides its own.
  let redaction: RedactionRule

  init(
    call: ProviderCall, target: any TargetType, cacheUse: CacheUse, plugins: [any Plugin],
    redaction: RedactionRule
  ) {
    self.call = call
    self.target = target
    self.cacheUse = cacheUse
    self.plugins = plugins
    self.redaction = redaction
  }

  /// The attempt the current transport or hook runs for; nil outside a provider call.
  @TaskLocal static var current: Exchange?
}

/// How one call uses the provider's cache.
enum CacheUse {
  /// As the target's `cachePolicy` says.
  case byPolicy
  /// Network only, and store the answer whatever the policy (the network leg of
  /// `cachedThenNetwork`).
  case refresh
  /// The stored entry only, whatever the policy; a miss throws `CacheMiss` (the cached leg of
  /// `cachedThenNetwork`).
  case cacheOnly
  /// Never (downloads and uploads).
  case none
}

/// No stored entry answers a `.cacheOnly` exchange.
struct CacheMiss: Error {}

/// `@unchecked Sendable`: `value` is only touched with `lock` held.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0

  func next() -> Int {
    lock.withLock {
      value += 1
      return value
    }
  }
}

/// A key for a value a plugin keeps in a call (`ProviderCall.setValue(_:for:)`): each key made is
/// its own, so two plugins never share one by accident.
///
/// ```swift
/// static let waited = CallValueKey<Duration>()
/// ```
public final class CallValueKey<Value: Sendable>: Sendable {
  /// Creates a key unlike any other.
  public init() {}
}

/// The values kept in one call. `@unchecked Sendable`: `storage` is only touched with `lock`
/// held.
///
/// Each value keeps its key alive: an `ObjectIdentifier` names an object only while it lives,
/// and a key freed while its value is kept would otherwise hand that value to the next key
/// made at the same address.
///
/// A provider without plugins (and without a cache scope) runs no hook that could keep a value:
/// its calls share `none`, which keeps nothing, so that such a call allocates nothing for them.
final class CallValues: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [ObjectIdentifier: (key: AnyObject, value: any Sendable)] = [:]
  private let keeps: Bool

  init() { keeps = true }
  private init(keeping: Bool) { keeps = keeping }

  /// Keeps nothing: the calls of a provider that runs none of your hooks.
  static let none = CallValues(keeping: false)

  func value<Value>(for key: CallValueKey<Value>) -> Value? {
    guard keeps else { return nil }
    return lock.withLock { storage[ObjectIdentifier(key)]?.value as? Value }
  }

  func setValue<Value>(_ value: Value?, for key: CallValueKey<Value>) {
    guard keeps else { return }
    lock.withLock { storage[ObjectIdentifier(key)] = value.map { (key, $0) } }
  }
}
