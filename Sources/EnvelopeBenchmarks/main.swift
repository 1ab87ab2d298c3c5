import EnvelopeKit
import Foundation

// Release build only: swift run -c release EnvelopeBenchmarks [--quick | --smoke | --small [runs] | --encode …]
// Every figure is a ratio against Foundation measured in the same process, interleaved.

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 11
let payloads = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("shared/data/payloads")

@MainActor func load(_ name: String) -> Data? {
  try? Data(contentsOf: payloads.appendingPathComponent(name))
}

var failures: [String] = []

@MainActor func check(_ condition: Bool, _ message: String) {
  if !condition { failures.append(message) }
  print(condition ? "  ok: \(message)" : "  FAILED: \(message)")
}

/// Decodes with both decoders, checks they agree, and that the model covers every key:
/// re-encoding the model gives back the input (null and absent count as the same).
@MainActor func coverage<T: Codable & Equatable>(_ type: T.Type, _ data: Data, _ name: String)
  throws
{
  let foundation = try JSONDecoder().decode(T.self, from: data)
  let ours = try LenientDecoder().decodeWithReport(T.self, from: data)
  check(foundation == ours.value, "\(name): LenientDecoder equals JSONDecoder")
  check(ours.report.isEmpty, "\(name): lenient report is empty on a well-typed payload")
  // Compared as EnvelopeKit `JSON` trees with numbers read by `Double(_:)` (correctly rounded);
  // JSONSerialization's own number parsing is not, on Linux.
  let original = try JSON(data: data)
  let reencoded = try JSON(data: JSONEncoder().encode(foundation))
  check(
    sameJSON(original, reencoded), "\(name): model covers every key (decode, re-encode, compare)")
}

/// Equal JSON, where null and absent count as the same and numbers compare as `Double`s.
func sameJSON(_ a: JSON, _ b: JSON) -> Bool {
  switch (a, b) {
  case (.object(let a), .object(let b)):
    let keys = Set(a.keys).union(b.keys)
    return keys.allSatisfy { key in
      switch (a[key].flatMap { $0.isNull ? nil : $0 }, b[key].flatMap { $0.isNull ? nil : $0 }) {
      case (nil, nil): return true
      case (let left?, let right?): return sameJSON(left, right)
      default: return false
      }
    }
  case (.array(let a), .array(let b)):
    return a.count == b.count && zip(a, b).allSatisfy { sameJSON($0, $1) }
  case (.number(let a), .number(let b)):
    return Double(a.text) == Double(b.text)
  default:
    return a == b
  }
}

@MainActor func payloadBenchmarks<T: Codable & Equatable>(
  _ type: T.Type, _ file: String, iterations: Int
)
  throws -> (reader: Double, decoder: Double, strictCost: Double)?
{
  guard let data = load(file) else {
    print("SKIPPED \(file): ../shared/data/payloads is absent")
    return nil
  }
  print("\n== \(file) (\(data.count) bytes)")
  try coverage(T.self, data, file)

  var reading = Comparison(title: "\(file): reading", bytes: data.count, iterations: iterations)
  reading.add("JSONSerialization.jsonObject") { _ = try JSONSerialization.jsonObject(with: data) }
  reading.add("EnvelopeKit reader (tape)") { _ = try ReaderBenchmark.scan(data) }
  reading.add("EnvelopeKit JSON(data:)") { _ = try JSON(data: data) }
  let readTimes = try reading.report(rounds: rounds)

  let strict = LenientDecoder(policy: .strict)
  let lenient = LenientDecoder()
  var decoding = Comparison(
    title: "\(file): decoding full models", bytes: data.count, iterations: iterations)
  decoding.add("Foundation JSONDecoder") { _ = try JSONDecoder().decode(T.self, from: data) }
  decoding.add("LenientDecoder (lenient)") { _ = try lenient.decode(T.self, from: data) }
  decoding.add("LenientDecoder (strict)") { _ = try strict.decode(T.self, from: data) }
  let decodeTimes = try decoding.report(rounds: rounds)
  return (
    readTimes[0] / readTimes[1], decodeTimes[0] / decodeTimes[1],
    decodeTimes[1] / decodeTimes[2] - 1
  )
}

