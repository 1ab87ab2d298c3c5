import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Wraps a real transport and writes each exchange as an interaction file, to replay later.
///
/// Files are named from the request (`GET_users_ada.json`, `GET_issues_page-1.json` for a short
/// query, a short hash for a long or unsafe query and for a body; see
/// `Interaction.Request.fileName`), pretty-printed with sorted keys, and written atomically.
/// Secrets are hidden by one `Redaction` (the one list of secret names, plus the ones you name,
/// minus the ones you reveal), each distinct secret of the run written as `<token 1>`,
/// `<token 2>`, … by first appearance. Requests are matched on that redacted form, so a replayed
/// login's `"refresh_token": "<token 3>"`, sent back by the app, matches the recorded refresh,
/// and a request carrying the token a replayed refresh issued matches the recordings made with
/// it (see `ReplayTransport`). Volatile headers (`Date`, `Content-Length`, `Connection`,
/// `Keep-Alive`, `Transfer-Encoding`) are left out so that re-recording an unchanged API changes
/// no file.
///
/// Identical requests are recorded in order: the second `GET /me` of a run (the retry after a
/// refresh) is written as `GET_me@2.json`, and replay answers the n-th identical request with
/// the n-th recording. In `.missing` mode a request recorded during this run is never replayed
/// to a later identical request; that one is recorded too.
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
  /// Where the test created this transport: the `failed` mode fails the test there.
  private let site: TestSite
  /// How many times each request was asked, which were recorded during this run, and the
  /// numbers given to its secrets.
  private let run = RecordingRun()
  /// Answers from the folder, numbering secrets with this run's numbers.
  private let replay: ReplayTransport
  /// How `stream(_:)` hands a replayed body out: one chunk by default.
  public var chunking: StreamChunking { replay.chunking }

  /// The headers never written.
  public static let volatileHeaders: Set<String> = [
    "date", "content-length", "connection", "keep-alive", "transfer-encoding",
  ]

  /// Creates a recording transport.
  ///
  /// - Parameters:
  ///   - base: the real transport; `URLSessionTransport()` by default.
  ///   - folder: where interaction files are read and written.
  ///   - mode: when to record; nil reads `ENVELOPEKIT_RECORD` (`.never` under CI, else
  ///     `.missing`; see `RecordMode.fromEnvironment(default:)`).
  ///   - redactingHeaders: more header names to redact.
  ///   - redactingQueryItems: more query item names to redact.
  ///   - redactingFields: more JSON keys whose values are redacted in recorded bodies.
  ///   - revealing: names a default redacts that the recorded flow needs in clear (see
  ///     `Redaction.init(headers:queryItems:fields:revealing:)`).
  ///   - chunking: how `stream(_:)` hands a replayed body out (chunk size and delay); one chunk
  ///     by default.
  ///   - onWriteFailure: receives a recording that could not be written; by default it is
  ///     printed to standard error.
  ///   - fileID: the caller's `#fileID`.
  ///   - filePath: the caller's `#filePath`: the `failed` mode fails the test at this line.
  ///   - line: the caller's `#line`.
  ///   - column: the caller's `#column`.
  /// - Throws: `RecordModeError` when `ENVELOPEKIT_RECORD` holds an unknown mode.
  public init(
    wrapping base: any HTTPTransport = URLSessionTransport(), folder: URL, mode: RecordMode? = nil,
    redactingHeaders: Set<String> = [], redactingQueryItems: Set<String> = [],
    redactingFields: Set<String> = [], revealing: Set<String> = [],
    chunking: StreamChunking = .whole,
    onWriteFailure: @escaping @Sendable (RecordingWriteError) -> Void = {
      FileHandle.standardError.write(Data("EnvelopeKit: \($0)\n".utf8))
    },
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) throws {
    self.base = base
    self.folder = folder
    self.mode = try mode ?? RecordMode.fromEnvironment()
    self.redaction = Redaction(
      headers: redactingHeaders, queryItems: redactingQueryItems, fields: redactingFields,
      revealing: revealing)
    self.onWriteFailure = onWriteFailure
    self.site = TestSite(fileID: fileID, filePath: filePath, line: line, column: column)
    self.replay = ReplayTransport(
      folder: folder, redacting: redaction, numbers: run.numbers, chunking: chunking)
  }

  /// The redaction with this run's numbering: what keys and files are made with. Inside a
  /// provider's call it hides the provider's names too (its `sensitiveHeaders` and its
  /// transport's, ``Response/redaction``), so a name you gave the provider alone never reaches a
  /// file; read when the request comes, for the call it belongs to.
  private var numbered: Redaction { redaction.adding(.ofCurrentCall).numbering(run.numbers) }

  /// Replays or sends `request` as the mode says, recording what the network answers.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and response (as received, not redacted, when sent).
  /// - Throws: the base transport's errors; `ReplayError` in `.never` mode with no recording.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let numbered = self.numbered
    let key = Interaction.Request(request, redacting: numbered)
    let occurrence = run.asked.next(key.withoutCredentials)
    if mode == .never || (mode != .all && !run.wasRecorded(key.withoutCredentials)) {
      switch try replay.lookup(key) {
      case .success(let interaction):
        return try await replay.play(request, interaction)
      case .failure(let missing):
        if mode == .never { throw missing }
      }
    }
    let answer = try await record(
      request, key: key, occurrence: occurrence, redacting: numbered)
    if mode == .failed {
      RecordingIssue.report(recorded: file(for: key, occurrence: occurrence), at: site)
    }
    return answer
  }

  /// Replays or streams `request` as the mode says. A streamed answer is recorded when its body
  /// has been read: the whole body, written redacted as every recording is; when the consumer
  /// stops early, the bytes it read (a replay hands out what it saw). A body that fails is not
  /// recorded. A replay streams the recorded body in `chunking`'s chunks.
  ///
  /// - Parameter request: the request.
  /// - Returns: the head and the body (as received, not redacted, when sent).
  /// - Throws: the base transport's errors; `ReplayError` in `.never` mode with no recording.
  public func stream(_ request: URLRequest) async throws -> StreamedResponse {
    let numbered = self.numbered
    let key = Interaction.Request(request, redacting: numbered)
    let occurrence = run.asked.next(key.withoutCredentials)
    if mode == .never || (mode != .all && !run.wasRecorded(key.withoutCredentials)) {
      switch try replay.lookup(key) {
      case .success(let interaction):
        let (data, response) = try await replay.play(request, interaction)
        return StreamedResponse(
          response: response, body: ResponseBody(data, chunking: replay.chunking))
      case .failure(let missing):
        if mode == .never { throw missing }
      }
    }
    let streamed = try await base.stream(request)
    run.recorded(key.withoutCredentials)
    let response = streamed.response
    let body = streamed.body.recording { data in
      write(
        request, key: key, occurrence: occurrence, body: data, response: response,
        redacting: numbered)
    }
    if mode == .failed {
      RecordingIssue.report(recorded: file(for: key, occurrence: occurrence), at: site)
    }
    return StreamedResponse(response: response, body: body)
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

  /// `GET_me.json` for the first occurrence, `GET_me@2.json` for the second (`@` never occurs
  /// in a request's file name); the hashed name (`Interaction.Request.hashedFileName`) when the
  /// readable one holds a recording of another request (`/a?b=c` and `/a/b-c` read alike, and
  /// a file system may ignore case).
  private func file(for key: Interaction.Request, occurrence: Int) -> URL {
    let suffix = (occurrence > 1 ? "@\(occurrence)" : "") + ".json"
    let readable = folder.appendingPathComponent(key.fileName + suffix)
    guard let data = FileManager.default.contents(atPath: readable.path),
      let recorded = (try? Interaction.read(data))??.request,
      recorded.withoutCredentials != key.withoutCredentials
    else { return readable }
    return folder.appendingPathComponent(key.hashedFileName + suffix)
  }

  /// Sends `request` through the base transport and writes the interaction file.
  private func record(
    _ request: URLRequest, key: Interaction.Request, occurrence: Int, redacting numbered: Redaction
  ) async throws -> (Data, HTTPURLResponse) {
    let (data, response) = try await base.send(request)
    run.recorded(key.withoutCredentials)
    write(
      request, key: key, occurrence: occurrence, body: data, response: response,
      redacting: numbered)
    return (data, response)
  }

  /// Writes the interaction file of an exchange, redacted by `numbered` (what its key was
  /// made with).
  private func write(
    _ request: URLRequest, key: Interaction.Request, occurrence: Int, body data: Data,
    response: HTTPURLResponse, redacting numbered: Redaction
  ) {
    var interaction = Self.interaction(request, key: key, body: data, response: response)
    interaction.occurrence = occurrence
    let file = file(for: key, occurrence: occurrence)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try interaction.fileContents(redacting: numbered).write(to: file, options: .atomic)
    } catch {
      onWriteFailure(RecordingWriteError(request: key, file: file, underlying: error))
    }
  }
}

/// What one recording transport has done: how many times each request was asked, and which
/// requests it recorded (those are recorded again, never replayed, for the rest of the run).
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
private final class RecordingRun: @unchecked Sendable {
  let asked = AskCounter()
  let numbers = SecretNumbers()
  private let lock = NSLock()
  private var recordedKeys: Set<Interaction.Request> = []

  func wasRecorded(_ key: Interaction.Request) -> Bool {
    lock.withLock { recordedKeys.contains(key) }
  }

  func recorded(_ key: Interaction.Request) { _ = lock.withLock { recordedKeys.insert(key) } }
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
