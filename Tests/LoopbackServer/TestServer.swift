import Foundation

/// The loopback HTTP server of `server.py` (Python's standard library only), for tests.
///
/// It binds 127.0.0.1 on a free port and stops when `stop()` is called, when the test process
/// exits (its standard input closes), or when no request has come for 300 seconds, whichever
/// comes first (an idle limit: a full run on a loaded machine may last longer than that).
public final class TestServer: @unchecked Sendable {
  /// The port the server listens on.
  public let port: Int
  private let process: Process
  private let input: Pipe
  private let lock = NSLock()
  private var stopped = false

  /// One server shared by a whole test process; nil when python3 cannot be started.
  public static let shared: TestServer? = try? TestServer()

  /// Starts a server of its own, e.g. one a test stops on purpose.
  ///
  /// - Throws: when python3 cannot be started or prints no port.
  public init() throws {
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
      process.terminate()
      throw CocoaError(.fileReadCorruptFile)
    }
    self.port = port
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL {
    URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
  }

  /// Stops the server and waits for its process to exit; later connections are refused.
  public func stop() {
    let first = lock.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }
}
