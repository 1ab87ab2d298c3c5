import EnvelopeKit
import Foundation
import ReerJSON
import yyjson

// The peer benchmark: EnvelopeKit against ReerJSON (yyjson in C) and Foundation, measured the way
// `EnvelopeBenchmarks` measures (Timing.swift's `Comparison`: contenders interleaved round after
// round in one process, median per contender), every figure a ratio against Foundation in the
// same run; `--runs N` whole runs (5 by default), each row's figures the median over the runs.
// Not part of the package: scripts/peer-benchmark.sh builds it in a scratch package (release)
// that also compiles the model files of Sources/EnvelopeBenchmarks and a generated list of the
// API model sets (APIRows.swift). Usage: PeerBenchmark --payloads DIR [--runs N] [--quick]
// [--only decode,small,api,encode,reader] [--table FILE] [--label TEXT]
// [--profile SECTION LABEL_PREFIX CONTENDER [SECONDS]].

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
  arguments.lastIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first }
}
let quick = arguments.contains("--quick")
let runs = option("--runs").flatMap { Int($0) } ?? 5
let sections = Set((option("--only") ?? "decode,small,api,encode,reader").split(separator: ","))
let payloads = URL(fileURLWithPath: option("--payloads") ?? "../shared/data/payloads")
/// Rounds per comparison, as in `EnvelopeBenchmarks` (9 for the small envelopes, as `--small`).
let rounds = quick ? 3 : 11
let smallRounds = quick ? 3 : 9

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ message: String) {
  if !condition { failures.append(message) }
  print(condition ? "  ok: \(message)" : "  FAILED: \(message)")
}

func load(_ name: String) -> Data? {
  try? Data(contentsOf: payloads.appendingPathComponent(name))
}

/// How a table column is computed from one run's times: `times[over] / times[of]`, the speed of
/// contender `of` relative to contender `over`.
struct Column {
  var header: String
  var of: Int
  var over: Int
}

/// One table: its rows' contenders share an order, so they share columns.
struct Section {
  var name: String
  var title: String
  var columns: [Column]
}

/// One row: what it times and how.
struct Row {
  var section: String
  var label: String
  var iterations: Int
  var rounds: Int
  var contenders: [(name: String, body: () throws -> Void)]
}

let decodeColumns = [
  Column(header: "EK lenient", of: 1, over: 0),
  Column(header: "EK strict", of: 2, over: 0),
  Column(header: "ReerJSON", of: 3, over: 0),
  Column(header: "EK lenient / Reer", of: 1, over: 3),
  Column(header: "EK strict / Reer", of: 2, over: 3),
]

let allSections = [
  Section(
    name: "decode",
    title: "Decode, benchmark models (CodingKeys), x JSONDecoder", columns: decodeColumns),
  Section(
    name: "small",
    title:
      "Decode, small envelopes: `decode(BenchEnvelope<T>.self)` (a generic Codable struct), x JSONDecoder",
    columns: decodeColumns + [Column(header: "EK decodeEnvelope (lenient)", of: 4, over: 0)]),
  Section(
    name: "api",
    title:
      "Decode, real API responses: generated models and decoders vs `.convertFromSnakeCase` (+ `.iso8601`), x JSONDecoder",
    columns: decodeColumns),
  Section(
    name: "encode",
    title: "Encode, benchmark models, sorted keys, compact, x JSONEncoder",
    columns: [
      Column(header: "ModelEncoder", of: 1, over: 0),
      Column(header: "ReerJSONEncoder", of: 2, over: 0),
      Column(header: "EK / Reer", of: 1, over: 2),
    ]),
  Section(
    name: "reader",
    title:
      "Reader alone (EK: `decode(Int?.self, from:at:)` at a missing key; yyjson: `yyjson_read` + `yyjson_doc_free`), x JSONSerialization",
    columns: [
      Column(header: "EK reader", of: 1, over: 0),
      Column(header: "yyjson_read", of: 2, over: 0),
      Column(header: "EK / yyjson", of: 1, over: 2),
      Column(header: "yyjson_read NUMBER_AS_RAW (as ReerJSON reads)", of: 3, over: 0),
      Column(header: "EK / that", of: 1, over: 3),
    ]),
]

func kilobytes(_ count: Int) -> String {
  if count >= 1_000_000 { return String(format: "%.1f MB", Double(count) / 1e6) }
  return count >= 10_000 ? "\(count / 1000) KB" : "\(count) B"
}

// MARK: - Rows

var rows: [Row] = []

