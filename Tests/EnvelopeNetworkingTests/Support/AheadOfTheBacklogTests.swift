import Testing

/// `.aheadOfTheBacklog` runs the case at `.high` priority, and what fails inside still fails the
/// test.
@Suite(.aheadOfTheBacklog) struct AheadOfTheBacklogTests {
  @Test func theCaseRunsAtHighPriorityAndSoDoItsTasks() async {
    #expect(Task.currentPriority == .high)
    #expect(await Task { Task.currentPriority }.value == .high)
  }

  @Test func anIssueInsideBelongsToTheTest() async {
    // Recorded in the child task and in a `Task` it starts (as `timed` does): both are this
    // test's, so `withKnownIssue` sees them (an issue it did not see would fail the test).
    withKnownIssue { #expect(Bool(false), "planted") }
    await withKnownIssue {
      await Task { () -> Void in Issue.record("planted in a Task") }.value
    }
  }
}
