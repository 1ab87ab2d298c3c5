import EnvelopeKit
import Foundation

// Rows of the encoder issue: ModelEncoder against JSONEncoder on the three benchmark models,
// same options (sorted keys, compact), same output checked first; peak memory encoding a 100 MB
// array of models. `--encode` runs only these rows; `--profile-encode FILE` loops for perf.

/// Decodes the payload's model, checks both encoders write the same bytes (compact and pretty,
/// sorted), then times them interleaved.
@MainActor func encodeBenchmark<T: Codable>(_ type: T.Type, _ file: String, iterations: Int)
  throws -> Double?
{
  guard let data = load(file) else {
    print("SKIPPED \(file): ../shared/data/payloads is absent")
    return nil
  }
  // Read only, by the closures below, on this thread.
  nonisolated(unsafe) let model = try JSONDecoder().decode(T.self, from: data)
  for formatting in [JSONEncoder.OutputFormatting.sortedKeys, [.sortedKeys, .prettyPrinted]] {
    let foundation = JSONEncoder()
    foundation.outputFormatting = formatting
    var ours = ModelEncoder()
    ours.outputFormatting = formatting
    let same = try foundation.encode(model) == ours.encode(model)
    let name = formatting.contains(.prettyPrinted) ? "pretty" : "compact"
    check(same, "\(file): ModelEncoder writes JSONEncoder's bytes (\(name), sorted keys)")
  }
  let foundation = JSONEncoder()
  foundation.outputFormatting = .sortedKeys
  var ours = ModelEncoder()
  ours.outputFormatting = .sortedKeys
  let size = try foundation.encode(model).count
  var encoding = Comparison(
    title: "\(file): encoding the model, sorted keys, compact", bytes: size,
    iterations: iterations)
  encoding.add("Foundation JSONEncoder") { _ = try foundation.encode(model) }
  encoding.add("ModelEncoder") { _ = try ours.encode(model) }
  let times = try encoding.report(rounds: rounds)
  return times[0] / times[1]
}

@MainActor func encodeBenchmarks() throws {
  print("\n== Encoding")
  for (file, run) in [
    ("twitter.json", { try encodeBenchmark(TwitterRoot.self, "twitter.json", iterations: 10) }),
    (
      "citm_catalog.json",
      { try encodeBenchmark(CitmRoot.self, "citm_catalog.json", iterations: 4) }
    ),
    ("canada.json", { try encodeBenchmark(CanadaRoot.self, "canada.json", iterations: 3) }),
  ] as [(String, () throws -> Double?)] {
    guard let ratio = try run() else { continue }
    summary.append(
      String(
        format: "%-18@ encode %5.2fx JSONEncoder (sorted keys, compact)", file as NSString, ratio))
    check(ratio >= 3.0, "\(file): ModelEncoder at least 3.0x JSONEncoder")
  }
  try encodeMemoryBenchmark()
}

/// Encodes a 100 MB array of models in this process and prints input bytes, the peak RSS
/// while encoding (models already decoded), and the output size.
func encodeMemoryChild(_ name: String, _ bytes: Int) throws {
  let items = try JSONDecoder().decode([ScaleItem].self, from: scalePayload(bytes: bytes))
  try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  let before = peakResidentBytes() ?? 0
  let output: Int
  if name == "foundation" {
    output = try JSONEncoder().encode(items).count
  } else {
    output = try ModelEncoder().encode(items).count
  }
  print("\(output) \((peakResidentBytes() ?? 0) - before)")
}

/// Peak memory added while encoding a 100 MB array, both encoders, one process each.
@MainActor func encodeMemoryBenchmark() throws {
  guard peakResidentBytes() != nil else {
    print("\nSKIPPED encode peak memory: needs /proc (Linux)")
    return
  }
  print("\n== Peak memory encoding a 100 MB array of models (own process each)")
  var peaks: [String: Double] = [:]
  for name in ["foundation", "model"] {
    guard
      let fields = try runChild(["--encode-memory-child", name, String(100 << 20)], fields: 2)
    else { continue }
    peaks[name] = Double(fields[1])
    print(
      String(
        format: "  %-22@ output %6.1f MB, peak added while encoding %7.1f MB",
        (name == "foundation" ? "JSONEncoder" : "ModelEncoder") as NSString,
        Double(fields[0]) / 1e6, Double(fields[1]) / 1e6))
  }
  if let foundation = peaks["foundation"], let ours = peaks["model"] {
    summary.append(
      String(
        format: "100 MB encode peak memory: ModelEncoder %6.1f MB, JSONEncoder %6.1f MB (%4.2fx)",
        ours / 1e6, foundation / 1e6, ours / foundation))
    check(ours <= foundation, "peak memory encoding 100 MB at or below JSONEncoder's")
  }
}

/// `--profile-encode FILE [COUNT]`: encodes one payload's model COUNT times (default: 300 for
/// twitter, 100 otherwise), for perf; `scripts/count-per-call.sh` style counts divide by COUNT
/// after subtracting a run with COUNT 0 (the decode of the model).
@MainActor func profileEncode(_ file: String) throws {
  guard let data = load(file) else { return }
  var encoder = ModelEncoder()
  encoder.outputFormatting = .sortedKeys
  let arguments = CommandLine.arguments
  let count = arguments.firstIndex(of: file).flatMap { index in
    index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
  }
  switch file {
  case "twitter.json":
    let model = try JSONDecoder().decode(TwitterRoot.self, from: data)
    for _ in 0..<(count ?? 300) { _ = try encoder.encode(model) }
  case "citm_catalog.json":
    let model = try JSONDecoder().decode(CitmRoot.self, from: data)
    for _ in 0..<(count ?? 100) { _ = try encoder.encode(model) }
  default:
    let model = try JSONDecoder().decode(CanadaRoot.self, from: data)
    for _ in 0..<(count ?? 100) { _ = try encoder.encode(model) }
  }
}
