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
