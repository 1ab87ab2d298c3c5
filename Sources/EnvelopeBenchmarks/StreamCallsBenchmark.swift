import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// `--stream-calls [MB]`: the provider's streaming calls end to end over loopback, each case in a
// process of its own (peak RSS growth over the process's RSS before the case), against decoding
// the same bytes from memory in the same run. The server (`/repeat`) sends a pre-built block of
// 1000 rows again and again while it generates the body; the in-memory cases fetch the block
// once and decode it as many times.
// - NDJSON: MB megabytes (1024 by default) through `provider.lines`, against decoding each line
//   of the block from memory, repeated to the same byte count.
// - elements: a 200 MB envelope (`data.items`) through `provider.elements`, against the
//   whole-body `decodeEnvelope([Row].self, from:at: "items")` of the same bytes in memory.
// - SSE: 100,000 events of 200 B through `provider.events`, against decoding the same `data`
//   payloads from memory; and the time to the first event when the server sends one event and
//   then pauses 2 s.

/// A row of the stream-call benchmarks (the server's `/repeat` rows).
private struct CallRow: Decodable, Sendable {
  var id: Int
  var name: String
  var price: Double
  var tags: [String]
  var active: Bool
}

/// The loopback server's `/repeat` route.
private struct RepeatRoute: TargetType {
  var baseURL: URL
  var items: [String: String]
  var path: String { "/repeat" }
  var query: [URLQueryItem] {
    items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
  }
  var authorization: AuthorizationType { .none }
  var timeout: TimeInterval { 600 }
}

/// `text` padded with spaces to `width` characters.
private func padded(_ text: String, _ width: Int) -> String {
  text + String(repeating: " ", count: max(0, width - text.count))
}