/// Decode rows on the three benchmark payloads: checks that every decoder reads the same model.
@MainActor func benchmarkModelRow<T: Codable & Equatable>(
  _ type: T.Type, _ file: String, iterations: Int
)
  throws
{
  guard let data = load(file) else {
    print("SKIPPED \(file): not in \(payloads.path)")
    return
  }
  let lenient = LenientDecoder()
  let strict = LenientDecoder(policy: .strict)
  // Not Sendable; used only on this thread, by the closures below.
  nonisolated(unsafe) let reer = ReerJSONDecoder()
  let expected = try JSONDecoder().decode(T.self, from: data)
  check(
    try lenient.decode(T.self, from: data) == expected,
    "\(file): EK lenient reads JSONDecoder's model")
  check(
    try strict.decode(T.self, from: data) == expected,
    "\(file): EK strict reads JSONDecoder's model")
  check(
    try reer.decode(T.self, from: data) == expected, "\(file): ReerJSON reads JSONDecoder's model")
  rows.append(
    Row(
      section: "decode", label: "\(file) \(kilobytes(data.count))",
      iterations: quick ? max(1, iterations / 3) : iterations, rounds: rounds,
      contenders: [
        // As `EnvelopeBenchmarks` times it: a new JSONDecoder per call.
        ("Foundation JSONDecoder", { _ = try JSONDecoder().decode(T.self, from: data) }),
        ("LenientDecoder (lenient)", { _ = try lenient.decode(T.self, from: data) }),
        ("LenientDecoder (strict)", { _ = try strict.decode(T.self, from: data) }),
        ("ReerJSONDecoder", { _ = try reer.decode(T.self, from: data) }),
      ]))
}

/// The same bytes when written back by one encoder (sorted keys): both read the same values.
func sameValues<T: Encodable>(_ a: T, _ b: T) throws -> Bool {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return try encoder.encode(a) == encoder.encode(b)
}

/// Small-envelope rows: the envelope as a generic Codable struct, every decoder reused.
@MainActor func smallRow<T: Codable>(_ type: T.Type, _ body: Data, _ what: String, calls: Int)
  throws
{
  let foundation = JSONDecoder()
  let lenient = LenientDecoder()
  let strict = LenientDecoder(policy: .strict)
  // Not Sendable; used only on this thread, by the closures below.
  nonisolated(unsafe) let reer = ReerJSONDecoder()
  let expected = try foundation.decode(BenchEnvelope<T>.self, from: body).data
  for (name, value) in [
    ("EK lenient", try lenient.decode(BenchEnvelope<T>.self, from: body).data),
    ("EK strict", try strict.decode(BenchEnvelope<T>.self, from: body).data),
    ("ReerJSON", try reer.decode(BenchEnvelope<T>.self, from: body).data),
    ("EK decodeEnvelope", try lenient.decodeEnvelope(T.self, from: body)),
  ] {
    check(try sameValues(value, expected), "\(what): \(name) reads JSONDecoder's values")
  }
  rows.append(
    Row(
      section: "small", label: "envelope, \(what), \(kilobytes(body.count))",
      iterations: quick ? calls / 4 : calls, rounds: smallRounds,
      contenders: [
        (
          "Foundation JSONDecoder (reused)",
          {
            _ = try foundation.decode(BenchEnvelope<T>.self, from: body)
          }
        ),
        ("LenientDecoder (lenient)", { _ = try lenient.decode(BenchEnvelope<T>.self, from: body) }),
        ("LenientDecoder (strict)", { _ = try strict.decode(BenchEnvelope<T>.self, from: body) }),
        ("ReerJSONDecoder", { _ = try reer.decode(BenchEnvelope<T>.self, from: body) }),
        ("LenientDecoder.decodeEnvelope", { _ = try lenient.decodeEnvelope(T.self, from: body) }),
      ]))
}

/// API rows: the decoder `envelope models` generated against JSONDecoder and ReerJSONDecoder
/// with `.convertFromSnakeCase` and `.iso8601` (called from the generated APIRows.swift).
@MainActor func apiRow<T: Codable>(
  _ type: T.Type, _ file: String, _ decoder: (DecodingPolicy) -> LenientDecoder
) throws {
  guard let data = load(file) else {
    print("SKIPPED \(file): not in \(payloads.path)")
    return
  }
  let foundation = JSONDecoder()
  foundation.keyDecodingStrategy = .convertFromSnakeCase
  foundation.dateDecodingStrategy = .iso8601
  // Not Sendable; used only on this thread, by the closures below.
  nonisolated(unsafe) let reer = ReerJSONDecoder()
  reer.keyDecodingStrategy = .convertFromSnakeCase
  reer.dateDecodingStrategy = .iso8601
  let lenient = decoder(.lenient)
  let strict = decoder(.strict)
  let expected = try foundation.decode(T.self, from: data)
  check(
    try sameValues(lenient.decode(T.self, from: data), expected),
    "\(file): EK lenient reads JSONDecoder's values")
  check(
    try sameValues(strict.decode(T.self, from: data), expected),
    "\(file): EK strict reads JSONDecoder's values")
  check(
    try sameValues(reer.decode(T.self, from: data), expected),
    "\(file): ReerJSON reads JSONDecoder's values")
  let iterations = max(1, (quick ? 2_000_000 : 8_000_000) / data.count)
  rows.append(
    Row(
      section: "api", label: "\(file) \(kilobytes(data.count))", iterations: iterations,
      rounds: rounds,
      contenders: [
        (
          "Foundation JSONDecoder, same strategies",
          {
            _ = try foundation.decode(T.self, from: data)
          }
        ),
        ("LenientDecoder (lenient), generated", { _ = try lenient.decode(T.self, from: data) }),
        ("LenientDecoder (strict), generated", { _ = try strict.decode(T.self, from: data) }),
        ("ReerJSONDecoder, same strategies", { _ = try reer.decode(T.self, from: data) }),
      ]))
}

