/// The report entries of one decode, capped at `limit` stored entries with an exact count of
/// the rest, and rolled back when a value that made entries is dropped as a whole.
final class ReportRecorder {
  @exclusivity(unchecked) private(set) var entries: [DecodingReport.Entry] = []
  /// Every entry made, stored or not.
  @exclusivity(unchecked) private(set) var count = 0
  let limit: Int

  init(limit: Int) {
    self.limit = max(0, limit)
  }

  var report: DecodingReport {
    DecodingReport(entries: entries, omittedCount: count - entries.count)
  }

  /// The report so far, and a fresh start (the next frame of a stream).
  func take() -> DecodingReport {
    let report = self.report
    if count > 0 {
      entries = []
      count = 0
    }
    return report
  }

  /// A point to roll back to.
  var mark: Int { count }

  /// Forgets the entries made since `mark`.
  func rollback(to mark: Int) {
    count = mark
    if entries.count > mark { entries.removeSubrange(mark...) }
  }

  /// Adds an entry; `make` runs only when the entry is stored.
  func add(_ make: () -> DecodingReport.Entry) {
    if entries.count < limit { entries.append(make()) }
    count += 1
  }
}
