import Foundation

/// The provider call a plugin hook runs for: a number unique in the process and the attempt.
///
/// Set as a task-local value around every hook, so a plugin can tell apart two calls to the
/// same URL that are in flight at once (`LoggingPlugin` prefixes its lines with `#id`).
///
/// ```swift
/// func willSend(_ request: URLRequest, target: any TargetType) async {
///   print(ProviderCall.current?.id ?? 0, request.url ?? "")
/// }
/// ```
public struct ProviderCall: Sendable, Hashable {
  /// Unique per call in this process, from 1.
  public var id: Int
  /// 1 for the first attempt, 2 for the first retry.
  public var attempt: Int

  /// Creates a call context.
  ///
  /// - Parameters:
  ///   - id: the call's number.
  ///   - attempt: the attempt.
  public init(id: Int, attempt: Int) {
    self.id = id
    self.attempt = attempt
  }

  /// The call the current hook runs for; nil outside a provider call.
  @TaskLocal public static var current: ProviderCall?

  private static let counter = Counter()

  /// The next call number.
  static func nextID() -> Int { counter.next() }
}

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