/// Encode rows: the three encoders on the model JSONDecoder read, sorted keys, compact.
@MainActor func encodeRow<T: Codable & Equatable>(_ type: T.Type, _ file: String, iterations: Int)
  throws
{
  guard let data = load(file) else {
    print("SKIPPED \(file): not in \(payloads.path)")
    return
  }
  // Not Sendable (generic); used only on this thread, by the closures below.
  nonisolated(unsafe) let model = try JSONDecoder().decode(T.self, from: data)
  let foundation = JSONEncoder()
  foundation.outputFormatting = .sortedKeys
  var ours = ModelEncoder()
  ours.outputFormatting = .sortedKeys
  // Not Sendable; used only on this thread, by the closures below.
  nonisolated(unsafe) let reer = ReerJSONEncoder()
  reer.outputFormatting = .sortedKeys
  let reference = try foundation.encode(model)
  check(try ours.encode(model) == reference, "\(file): ModelEncoder writes JSONEncoder's bytes")
  let theirs = try reer.encode(model)
  check(
    try JSONDecoder().decode(T.self, from: theirs) == model,
    "\(file): ReerJSONEncoder's output reads back as the model"
      + (theirs == reference
        ? " (JSONEncoder's bytes)"
        : " (not JSONEncoder's bytes: \(theirs.count) vs \(reference.count) B)"))
  rows.append(
    Row(
      section: "encode", label: "\(file) encode \(kilobytes(reference.count))",
      iterations: quick ? max(1, iterations / 3) : iterations, rounds: rounds,
      contenders: [
        ("Foundation JSONEncoder", { _ = try foundation.encode(model) }),
        ("ModelEncoder", { _ = try ours.encode(model) }),
        ("ReerJSONEncoder", { _ = try reer.encode(model) }),
      ]))
}

/// Reads `data` with yyjson and frees the document; false when yyjson refuses it.
func yyjsonRead(_ data: Data, _ flags: yyjson_read_flag) -> Bool {
  data.withUnsafeBytes { raw in
    guard
      let doc = yyjson_read(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, flags)
    else { return false }
    yyjson_doc_free(doc)
    return true
  }
}

/// Reader rows, as `EnvelopeBenchmarks`' "reader alone": a decode at a key the payload does not
/// have scans the whole input and decodes nothing.
@MainActor func readerRow(_ file: String, iterations: Int) throws {
  guard let data = load(file) else {
    print("SKIPPED \(file): not in \(payloads.path)")
    return
  }
  let decoder = LenientDecoder()
  check(
    try decoder.decode(Int?.self, from: data, at: "no.such.key") == nil,
    "\(file): EK reads it, nothing at a missing key")
  check(yyjsonRead(data, 0), "\(file): yyjson_read reads it")
  check(yyjsonRead(data, YYJSON_READ_NUMBER_AS_RAW), "\(file): yyjson_read NUMBER_AS_RAW reads it")
  rows.append(
    Row(
      section: "reader", label: "\(file) \(kilobytes(data.count))",
      iterations: quick ? max(1, iterations / 3) : iterations, rounds: rounds,
      contenders: [
        ("JSONSerialization.jsonObject", { _ = try JSONSerialization.jsonObject(with: data) }),
        (
          "LenientDecoder at a missing key",
          {
            _ = try decoder.decode(Int?.self, from: data, at: "no.such.key")
          }
        ),
        ("yyjson_read + yyjson_doc_free", { _ = yyjsonRead(data, 0) }),
        (
          "yyjson_read NUMBER_AS_RAW + free",
          {
            _ = yyjsonRead(data, YYJSON_READ_NUMBER_AS_RAW)
          }
        ),
      ]))
}

