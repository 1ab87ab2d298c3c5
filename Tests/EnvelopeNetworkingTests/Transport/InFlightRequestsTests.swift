import Foundation
import Testing

@testable import EnvelopeNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The table of shared exchanges (`InFlightRequests`) under generated races: callers joining,
/// cancelled at any point, exchanges that succeed or fail at once or later.
@Suite struct InFlightRequestsTests {
  /// Seeded rounds of 1 to 8 callers on three keys, each cancelled or not: every caller ends
  /// with the exchange's outcome or `CancellationError` (none hangs, none is resumed twice),
  /// and nothing is kept once every exchange is over.
  @Test func generatedCancellationsNeitherHangNorLeakAnExchange() async throws {
    let flights = InFlightRequests()
    var random = SeededGenerator(seed: 37)
    for round in 0..<300 {
      let key = "k\(round % 3)"
      let delay = UInt64.random(in: 0...2_000_000, using: &random)
      let fails = Bool.random(using: &random)
      var callers: [Task<Int, Never>] = []
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        callers.append(
          Task {
            do {
              return try await flights.response(for: key) {
                try await Task.sleep(nanoseconds: delay)
                if fails { throw URLError(.badServerResponse) }
                return Response(statusCode: 200, data: Data())
              }.statusCode
            } catch is CancellationError {
              return -1
            } catch {
              return fails ? -2 : -3
            }
          })
        if Bool.random(using: &random) { await Task.yield() }
      }
      for caller in callers where Bool.random(using: &random) { caller.cancel() }
      for caller in callers {
        let outcome = await caller.value
        #expect(outcome == -1 || outcome == (fails ? -2 : 200), "round \(round): \(outcome)")
      }
    }
    // A cancelled exchange ends on its own task: give the last one a moment (`poll`'s rounds at most, for
    // a loaded machine slow to run that task).
    _ = await poll { flights.count == 0 }
    #expect(flights.count == 0)
    #expect(flights.callers == 0)
  }
}
