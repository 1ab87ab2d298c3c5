import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Wraps a real transport and writes each exchange as an interaction file, to replay later.
///
/// Files are named from the request (`GET_users_ada.json`, with a short hash when there is a
/// query or body), pretty-printed with sorted keys, and written atomically. `Authorization`,
/// `Cookie` and `Set-Cookie` are always redacted, as are the headers and JSON fields you name.
/// Volatile headers (`Date`, `Content-Length`, `Connection`, `Keep-Alive`,
/// `Transfer-Encoding`) are left out so that re-recording an unchanged API changes no file.
///
/// ```swift
/// let transport = try RecordingTransport(
///   folder: FixtureRoot.find()!.appending(path: "recorded"), redactingFields: ["token"])
/// let provider = Provider<API>(transport: transport)
/// ```
public struct RecordingTransport: HTTPTransport {
  /// The transport that reaches the network.
  public let base: any HTTPTransport
  /// Where interaction files go.
  public let folder: URL
  /// When to record.
  public let mode: RecordMode
  /// Header names redacted (lower-case).
  public let redactedHeaders: Set<String>
  /// JSON keys redacted anywhere in bodies (lower-case).
  public let redactedFields: Set<String>

  /// The headers always redacted.
  public static let defaultRedactedHeaders: Set<String> = ["authorization", "cookie", "set-cookie"]
  /// The headers never written.
  public static let volatileHeaders: Set<String> = [
    "date", "content-length", "connection", "keep-alive", "transfer-encoding",
  ]

  /// Creates a recording transport.
  ///
  /// - Parameters:
  ///   - base: the real transport; `URLSessionTransport()` by default.
  ///   - folder: where interaction files are read and written.
  ///   - mode: when to record; nil reads `ENVELOPEKIT_RECORD`, else `.missing`.
  ///   - redactingHeaders: more header names to redact.
  ///   - redactingFields: JSON keys whose values are redacted in recorded bodies.
  /// - Throws: `RecordModeError` when `ENVELOPEKIT_RECORD` holds an unknown mode.
  public init(
    wrapping base: any HTTPTransport = URLSessionTransport(), folder: URL, mode: RecordMode? = nil,
    redactingHeaders: Set<String> = [], redactingFields: Set<String> = []
  ) throws {
    self.base = base
    self.folder = folder
    self.mode = try mode ?? RecordMode.fromEnvironment()
    self.redactedHeaders = Self.defaultRedactedHeaders.union(
      redactingHeaders.map { $0.lowercased() })
    self.redactedFields = Set(redactingFields.map { $0.lowercased() })
  }

  /// Replays or sends `request` as the mode says, recording what the network answers.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and response (as received, not redacted, when sent).
  /// - Throws: the base transport's errors; `ReplayError` in `.never` mode with no recording.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let replay = ReplayTransport(folder: folder)
    switch mode {
    case .never:
      return try await replay.send(request)
    case .missing:
      do {
        return try await replay.send(request)
      } catch is ReplayError {
        return try await record(request)
      }
    case .all:
      return try await record(request)
    }
  }

  /// `headers` without the volatile ones.
  private static func stable(_ headers: [String: String]) -> [String: String] {
    headers.filter { !volatileHeaders.contains($0.key.lowercased()) }
  }

  /// Sends `request` through the base transport and writes the interaction file.
  private func record(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let (data, response) = try await base.send(request)
    let key = Interaction.Request(request)
    var interaction = Interaction(
      request: key, status: response.statusCode, headers: Self.stable(response.stringHeaders),
      body: data)
    interaction.requestHeaders = Self.stable(request.allHTTPHeaderFields ?? [:])
    let contents = interaction.fileContents(
      redactingHeaders: redactedHeaders, redactingFields: redactedFields)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try contents.write(
      to: folder.appendingPathComponent(key.fileName + ".json"), options: .atomic)
    return (data, response)
  }
}
