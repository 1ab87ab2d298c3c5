import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// `--transfer`: peak memory of streamed downloads of 1, 10 and 100 MB from the tests' loopback
// server (python3), in a process of its own so that nothing else moves the RSS.

/// `/bytes?n=…` of the loopback server.
struct BytesTarget: TargetType {
  var baseURL: URL
  var size: Int
  var path: String { "/bytes" }
  var query: [URLQueryItem] { [URLQueryItem(name: "n", value: "\(size)")] }
  var timeout: TimeInterval { 120 }
}

/// A size field of /proc/self/status (`VmRSS`, `VmHWM`) in bytes; nil off Linux.
func processStatusBytes(_ field: String) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
    let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
  else { return nil }
  return kilobytes * 1024
}

/// VmRSS (Linux); 0 elsewhere.
func residentBytes() -> Int { processStatusBytes("VmRSS") ?? 0 }

/// Starts the tests' loopback server (python3) and returns its base URL and how to stop it.
func startLoopbackServer() throws -> (base: URL, stop: () -> Void) {
  let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/LoopbackServer/server.py")
  let server = Process()
  server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  server.arguments = ["python3", script.path]
  let input = Pipe()
  let output = Pipe()
  server.standardInput = input
  server.standardOutput = output
  try server.run()
  let stop = {
    try? input.fileHandleForWriting.close()
    server.waitUntilExit()
  }
  var line = Data()
  while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty,
    byte != Data("\n".utf8)
  {
    line.append(byte)
  }
  guard let port = Int(String(decoding: line, as: UTF8.self)),
    let base = URL(string: "http://127.0.0.1:\(port)")
  else {
    stop()
    throw URLError(.cannotConnectToHost)
  }
  return (base, stop)
}

func transferBenchmark() async throws {
  let (base, stop) = try startLoopbackServer()
  defer { stop() }
  let file = FileManager.default.temporaryDirectory.appendingPathComponent(
    "EnvelopeBenchmarks-\(UUID().uuidString).bin")
  defer { try? FileManager.default.removeItem(at: file) }
  let provider = Provider<BytesTarget>()
  print("\nstreamed download to disk (URLSessionTransport), peak RSS growth over the start")
  let baseline = residentBytes()
  for size in [1_000_000, 10_000_000, 100_000_000, 300_000_000] {
    var peak = residentBytes()
    let start = ContinuousClock.now
    var events = 0
    for try await event in provider.download(BytesTarget(baseURL: base, size: size), to: file) {
      events += 1
      if case .progress = event, events % 16 == 0 { peak = max(peak, residentBytes()) }
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let growth = Double(max(peak, residentBytes()) - baseline) / 1_048_576
    let body = Double(size) / 1_048_576
    print(
      String(
        format: "  %6.1f MB body: peak RSS +%5.1f MB (%.2fx the body), %.0f MB/s", body, growth,
        growth / body, body / seconds))
  }
}
