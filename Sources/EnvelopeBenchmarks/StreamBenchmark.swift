import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// `--stream [MB]`: a body of MB megabytes (500 by default) from the loopback server, sent as
// fast as it can, read three ways, each in a process of its own so that nothing else moves the
// RSS: `URLSession.data(for:)` (the whole body in memory), `URLSessionTransport.stream` with a
// consumer that keeps up, and the same with a consumer that sleeps 1 ms per 64 KB.

/// The highest VmRSS seen, sampled every 2 ms on a thread of its own (VmHWM would include
/// whatever the process touched before the baseline).
final class ResidentPeak: @unchecked Sendable {
  private let lock = NSLock()
  private var peak = residentBytes()
  private var running = true

  init() {
    Thread.detachNewThread { [self] in
      while lock.withLock({ running }) {
        let now = residentBytes()
        lock.withLock { peak = max(peak, now) }
        usleep(2000)
      }
    }
  }

  func stop() -> Int {
    lock.withLock {
      running = false
      return max(peak, residentBytes())
    }
  }
}

/// One way of reading the body; prints `bytes nanoseconds peak-growth-bytes`.
func streamChild(_ mode: String, base: URL, bytes: Int) async throws {
  var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
  components?.path = "/bytes"
  components?.queryItems = [URLQueryItem(name: "n", value: "\(bytes)")]
  guard let url = components?.url else { throw URLError(.badURL) }
  let request = URLRequest(url: url, timeoutInterval: 120)
  let baseline = residentBytes()
  let peak = ResidentPeak()
  let start = ContinuousClock.now
  var received = 0
  if mode == "plain" {
    received = try await URLSession.shared.data(for: request).0.count
  } else {
    let streamed = try await URLSessionTransport().stream(request)
    var pending = 0
    for try await chunk in streamed.body {
      received += chunk.count
      guard mode == "slow" else { continue }
      pending += chunk.count
      while pending >= 64 << 10 {
        pending -= 64 << 10
        try await Task.sleep(for: .milliseconds(1))
      }
    }
  }
  let elapsed = ContinuousClock.now - start
  let nanoseconds =
    elapsed.components.seconds * 1_000_000_000
    + elapsed.components.attoseconds / 1_000_000_000
  print(received, nanoseconds, max(1, peak.stop() - baseline))
}

@MainActor func streamBenchmark(bytes: Int) throws {
  let (base, stop) = try startLoopbackServer()
  defer { stop() }
  let megabytes = Double(bytes) / 1_048_576
  print("\n== A \(Int(megabytes)) MB body from the loopback server (own process each)")
  var speeds: [String: Double] = [:]
  for mode in ["plain", "fast", "slow"] {
    guard
      let fields = try runChild(
        ["--stream-child", mode, base.absoluteString, String(bytes)], fields: 3)
    else { continue }
    check(fields[0] == bytes, "\(mode): \(fields[0]) of \(bytes) bytes")
    let seconds = Double(fields[1]) / 1e9
    speeds[mode] = megabytes / seconds
    let label = [
      "plain": "URLSession.data(for:)", "fast": "stream, consumer keeps up",
      "slow": "stream, 1 ms per 64 KB",
    ][mode, default: mode]
    print(
      String(
        format: "  %-28@ %7.0f MB/s  peak RSS growth %6.1f MB", label as NSString,
        megabytes / seconds, Double(fields[2]) / 1_048_576))
  }
  if let fast = speeds["fast"], let plain = speeds["plain"] {
    print(String(format: "  stream (fast consumer) / data(for:): %.2fx", fast / plain))
  }
}