print("== Checks (every contender reads or writes the same values)")
if sections.contains("decode") {
  try benchmarkModelRow(TwitterRoot.self, "twitter.json", iterations: 10)
  try benchmarkModelRow(CitmRoot.self, "citm_catalog.json", iterations: 4)
  try benchmarkModelRow(CanadaRoot.self, "canada.json", iterations: 3)
}
if sections.contains("small") {
  try smallRow(BenchUser.self, SmallEnvelopeBodies.user, "one user", calls: 4_000)
  try smallRow(BenchPage.self, SmallEnvelopeBodies.page, "20 users", calls: 400)
}
if sections.contains("api") { try apiRows() }
if sections.contains("encode") {
  try encodeRow(TwitterRoot.self, "twitter.json", iterations: 10)
  try encodeRow(CitmRoot.self, "citm_catalog.json", iterations: 4)
  try encodeRow(CanadaRoot.self, "canada.json", iterations: 3)
}
if sections.contains("reader") {
  try readerRow("twitter.json", iterations: 10)
  try readerRow("citm_catalog.json", iterations: 4)
  try readerRow("canada.json", iterations: 4)
}

// `--profile SECTION LABEL_PREFIX CONTENDER [SECONDS]`: one contender of one row in a loop (10 s by
// default), for `perf record -g`; e.g. `--profile decode canada 1` (EK lenient on canada).
if let flag = arguments.firstIndex(of: "--profile") {
  let rest = Array(arguments.dropFirst(flag + 1))
  guard rest.count >= 3, let contender = Int(rest[2]),
    let row = rows.first(where: { $0.section == rest[0] && $0.label.hasPrefix(rest[1]) }),
    row.contenders.indices.contains(contender)
  else {
    print("--profile SECTION LABEL_PREFIX CONTENDER [SECONDS]: no such row or contender")
    exit(2)
  }
  let seconds = rest.dropFirst(3).first.flatMap { Double($0) } ?? 10
  let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
  var calls = 0
  while DispatchTime.now().uptimeNanoseconds < end {
    for _ in 0..<row.iterations { try row.contenders[contender].body() }
    calls += row.iterations
  }
  print("profiled \(row.label), \(row.contenders[contender].name): \(calls) calls")
  exit(0)
}

// MARK: - Runs

/// times[row][run][contender], seconds per call.
var times = Array(repeating: [[Double]](), count: rows.count)
for run in 1...max(1, runs) {
  print("\n== Run \(run) of \(runs)")
  for (index, row) in rows.enumerated() {
    var comparison = Comparison(
      title: "[\(row.section)] \(row.label)", bytes: 0, iterations: row.iterations)
    for contender in row.contenders { comparison.add(contender.name, contender.body) }
    times[index].append(try comparison.report(rounds: row.rounds))
  }
}

// MARK: - Table

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.count % 2 == 1
    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

var table: [String] = []
let loadAverage = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
  .split(separator: " ").prefix(3).joined(separator: " ")
table.append(
  "Peer benchmark\(option("--label").map { ", \($0)" } ?? ""): \(runs) run(s), medians of the"
    + " runs' ratios (each a ratio of per-contender medians over \(rounds) interleaved rounds,"
    + " \(smallRounds) for the small envelopes), release build, one process"
    + (loadAverage.map { "; load average at the end \($0)" } ?? "") + ".")
for section in allSections {
  let indices = rows.indices.filter { rows[$0].section == section.name }
  guard !indices.isEmpty else { continue }
  table.append("")
  table.append("### \(section.title)")
  table.append("")
  table.append("| payload | " + section.columns.map(\.header).joined(separator: " | ") + " |")
  table.append("|---|" + section.columns.map { _ in "---|" }.joined())
  for index in indices {
    let cells = section.columns.map { column -> String in
      let ratios = times[index].map { $0[column.over] / $0[column.of] }
      let cell = String(format: "%.2fx", median(ratios))
      // Ratios between two peers below 1 are bold: EnvelopeKit loses that row.
      return column.over != 0 && median(ratios) < 1 ? "**\(cell)**" : cell
    }
    table.append("| \(rows[index].label) | " + cells.joined(separator: " | ") + " |")
  }
  if runs > 1 {
    // The spread of the peer ratio over runs, so a reader can tell noise from a difference.
    let spreads = indices.map { index -> String in
      let column = section.columns.first { $0.over != 0 } ?? section.columns[0]
      let ratios = times[index].map { $0[column.over] / $0[column.of] }.sorted()
      return String(
        format: "%@ %.2f-%.2f", rows[index].label as NSString, ratios[0], ratios[ratios.count - 1])
    }
    table.append("")
    table.append(
      "Range over the runs of \(section.columns.first { $0.over != 0 }?.header ?? ""): "
        + spreads.joined(separator: "; ") + ".")
  }
}

print("\n== Table\n")
print(table.joined(separator: "\n"))
if let path = option("--table") {
  try (table.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
}
if !failures.isEmpty {
  print("\nChecks that failed:")
  failures.forEach { print("  \($0)") }
  exit(1)
}
