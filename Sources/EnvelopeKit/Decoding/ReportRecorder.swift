/// The report entries of one decode, capped at `limit` stored entries with an exact count of
/// the rest, and rolled back when a value that made entries is dropped as a whole.
///
/// Not final: a decode's `DecoderImpl` is its own recorder (one allocation per decode fewer).
class ReportRecorder {
  @exclusivity(unchecked) private(set) final var entries: [DecodingReport.Entry] = []
  /// Every entry made, stored or not.
  @exclusivity(unchecked) private(set) final var count = 0
  final let limit: Int

  init(limit: Int) {
    self.limit = max(0, limit)
  }

  final var report: DecodingReport {
    DecodingReport(entries: entries, omittedCount: count - entries.count)
  }

  /// The report so far, and a fresh start (the next frame of a stream).
  final func take() -> DecodingReport {
    let report = self.report
    if count > 0 {
      entries = []
      count = 0
    }
    return report
  }

  /// Forgets every entry (a spare decoder's next decode starts empty).
  final func clear() {
    if count > 0 {
      entries = []
      count = 0
    }
  }

  /// A point to roll back to.
  final var mark: Int { count }

  /// Forgets the entries made since `mark`.
  final func rollback(to mark: Int) {
    count = mark
    if entries.count > mark { entries.removeSubrange(mark...) }
  }

  /// Adds an entry; `make` runs only when the entry is stored.
  final func add(_ make: () -> DecodingReport.Entry) {
    if entries.count < limit { entries.append(make()) }
    count += 1
  }
}
