import Foundation

/// The loopback server of `server.py`, started once for the test process.
final class TestServer: Sendable {
  let port: Int
  private let process: Process
  private let input: Pipe

  /// Shared by all tests; the server stops when this process exits (its stdin closes).
  static let shared: TestServer? = try? TestServer()

  private init() throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("server.py")
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path]
    input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    var line = Data()
    while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty,
      byte != Data("\n".utf8)
    {
      line.append(byte)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self)) else {
      throw CocoaError(.fileReadCorruptFile)
    }
    self.port = port
  }

  var baseURL: URL {
    URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
  }
}
