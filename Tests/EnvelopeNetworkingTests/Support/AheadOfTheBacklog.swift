import Testing

/// Runs each test case in a task of `.high` priority, so that what it waits for (a transport's
/// answer, a timeout, its own `Task`s) resumes ahead of the other tests' queued synchronous work.
///
/// Swift Testing starts every test of the run at once, at `.medium`. On two cores hundreds of
/// synchronous test jobs then queue for the two threads of Swift's cooperative pool, and a job
/// enqueued behind them waits its turn. Measured in full `swift test` runs: a `.medium` job
/// enqueued from a plain thread (as a transport resumes its continuation, from the session's
/// delegate queue) waited up to 27 s, a `Task.sleep` of 10 ms ended up to 27 s late; a `.high`
/// job enqueued the same way over the same seconds waited at most 14 ms (libdispatch takes a
/// `.high` job before the queued `.medium` ones). A test with a time bound then measures its own
/// exchange, not the backlog; a hung call still runs into the bound.
///
/// The case runs in an unstructured `Task`, not a task group's child: on Linux (Swift 6.3.1) a
/// child added with `.high` under a `.medium` task runs as `.medium`. The `Task` inherits the
/// test's task-locals, so an issue recorded inside (and in the tasks it starts) is the test's;
/// cancelling the test cancels it.
struct AheadOfTheBacklog: TestTrait, SuiteTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(
    for test: Test, testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    // Awaited before returning: `function` does not outlive the call.
    try await withoutActuallyEscaping(function) { function in
      let task = Task(priority: .high) { try await function() }
      try await withTaskCancellationHandler {
        try await task.value
      } onCancel: {
        task.cancel()
      }
    }
  }
}

extension Trait where Self == AheadOfTheBacklog {
  /// Runs each test case at `.high` priority, ahead of the queue of other tests' synchronous
  /// work (see ``AheadOfTheBacklog``).
  static var aheadOfTheBacklog: Self { Self() }
}
