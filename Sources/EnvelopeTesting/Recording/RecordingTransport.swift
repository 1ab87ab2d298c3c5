import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Wraps a real transport and writes each exchange as an interaction file, to replay later.
///
/// Files are named from the request (`GET_users_ada.json`, with a short hash when there is a
/// query or body; see `Interaction.Request.fileName`), pretty-printed with sorted keys, and
/// written atomically. Secrets are hidden by one `Redaction`: the default secret headers, query
/// items and JSON fields, plus the ones you name. Volatile headers (`Date`, `Content-Length`,
/// `Connection`, `Keep-Alive`, `Transfer-Encoding`) are left out so that re-recording an
/// unchanged API changes no file.
///
/// A recording that cannot be written never fails the request that succeeded: the error goes
/// to `onWriteFailure` (in a Swift Testing test, pass `{ Issue.record($0) }`).
///
/// ```swift
/// let transport = try RecordingTransport(
///   folder: FixtureRoot.find()!.appending(path: "recorded"), redactingFields: ["ssn"])
/// let provider = Provider<API>(transport: transport)
/// ```
public struct RecordingTransport: HTTPTransport {
  /// The transport that reaches the network.
  public let base: any HTTPTransport
  /// Where interaction files go.
  public let folder: URL
  /// When to record.
  public let mode: RecordMode
  /// What is hidden in recorded files.
  public let redaction: Redaction
  /// Receives each recording that could not be written.
  public let onWriteFailure: @Sendable (RecordingWriteError) -> Void

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
  ///   - redactingQueryItems: more query item names to redact.
  ///   - redactingFields: more JSON keys whose values are redacted in recorded bodies.
  ///   - onWriteFailure: receives a recording that could not be written; by default it is
  ///     printed to standard error.
  /// - Throws: `RecordModeError` when `ENVELOPEKIT_RECORD` holds an unknown mode.
  public init(
    wrapping base: any HTTPTransport = URLSessionTransport(), folder: URL, mode: RecordMode? = nil,
    redactingHeaders: Set<String> = [], redactingQueryItems: Set<String> = [],
    redactingFields: Set<String> = [],
    onWriteFailure: @escaping @Sendable (RecordingWriteError) -> Void = {
      FileHandle.standardError.write(Data("EnvelopeKit: \($0)\n".utf8))
    }
  ) throws {
    self.base = base
    self.folder = folder
    self.mode = try mode ?? RecordMode.fromEnvironment()
    self.redaction = Redaction(
      headers: redactingHeaders, queryItems: redactingQueryItems, fields: redactingFields)
    self.onWriteFailure = onWriteFailure
  }

  /// Replays or sends `request` as the mode says, recording what the network answers.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and response (as received, not redacted, when sent).
  /// - Throws: the base transport's errors; `ReplayError` in `.never` mode with no recording.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let replay = ReplayTransport(folder: folder, redacting: redaction)
    switch mode {
    case .never:
      return try await replay.send(request)
    case .missing, .failed:
      do {
        return try await replay.send(request)
      } catch is ReplayError {
        let answer = try await record(request)
        if mode == .failed {
          let file = folder.appendingPathComponent(
            Interaction.Request(request, redacting: redaction).fileName + ".json")
          RecordingIssue.report(recorded: file)
        }
        return answer
      }
    case .all:
      return try await record(request)
    }
  }

  /// The interaction to record for an exchange: request and response headers without the
  /// volatile ones (redaction happens when it is written). Cassettes record the same way.
  static func interaction(
    _ request: URLRequest, key: Interaction.Request, body: Data, response: HTTPURLResponse
  ) -> Interaction {
    func stable(_ headers: [String: String]) -> [String: String] {
      headers.filter { !volatileHeaders.contains($0.key.lowercased()) }
    }
    var interaction = Interaction(
      request: key, status: response.statusCode, headers: stable(response.stringHeaders),
      body: body)
    interaction.requestHeaders = stable(request.allHTTPHeaderFields ?? [:])
    return interaction
  }

  /// Sends `request` through the base transport and writes the interaction file.
  private func record(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let (data, response) = try await base.send(request)
    let key = Interaction.Request(request, redacting: redaction)
    let interaction = Self.interaction(request, key: key, body: data, response: response)
    let file = folder.appendingPathComponent(key.fileName + ".json")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try interaction.fileContents(redacting: redaction).write(to: file, options: .atomic)
    } catch {
      onWriteFailure(RecordingWriteError(request: key, file: file, underlying: error))
    }
    return (data, response)
  }
}

/// A recording that could not be written; the request itself succeeded.
public struct RecordingWriteError: Error, CustomStringConvertible {
  /// The request (its secret query items redacted).
  public var request: Interaction.Request
  /// The file that was to be written.
  public var file: URL
  /// Why it failed.
  public var underlying: any Error

  /// `could not record GET /users/ada to …/GET_users_ada.json: …`.
  public var description: String {
    "could not record \(request) to \(file.path): \(underlying)"
  }
}
