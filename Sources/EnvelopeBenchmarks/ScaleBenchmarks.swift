import EnvelopeKit
import Foundation

// Rows of the decoder-speed issue beyond the three payloads: the reader alone, a key path
// against the equivalent wrapper, time per byte as the input grows, and peak memory at 100 MB.

/// One element of the generated array-of-objects payload: the shape of a typical API list.
struct ScaleItem: Codable, Equatable {
  struct Owner: Codable, Equatable {
    var id: Int
    var login: String
  }
  var id: Int
  var name: String
  var price: Double
  var tags: [String]
  var active: Bool
  var owner: Owner
}

/// A JSON array of `ScaleItem`s of at least `bytes` bytes, written directly (no model values,
/// so generating it moves the peak RSS by little more than the payload).
func scalePayload(bytes: Int) -> Data {
  var data = Data()
  data.reserveCapacity(bytes + 256)
  data.append(UInt8(ascii: "["))
  var id = 0
  while data.count < bytes {
    if id > 0 { data.append(UInt8(ascii: ",")) }
    let item =
      #"{"id":\#(id),"name":"Item number \#(id)","price":\#(Double(id % 1000) * 1.25 + 0.5),"#
      + #""tags":["new","sale"],"active":\#(id % 3 == 0),"owner":{"id":\#(id % 97),"#
      + #""login":"user\#(id % 97)"}}"#
    data.append(contentsOf: item.utf8)
    id += 1
  }
  data.append(UInt8(ascii: "]"))
  return data
}

/// The reader alone: a decode at a key the payload does not have scans the whole input, then
/// finds nothing to decode.
@MainActor func readerAloneBenchmark(_ file: String, iterations: Int) throws -> Double? {
  guard let data = load(file) else { return nil }
  let decoder = LenientDecoder()
  var comparison = Comparison(
    title: "\(file): the reader alone (decode at a missing key)", bytes: data.count,
    iterations: iterations)
  comparison.add("JSONSerialization.jsonObject") {
    _ = try JSONSerialization.jsonObject(with: data)
  }
  comparison.add("LenientDecoder at a missing key") {
    _ = try decoder.decode(Int?.self, from: data, at: "no.such.key")
  }
  let times = try comparison.report(rounds: rounds)
  return Double(data.count) / times[1] / 1e9
}

/// ns per byte at 1, 10 and 100 MB for Foundation and LenientDecoder, same run.
@MainActor func scalingBenchmark() throws {
  print("\n== Time per byte as the input grows (array of objects)")
  var perByte: [(Int, Double, Double)] = []
  for megabytes in [1, 10, 100] {
    let data = scalePayload(bytes: megabytes << 20)
    let lenient = LenientDecoder()
    var comparison = Comparison(
      title: "\(megabytes) MB array of objects", bytes: data.count,
      iterations: megabytes == 1 ? 10 : 1)
    comparison.add("Foundation JSONDecoder") {
      _ = try JSONDecoder().decode([ScaleItem].self, from: data)
    }
    comparison.add("LenientDecoder (lenient)") {
      _ = try lenient.decode([ScaleItem].self, from: data)
    }
    let times = try comparison.report(rounds: megabytes == 100 ? (quick ? 1 : 3) : (quick ? 3 : 5))
    perByte.append(
      (megabytes, times[0] / Double(data.count) * 1e9, times[1] / Double(data.count) * 1e9))
  }
  for (megabytes, foundation, ours) in perByte {
    summary.append(
      String(
        format: "%3d MB array: %5.2f ns/byte LenientDecoder, %5.2f ns/byte JSONDecoder (%4.2fx)",
        megabytes, ours, foundation, foundation / ours))
  }
  if let first = perByte.first, let last = perByte.last {
    let growth = last.2 / first.2
    summary.append(String(format: "ns/byte at 100 MB / at 1 MB: %4.2f (1.00 is linear)", growth))
    check(growth < 1.5, "decode time grows linearly with the input (ns/byte within 1.5x)")
  }
}

// MARK: - Peak memory, one child process per decoder

/// VmHWM (peak resident) from /proc (Linux); nil elsewhere.
func peakResidentBytes() -> Int? { processStatusBytes("VmHWM") }

/// `--memory-child NAME BYTES`: builds the payload, resets the peak, decodes once with NAME and
/// prints `input peak` (bytes). The peak counts the input, which both decoders need.
func memoryChild(_ name: String, _ bytes: Int) throws {
  let data = scalePayload(bytes: bytes)
  // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0 and later).
  try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  let count: Int
  if name == "foundation" {
    count = try JSONDecoder().decode([ScaleItem].self, from: data).count
  } else {
    count = try LenientDecoder().decode([ScaleItem].self, from: data).count
  }
  print("\(data.count) \(peakResidentBytes() ?? 0) \(count)")
}

/// Runs this benchmark again in a child process (its own peak RSS) with `arguments`, and
/// returns the `fields` integers it prints; nil (and a failed check) when it does not.
@MainActor func runChild(_ arguments: [String], fields count: Int) throws -> [Int]? {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  child.arguments = arguments
  let pipe = Pipe()
  child.standardOutput = pipe
  try child.run()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  child.waitUntilExit()
  let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
  guard child.terminationStatus == 0, fields.count == count, fields[0] > 0 else {
    check(false, "child \(arguments.prefix(2).joined(separator: " ")) ran (\(output))")
    return nil
  }
  return fields
}

/// Peak RSS while decoding 100 MB, as a multiple of the input, for both decoders.
@MainActor func memoryBenchmark() throws {
  guard peakResidentBytes() != nil else {
    print("\nSKIPPED peak memory: needs /proc (Linux)")
    return
  }
  print("\n== Peak memory decoding a 100 MB array of objects (own process each)")
  var ratios: [String: Double] = [:]
  for name in ["foundation", "lenient"] {
    guard let fields = try runChild(["--memory-child", name, String(100 << 20)], fields: 3)
    else { continue }
    let ratio = Double(fields[1]) / Double(fields[0])
    ratios[name] = ratio
    print(
      String(
        format: "  %-28@ peak %7.1f MB = %5.2fx the input (%d items)",
        (name == "foundation" ? "Foundation JSONDecoder" : "LenientDecoder (lenient)") as NSString,
        Double(fields[1]) / 1e6, ratio, fields[2]))
  }
  if let foundation = ratios["foundation"], let ours = ratios["lenient"] {
    summary.append(
      String(
        format:
          "100 MB peak RSS: LenientDecoder %4.2fx the input, JSONDecoder %4.2fx (%4.2fx of it)",
        ours, foundation, ours / foundation))
    check(ours <= foundation, "peak memory at 100 MB at or below JSONDecoder's")
  }
}