/// Nanoseconds since `start`.
private func nanoseconds(since start: ContinuousClock.Instant) -> Int {
  let elapsed = ContinuousClock.now - start
  return Int(
    elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
}

/// One piece (`head`, `block`, `tail`) of a `/repeat` body.
private func repeatPart(_ base: URL, kind: String, _ part: String) async throws -> Data {
  var components = URLComponents(url: base, resolvingAgainstBaseURL: false)
  components?.path = "/repeat"
  components?.queryItems = [
    URLQueryItem(name: "kind", value: kind), URLQueryItem(name: "part", value: part),
  ]
  guard let url = components?.url else { throw URLError(.badURL) }
  return try await URLSession.shared.data(for: URLRequest(url: url)).0
}

/// One case over about `target` bytes (whole blocks); prints `bytes nanoseconds
/// peak-growth-bytes values blocks high-water-growth-bytes`: the peak sampled every 2 ms, and
/// VmHWM (the kernel's own peak, which no sampling can miss, but which also counts what the
/// process touched before the baseline: a few hundred KB before a stream case) less the
/// baseline.
func streamCallsChild(_ mode: String, base: URL, target: Int) async throws {
  let kind = String(mode.prefix { $0 != "-" })
  let head = try await repeatPart(base, kind: kind, "head")
  let block = try await repeatPart(base, kind: kind, "block")
  let tail = try await repeatPart(base, kind: kind, "tail")
  let blocks = max(1, (target + block.count - 1) / block.count)
  let bytes = head.count + block.count * blocks + tail.count
  let provider = Provider<RepeatRoute>()
  let decoder = LenientDecoder()
  let route = RepeatRoute(baseURL: base, items: ["kind": kind, "blocks": "\(blocks)"])
  var count = 0
  var body = Data()
  var payloads: [Data] = []
  // What the in-memory cases need, made before the baseline.
  switch mode {
  case "ndjson-memory":
    payloads = block.split(separator: UInt8(ascii: "\n")).map { Data($0) }
  case "sse-memory":
    let prefix = Data("data: ".utf8)
    payloads = block.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.map {
      Data($0.dropFirst(prefix.count))
    }
  case "envelope-memory":
    body.reserveCapacity(bytes)
    body.append(head)
    for _ in 0..<blocks { body.append(block) }
    body.append(tail)
  default: break
  }
  let baseline = residentBytes()
  let peak = ResidentPeak()
  let start = ContinuousClock.now
  switch mode {
  case "ndjson-stream":
    for try await _ in provider.lines(route, as: CallRow.self) { count += 1 }
  case "envelope-stream":
    for try await _ in provider.elements(route, as: CallRow.self, at: "items") { count += 1 }
  case "sse-stream":
    for try await _ in provider.events(route, as: CallRow.self, endMarker: nil) { count += 1 }
  case "ndjson-memory", "sse-memory":
    for _ in 0..<blocks {
      for payload in payloads {
        _ = try decoder.decode(CallRow.self, from: payload)
        count += 1
      }
    }
  case "envelope-memory":
    count = try decoder.decodeEnvelope([CallRow].self, from: body, at: "items").count
  case "sse-first":
    var paused = route
    paused.items["pause"] = "2"
    for try await _ in provider.events(paused, as: CallRow.self, endMarker: nil) {
      count = 1
      break
    }
  default:
    throw URLError(.unsupportedURL)
  }
  let elapsed = nanoseconds(since: start)
  let growth = max(1, peak.stop() - baseline)
  let highWater = max(1, (processStatusBytes("VmHWM") ?? 0) - baseline)
  withExtendedLifetime(body) {}
  print(bytes, elapsed, growth, count, blocks, highWater)
}

@MainActor func streamCallsBenchmark(bytes: Int) throws {
  let (base, stop) = try startLoopbackServer()
  defer { stop() }
  print("\n== The provider's streaming calls over loopback (own process each)")
  print(
    "  case                                         MB    MB/s  peak RSS growth (VmHWM)"
      + "    values  speed")
  var results: [String] = []
  func run(_ cases: [(mode: String, label: String)], bytes: Int, head: Int) throws -> Double? {
    var rates: [Double] = []
    var growths: [Int] = []
    for (mode, label) in cases {
      guard
        let fields = try runChild(
          ["--stream-calls-child", mode, base.absoluteString, String(bytes)], fields: 6)
      else { return nil }
      let values = fields[4] * 1000 + head
      if fields[3] != values { check(false, "\(label): \(fields[3]) of \(values) values") }
      let megabytes = Double(fields[0]) / 1_048_576
      let rate = megabytes / (Double(fields[1]) / 1e9)
      rates.append(rate)
      // The larger of the two peaks: a spike between samples still counts.
      growths.append(max(fields[2], fields[5]))
      let speed = rates.count == 2 ? String(format: "%5.2fx", rates[1] / rates[0]) : ""
      print(
        String(
          format: "  %@ %6.0f %7.0f %8.1f MB (%6.1f) %9d   %@", padded(label, 40) as NSString,
          megabytes, rate, Double(fields[2]) / 1_048_576, Double(fields[5]) / 1_048_576,
          fields[3], speed as NSString))
    }
    if let last = growths.last, growths.count == 2 {
      check(last < 64 << 20, "\(cases[1].label): peak RSS growth under 64 MB")
    }
    return rates.count == 2 ? rates[1] / rates[0] : nil
  }
  let ndjson = try run(
    [
      ("ndjson-memory", "NDJSON: decode each line from memory"),
      ("ndjson-stream", "NDJSON: provider.lines"),
    ], bytes: bytes, head: 0)
  let elements = try run(
    [
      ("envelope-memory", "envelope: decodeEnvelope whole body"),
      ("envelope-stream", "envelope: provider.elements"),
    ], bytes: 200 << 20, head: 1)
  let events = try run(
    [
      ("sse-memory", "SSE: decode each payload from memory"),
      ("sse-stream", "SSE: provider.events"),
    ], bytes: 100 * 198_000, head: 0)
  var first: Double?
  if let fields = try runChild(
    ["--stream-calls-child", "sse-first", base.absoluteString, "198000"], fields: 6)
  {
    first = Double(fields[1]) / 1e6
    print(
      String(
        format: "  %@ %8.1f ms after the request (the rest comes 2 s later)",
        padded("SSE: first event, then the server pauses", 40) as NSString, first ?? 0))
  }
  for (name, ratio) in [
    ("NDJSON lines", ndjson), ("envelope elements", elements), ("SSE events", events),
  ] {
    guard let ratio else { continue }
    results.append(String(format: "%@ %4.2fx", name as NSString, ratio))
    check(ratio >= 0.8, "\(name) over loopback at least 0.8x of decoding from memory")
  }
  if let first {
    results.append(String(format: "first SSE event %.1f ms", first))
    check(first < 500, "first SSE event before the server's 2 s pause ends")
  }
  print("  " + results.joined(separator: " | "))
}