// `--smoke`: the collapse check `.ci/run` runs (SmokeBenchmark.swift).
if CommandLine.arguments.contains("--smoke") { try smokeBenchmark() }

if let flag = CommandLine.arguments.firstIndex(of: "--memory-child"),
  flag + 2 < CommandLine.arguments.count, let bytes = Int(CommandLine.arguments[flag + 2])
{
  try memoryChild(CommandLine.arguments[flag + 1], bytes)
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--encode-memory-child"),
  flag + 2 < CommandLine.arguments.count, let bytes = Int(CommandLine.arguments[flag + 2])
{
  try encodeMemoryChild(CommandLine.arguments[flag + 1], bytes)
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--profile-encode"),
  flag + 1 < CommandLine.arguments.count
{
  try profileEncode(CommandLine.arguments[flag + 1])
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--small") {
  let runs = CommandLine.arguments.dropFirst(flag + 1).first.flatMap { Int($0) } ?? 5
  for line in try await smallEnvelopeBenchmarks(runs: runs) { print(line) }
  exit(0)
}

if CommandLine.arguments.contains("--small-parts") {
  try await smallEnvelopeParts()
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--profile-small") {
  let rest = CommandLine.arguments.dropFirst(flag + 1)
  try await profileSmall(
    rest.first ?? "user", seconds: rest.dropFirst().first.flatMap { Double($0) } ?? 10)
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--stream-child"),
  flag + 3 < CommandLine.arguments.count, let bytes = Int(CommandLine.arguments[flag + 3]),
  let base = URL(string: CommandLine.arguments[flag + 2])
{
  try await streamChild(CommandLine.arguments[flag + 1], base: base, bytes: bytes)
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--stream-calls-child"),
  flag + 3 < CommandLine.arguments.count, let target = Int(CommandLine.arguments[flag + 3]),
  let base = URL(string: CommandLine.arguments[flag + 2])
{
  try await streamCallsChild(CommandLine.arguments[flag + 1], base: base, target: target)
  exit(0)
}

// `--stream-calls [MB]`: the provider's streaming calls over loopback (NDJSON of MB megabytes,
// 1024 by default).
if let flag = CommandLine.arguments.firstIndex(of: "--stream-calls") {
  let megabytes = CommandLine.arguments.dropFirst(flag + 1).first.flatMap { Int($0) } ?? 1024
  try streamCallsBenchmark(bytes: megabytes << 20)
  exit(0)
}

if let flag = CommandLine.arguments.firstIndex(of: "--stream") {
  let megabytes = CommandLine.arguments.dropFirst(flag + 1).first.flatMap { Int($0) } ?? 500
  try streamBenchmark(bytes: megabytes << 20)
  exit(0)
}

if CommandLine.arguments.contains("--transfer") {
  try await transferBenchmark()
  exit(0)
}

// `--reader-only NAME COUNT` runs the reader alone (a decode at a missing key) COUNT times on
// one payload (a file name, or `user` / `page` for the small envelopes) and nothing else, so
// that `perf stat -e task-clock` around it measures the reader (less a fixed start-up cost,
// which `COUNT` 0 measures).
if let flag = CommandLine.arguments.firstIndex(of: "--reader-only"),
  flag + 2 < CommandLine.arguments.count,
  let count = Int(CommandLine.arguments[flag + 2])
{
  let name = CommandLine.arguments[flag + 1]
  let data: Data? =
    switch name {
    case "user": SmallEnvelopeBodies.user
    case "page": SmallEnvelopeBodies.page
    default: load(name)
    }
  guard let data else {
    print("no payload \(name)")
    exit(1)
  }
  let decoder = LenientDecoder()
  for _ in 0..<count {
    _ = try decoder.decode(Int?.self, from: data, at: "no.such.key")
  }
  exit(0)
}

// `--profile FILE [--reader]` decodes one payload in a loop with LenientDecoder only, for perf.
if let flag = CommandLine.arguments.firstIndex(of: "--profile"),
  flag + 1 < CommandLine.arguments.count,
  let data = load(CommandLine.arguments[flag + 1])
{
  let decoder = LenientDecoder()
  // `--reader` profiles the reader alone (a decode at a missing key).
  let readerOnly = CommandLine.arguments.contains("--reader")
  for _ in 0..<(readerOnly ? 1000 : 200) {
    if readerOnly {
      _ = try decoder.decode(Int?.self, from: data, at: "no.such.key")
      continue
    }
    switch CommandLine.arguments[flag + 1] {
    case "twitter.json": _ = try decoder.decode(TwitterRoot.self, from: data)
    case "citm_catalog.json": _ = try decoder.decode(CitmRoot.self, from: data)
    default: _ = try decoder.decode(CanadaRoot.self, from: data)
    }
  }
  exit(0)
}

var summary: [String] = []

if let flag = CommandLine.arguments.firstIndex(of: "--profile-api"),
  flag + 1 < CommandLine.arguments.count
{
  try profileAPI(CommandLine.arguments[flag + 1])
  exit(0)
}

// `--api` runs only the real API responses with generated models; `--encode` only the encoder
// rows; `--keypath` only the key path rows.
for (flag, rows) in [
  ("--api", apiBenchmarks), ("--encode", encodeBenchmarks), ("--keypath", keyPathBenchmarks),
]
where CommandLine.arguments.contains(flag) {
  try rows()
  print("\n== Summary")
  summary.forEach { print($0) }
  failures.forEach { print("  FAILED: \($0)") }
  exit(0)
}

// `--streams` runs only the stream framing rows.
if CommandLine.arguments.contains("--streams") {
  try streamBenchmarks()
  print("\n== Summary")
  summary.forEach { print($0) }
  failures.forEach { print("  FAILED: \($0)") }
  exit(0)
}

// `--profile-numbers FILE` converts the payload's number lexemes in a loop, for perf.
if let flag = CommandLine.arguments.firstIndex(of: "--profile-numbers"),
  flag + 1 < CommandLine.arguments.count,
  let data = load(CommandLine.arguments[flag + 1])
{
  let numbers = try NumberParsingBenchmark(data)
  var sum = 0.0
  let times = Int(ProcessInfo.processInfo.environment["NUMBERS_LOOPS"] ?? "") ?? 200
  for _ in 0..<times { sum += numbers.sumOfDoubles() + Double(numbers.sumOfIntegers() & 1) }
  print(sum)
  exit(0)
}

// `--numbers` times the number conversions alone, over every number lexeme of each payload and
// of 500,000 generated short decimals (`12.5`, `3.14`: 1-4 fraction digits); then `[Float]`
// decodes of the short decimals and of canada's coordinates.
if CommandLine.arguments.contains("--numbers") {
  let shortDecimals = NumberParsingBenchmark.shortDecimals(count: 500_000, seed: 0x5407_F10A7)
  let payloadsToTime =
    ["canada.json", "twitter.json", "citm_catalog.json"].compactMap { file in
      load(file).map { (file, $0) }
    } + [("500,000 short decimals", shortDecimals)]
  var canadaDecimals: Data?
  for (file, data) in payloadsToTime {
    let numbers = try NumberParsingBenchmark(data)
    let (doubles, integers) = numbers.counts
    if doubles > 0 {
      check(
        numbers.sumOfDoubles() == numbers.sumOfDoublesFromText(),
        "\(file): the fast Double path sums to what Double(String) does")
      check(
        numbers.sumOfFloats() == numbers.sumOfFloatsFromText(),
        "\(file): the Float path sums to what Float(String) does")
      var parsing = Comparison(
        title: "\(file): \(doubles) non-integer lexemes to Double", bytes: 0, iterations: 20)
      parsing.add("Double(String)") { _ = numbers.sumOfDoublesFromText() }
      parsing.add("NumberParsing.double") { _ = numbers.sumOfDoubles() }
      _ = try parsing.report(rounds: rounds)
      var floats = Comparison(
        title: "\(file): \(doubles) non-integer lexemes to Float", bytes: 0, iterations: 10)
      floats.add("Float(String)") { _ = numbers.sumOfFloatsFromText() }
      floats.add("NumberParsing.float") { _ = numbers.sumOfFloats() }
      _ = try floats.report(rounds: rounds)
    }
    if integers > 0 {
      var parsing = Comparison(
        title: "\(file): \(integers) integer lexemes to Int", bytes: 0, iterations: 50)
      parsing.add("NumberParsing.plainInteger") { _ = numbers.sumOfIntegers() }
      _ = try parsing.report(rounds: rounds)
    }
    if file == "canada.json" { canadaDecimals = numbers.nonIntegerArray() }
  }
  for (name, data) in [
    ("500,000 short decimals", shortDecimals), ("canada's coordinates", canadaDecimals),
  ] {
    guard let data else { continue }
    let lenient = LenientDecoder()
    let foundation = JSONDecoder()
    check(
      try lenient.decode([Float].self, from: data).reduce(0, +)
        == NumberParsingBenchmark(data).sumOfFloatsFromText(),
      "\(name): [Float] decodes to Float(String)'s values")
    var decode = Comparison(title: "\(name) as [Float]", bytes: data.count, iterations: 3)
    decode.add("JSONDecoder [Float]") { _ = try foundation.decode([Float].self, from: data) }
    decode.add("LenientDecoder [Float]") { _ = try lenient.decode([Float].self, from: data) }
    decode.add("LenientDecoder [Double]") { _ = try lenient.decode([Double].self, from: data) }
    _ = try decode.report(rounds: rounds)
  }
  failures.forEach { print("  FAILED: \($0)") }
  exit(failures.isEmpty ? 0 : 1)
}

// `--reader-alone` runs only the reader-alone rows.
if CommandLine.arguments.contains("--reader-alone") {
  try readerAloneRows()
  print(summary.joined(separator: "\n"))
  exit(0)
}
var decodeRatios: [Double] = []
for (file, run) in [
  (
    "twitter.json",
    { try payloadBenchmarks(TwitterRoot.self, "twitter.json", iterations: quick ? 3 : 10) }
  ),
  (
    "citm_catalog.json",
    { try payloadBenchmarks(CitmRoot.self, "citm_catalog.json", iterations: quick ? 1 : 4) }
  ),
  (
    "canada.json",
    { try payloadBenchmarks(CanadaRoot.self, "canada.json", iterations: quick ? 1 : 3) }
  ),
] as [(String, () throws -> (Double, Double, Double)?)] {
  if let (reader, decoder, strictCost) = try run() {
    decodeRatios.append(decoder)
    summary.append(
      String(
        format:
          "%-18@ reader %5.2fx JSONSerialization | lenient decode %5.2fx JSONDecoder | lenient costs %+.0f%% vs strict",
        file as NSString, reader, decoder, strictCost * 100))
    check(reader >= 3, "\(file): reader at least 3x JSONSerialization")
    check(strictCost <= 0.05, "\(file): lenient at most 5% slower than strict")
  }
}

if decodeRatios.count == 3 {
  let geomean = pow(decodeRatios.reduce(1, *), 1.0 / 3)
  summary.append(
    String(format: "lenient decode geomean over the three payloads: %5.2fx JSONDecoder", geomean))
  check(geomean >= 2.5, "lenient decode geomean at least 2.5x JSONDecoder")
  for (file, ratio) in zip(["twitter", "citm_catalog", "canada"], decodeRatios) {
    check(ratio >= 2.0, "\(file): lenient decode at least 2.0x JSONDecoder")
  }
}

/// The reader-alone rows (also run alone with `--reader-alone`).
@MainActor func readerAloneRows() throws {
  for (file, iterations) in [("twitter.json", 10), ("citm_catalog.json", 4), ("canada.json", 4)] {
    if let rate = try readerAloneBenchmark(
      file, iterations: quick ? max(1, iterations / 3) : iterations)
    {
      summary.append(
        String(
          format: "%-18@ reader alone (decode at a missing key) %5.2f GB/s", file as NSString,
          rate))
      // An absolute bar, unlike every other row: this machine's speed counts.
      check(rate >= 1.0, "\(file): reader alone at least 1 GB/s")
    }
  }
}
try readerAloneRows()

try apiBenchmarks()
try keyPathBenchmarks()
try envelopeBenchmark()
try scalingBenchmark()
try memoryBenchmark()
try encodeBenchmarks()
try streamBenchmarks()
summary.append(contentsOf: try await smallEnvelopeBenchmarks(runs: 1))

print("\n== Summary")
summary.forEach { print($0) }
if !failures.isEmpty {
  print("\nBars not met:")
  failures.forEach { print("  \($0)") }
}
