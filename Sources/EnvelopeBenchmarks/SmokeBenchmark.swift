import EnvelopeKit
import Foundation

// `--smoke`: what `.ci/run` runs after the release build. A short interleaved measurement of each
// standard payload, lenient decode against `JSONDecoder` and `ModelEncoder` against
// `JSONEncoder` (sorted keys, compact), that fails only on a collapse: a ratio under 2.0x, or
// peak memory at 100 MB over `memoryCeiling` of JSONDecoder's. Each contender's best time over
// a few rounds counts (a busy machine slows a round, never speeds one up), so a shared 2-core
// machine does not make it flaky; the full tables, with their higher bars, stay in the other
// rows.

/// The bar below which the smoke run fails: a change that loses half the speed. `--smoke X`
/// sets another (a high one shows that a collapse fails the run).
@MainActor var smokeFloor: Double {
  guard let flag = CommandLine.arguments.firstIndex(of: "--smoke") else { return 2.0 }
  return CommandLine.arguments.dropFirst(flag + 1).first.flatMap { Double($0) } ?? 2.0
}

/// Best seconds per iteration of `ours` and `foundation` over `rounds` interleaved rounds.
private func bestTimes(
  rounds: Int, iterations: Int, foundation: () throws -> Void, ours: () throws -> Void
) rethrows -> (foundation: Double, ours: Double) {
  func time(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations { try body() }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(iterations)
  }
  try foundation()  // warm up
  try ours()
  var best = (foundation: Double.infinity, ours: Double.infinity)
  for _ in 0..<rounds {
    best.foundation = min(best.foundation, try time(foundation))
    best.ours = min(best.ours, try time(ours))
  }
  return best
}

/// One payload's smoke rows: the ratios, printed; the rows under the floor, returned.
@MainActor private func smokeRows<T: Codable>(_ type: T.Type, _ file: String, iterations: Int)
  throws -> [String]
{
  guard let data = load(file) else {
    print("SKIPPED \(file): ../shared/data/payloads is absent")
    return []
  }
  let rounds = 7
  let lenient = LenientDecoder()
  let decode = try bestTimes(
    rounds: rounds, iterations: iterations,
    foundation: { _ = try JSONDecoder().decode(T.self, from: data) },
    ours: { _ = try lenient.decode(T.self, from: data) })
  // Read only, by the closures below, on this thread.
  nonisolated(unsafe) let model = try JSONDecoder().decode(T.self, from: data)
  let foundationEncoder = JSONEncoder()
  foundationEncoder.outputFormatting = .sortedKeys
  var encoder = ModelEncoder()
  encoder.outputFormatting = .sortedKeys
  let encode = try bestTimes(
    rounds: rounds, iterations: iterations,
    foundation: { _ = try foundationEncoder.encode(model) },
    ours: { _ = try encoder.encode(model) })
  var collapsed: [String] = []
  for (what, times, against) in [
    ("lenient decode", decode, "JSONDecoder"), ("encode", encode, "JSONEncoder"),
  ] {
    let ratio = times.foundation / times.ours
    let row =
      "\(file.padding(toLength: 18, withPad: " ", startingAt: 0)) "
      + "\(what.padding(toLength: 15, withPad: " ", startingAt: 0)) "
      + String(format: "%5.2fx ", ratio) + "\(against) (best of \(rounds) rounds)"
    print(ratio < smokeFloor ? "  COLLAPSED: \(row)" : "  ok: \(row)")
    if ratio < smokeFloor { collapsed.append(row) }
  }
  return collapsed
}

/// The highest peak RSS of a 100 MB decode the smoke run accepts, as a multiple of
/// JSONDecoder's (0.82x on 591c890). A copy of the input adds about 0.15x: one slipped in
/// unnoticed once (ad557b2, 0.96x), when the only bar was JSONDecoder's own peak.
let memoryCeiling = 0.9

/// The smoke row of peak memory: LenientDecoder's peak RSS decoding 100 MB against
/// JSONDecoder's, each in its own process; the row when it is over `memoryCeiling`.
@MainActor private func smokeMemoryRow() throws -> [String] {
  guard peakResidentBytes() != nil else {
    print("SKIPPED peak memory: needs /proc (Linux)")
    return []
  }
  let peaks = try ["foundation", "lenient"].map {
    try runChild(["--memory-child", $0, String(100 << 20)], fields: 3)
  }
  guard let foundation = peaks[0], let ours = peaks[1] else {
    return ["peak memory: a child process did not run"]
  }
  let ratio = Double(ours[1]) / Double(foundation[1])
  let row = String(
    format: "100 MB decode peak RSS %5.2fx JSONDecoder's (%.1f MB, ceiling %4.2fx)", ratio,
    Double(ours[1]) / 1e6, memoryCeiling)
  print(ratio > memoryCeiling ? "  OVER: \(row)" : "  ok: \(row)")
  return ratio > memoryCeiling ? [row] : []
}

/// Runs the smoke rows; exits non-zero when any is under `smokeFloor` or memory is over
/// `memoryCeiling`.
@MainActor func smokeBenchmark() throws -> Never {
  print(
    "== Smoke benchmark: fails under \(smokeFloor)x Foundation (lenient decode, encode)"
      + " or over \(memoryCeiling)x its peak memory")
  var collapsed: [String] = []
  collapsed += try smokeRows(TwitterRoot.self, "twitter.json", iterations: 6)
  collapsed += try smokeRows(CitmRoot.self, "citm_catalog.json", iterations: 2)
  collapsed += try smokeRows(CanadaRoot.self, "canada.json", iterations: 2)
  collapsed += try smokeMemoryRow()
  guard collapsed.isEmpty else {
    print("\nCollapsed (under \(smokeFloor)x, or memory over \(memoryCeiling)x):")
    collapsed.forEach { print("  \($0)") }
    exit(1)
  }
  exit(0)
}
