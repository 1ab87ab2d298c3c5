import Foundation

/// A result handed from a thread to its waiter.
private final class ThreadResult: @unchecked Sendable {
  // Written by the thread before it signals, read after the wait: ordered by the semaphore.
  var value = ""
}

/// Runs `body` on a new thread with the given stack size and waits for it.
func onThread(stackSize: Int, _ body: @escaping @Sendable () -> String) -> String {
  let result = ThreadResult()
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    result.value = body()
    done.signal()
  }
  thread.stackSize = stackSize
  thread.start()
  done.wait()
  return result.value
}

// MARK: - Heavy synchronous tests

/// Runs `body`, a long synchronous test's work, once no other such work is running.
///
/// Swift's cooperative pool has as many threads as the machine has cores (two on CI), and a
/// synchronous test holds its thread until it returns: a few generated or differential tests
/// (each case of a parameterized one too) used to take both threads for a minute or more, so
/// that the networking tests' continuations (and Swift Testing's own events) waited behind
/// them. Through this gate at most one of them holds a pool thread; the others wait suspended,
/// holding none. `body` runs in the caller's task, so its expectations belong to its test.
func oneHeavyAtATime<T>(_ body: () throws -> T) async rethrows -> T {
  await HeavyGate.shared.enter()
  defer { HeavyGate.shared.leave() }
  return try body()
}

/// One holder at a time; the others wait in order, suspended.
private final class HeavyGate: @unchecked Sendable {
  static let shared = HeavyGate()
  // `busy` and `waiters` are touched only under `lock`.
  private let lock = NSLock()
  private var busy = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func enter() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now: Bool = lock.withLock {
        guard busy else {
          busy = true
          return true
        }
        waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  func leave() {
    let next: CheckedContinuation<Void, Never>? = lock.withLock {
      guard !waiters.isEmpty else {
        busy = false
        return nil
      }
      return waiters.removeFirst()
    }
    next?.resume()
  }
}
