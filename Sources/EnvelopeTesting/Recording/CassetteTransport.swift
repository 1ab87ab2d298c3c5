import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Records and replays an ordered list of interactions in one file per test, for flows where the
/// same request is answered differently over time (a 401, then after a token refresh a 200).
///
/// Replay answers the n-th request with a given method, path, query, body and credentials (see
/// `ReplayTransport`) with the n-th recorded interaction that matches it; asking once more than
/// recorded is a `ReplayError`, and so is a request the cassette does not hold (the error says
/// how many interactions it holds and which are closest).
/// Modes as `RecordMode`: `missing` (default) replays an existing cassette and records a new one;
/// `all` re-records; `never` only replays; `failed` records a missing cassette and fails the test.
/// Secrets are hidden as in `RecordingTransport`.
///
/// ```swift
/// @Test func refreshFlow() async throws {
///   let cassette = try CassetteTransport.named()   // Fixtures/cassettes/AuthTests/refreshFlow.json
///   let provider = Provider<API>(transport: cassette, plugins: [auth])
///   _ = try await provider.request(.me, as: User.self)
/// }
/// ```
public struct CassetteTransport: HTTPTransport {
  /// The transport that reaches the network when recording.
  public let base: any HTTPTransport
  /// The cassette file.
  public let file: URL
  /// When to record.
  public let mode: RecordMode
  /// What is hidden in the file.
  public let redaction: Redaction
  private let tape: Tape
  /// Where the test made the cassette: the `failed` mode fails the test there.
  private let site: TestSite

  /// Creates a cassette transport over a file.
  ///
  /// - Parameters:
  ///   - base: the real transport; `URLSessionTransport()` by default.
  ///   - file: the cassette.
  ///   - mode: when to record; nil reads `ENVELOPEKIT_RECORD` (`.never` under CI, else
  ///     `.missing`).
  ///   - redactingHeaders: more header names to redact.
  ///   - redactingQueryItems: more query item names to redact.
  ///   - redactingFields: more JSON fields to redact.
  ///   - revealing: names a default redacts that the recorded flow needs in clear.
  ///   - fileID: the caller's `#fileID`.
  ///   - filePath: the caller's `#filePath`: the `failed` mode fails the test at this line.
  ///   - line: the caller's `#line`.
  ///   - column: the caller's `#column`.
  /// - Throws: `RecordModeError`, or `InteractionFileError` for a malformed cassette.
  public init(
    wrapping base: any HTTPTransport = URLSessionTransport(), file: URL, mode: RecordMode? = nil,
    redactingHeaders: Set<String> = [], redactingQueryItems: Set<String> = [],
    redactingFields: Set<String> = [], revealing: Set<String> = [],
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) throws {
    self.base = base
    self.file = file
    let mode = try mode ?? RecordMode.fromEnvironment()
    self.mode = mode
    self.redaction = Redaction(
      headers: redactingHeaders, queryItems: redactingQueryItems, fields: redactingFields,
      revealing: revealing)
    self.site = TestSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let existing = FileManager.default.fileExists(atPath: file.path)
    let records = mode == .all || (!existing && mode != .never)
    tape = Tape(
      recording: records, exists: existing, recorded: records ? [] : try Self.read(file))
  }

  /// The cassette named after the calling test: `Fixtures/cassettes/<test file>/<test>.json`
  /// below the fixture root (as swift-snapshot-testing names snapshots).
  ///
  /// - Parameters:
  ///   - name: the test's name; the caller's `#function` by default.
  ///   - base: the real transport.
  ///   - mode: when to record; nil reads `ENVELOPEKIT_RECORD`.
  ///   - redactingHeaders: more header names to redact.
  ///   - redactingFields: more JSON fields to redact.
  ///   - revealing: names a default redacts that the recorded flow needs in clear.
  ///   - fileID: the caller's `#fileID`.
  ///   - filePath: the caller's `#filePath`: where the fixture root is searched from, and where
  ///     the `failed` mode fails the test.
  ///   - line: the caller's `#line`.
  ///   - column: the caller's `#column`.
  /// - Returns: the transport.
  /// - Throws: `FixtureFolderError` when no `Fixtures/` folder is found, or the errors of
  ///   `init`.
  public static func named(
    _ name: String = #function, wrapping base: any HTTPTransport = URLSessionTransport(),
    mode: RecordMode? = nil, redactingHeaders: Set<String> = [],
    redactingFields: Set<String> = [], revealing: Set<String> = [],
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) throws -> CassetteTransport {
    let root = try FixtureRoot.require(from: "\(filePath)")
    let testFile = URL(fileURLWithPath: "\(filePath)").deletingPathExtension().lastPathComponent
    let testName = String(name.prefix { $0 != "(" }).map { $0.isLetter || $0.isNumber ? $0 : "-" }
    let file = root.appendingPathComponent("cassettes").appendingPathComponent(testFile)
      .appendingPathComponent(String(testName) + ".json")
    return try CassetteTransport(
      wrapping: base, file: file, mode: mode, redactingHeaders: redactingHeaders,
      redactingFields: redactingFields, revealing: revealing, fileID: fileID, filePath: filePath,
      line: line, column: column)
  }

  /// Answers from the cassette in order, or sends and records.
  ///
  /// - Parameter request: the request.
  /// - Returns: the body and response.
  /// - Throws: `ReplayError` when the cassette has no (more) answer for the request; the base
  ///   transport's errors when recording.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let callRedaction = redaction.adding(.ofCurrentCall)
    let key = Interaction.Request(request, redacting: callRedaction.numbering(tape.numbers))
    guard tape.isRecording else {
      guard tape.exists else {
        throw ReplayError(
          request: key, folder: file, candidates: [],
          reason: "the cassette \(file.path) does not exist; record it (ENVELOPEKIT_RECORD=missing)"
        )
      }
      switch tape.next(for: key) {
      case .answer(let interaction):
        tape.numbers.saw(interaction)
        return try await ReplayTransport.answer(request, with: interaction)
      case .exhausted(let times):
        var error = ReplayError(request: key, folder: file, candidates: [])
        error.timesRecorded = times
        throw error
      case .unrecorded(let interactions):
        let entries = interactions.enumerated().map { ("interactions[\($0.offset)]", $0.element) }
        var error = ReplayError(
          request: key, folder: file, candidates: ReplayTransport.closest(to: key, entries))
        error.recordingCount = interactions.count
        error.isCassette = true
        throw error
      }
    }
    let (data, response) = try await base.send(request)
    let interaction = RecordingTransport.interaction(
      request, key: key, body: data, response: response)
    // Appended and written under one lock: two requests that finish together would otherwise
    // write their snapshots in either order, and the older one would drop the newer's answer.
    let count = try tape.append(interaction, under: callRedaction) { try write($0, $1) }
    if mode == .failed, count == 1 { RecordingIssue.report(recorded: file, at: site) }
    return (data, response)
  }

  /// Answers from the cassette in order as a stream (the recorded body in one chunk), or
  /// streams and records: the interaction is appended once the body has been read (the whole
  /// body, or what the consumer read when it stopped early; a body that fails is not recorded).
  /// A cassette that cannot be written fails the body's last `next()`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the head and the body.
  /// - Throws: the errors of `send(_:)`.
  public func stream(_ request: URLRequest) async throws -> StreamedResponse {
    guard tape.isRecording else {
      let (data, response) = try await send(request)
      return StreamedResponse(response: response, body: ResponseBody(data))
    }
    let callRedaction = redaction.adding(.ofCurrentCall)
    let key = Interaction.Request(request, redacting: callRedaction.numbering(tape.numbers))
    let streamed = try await base.stream(request)
    let response = streamed.response
    let body = streamed.body.recording { data in
      let interaction = RecordingTransport.interaction(
        request, key: key, body: data, response: response)
      let count = try tape.append(interaction, under: callRedaction) { try write($0, $1) }
      if mode == .failed, count == 1 { RecordingIssue.report(recorded: file, at: site) }
    }
    return StreamedResponse(response: response, body: body)
  }

  /// Writes the cassette, every interaction hidden by `redaction` (the names of every call
  /// recorded so far).
  private func write(_ interactions: [Interaction], _ redaction: Redaction) throws {
    var object = JSONObject()
    let numbered = redaction.numbering(tape.numbers)
    object.append("interactions", .array(interactions.map { $0.json(redacting: numbered) }))
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data((JSON.object(object).prettyText() + "\n").utf8).write(to: file, options: .atomic)
  }

  private static func read(_ file: URL) throws -> [Interaction] {
    guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
    let json = try JSON(data: data)
    return try (json["interactions"]?.arrayValue ?? []).enumerated().map { index, entry in
      guard let interaction = try Interaction.read(entry), interaction.request != nil else {
        throw InteractionFileError("interactions[\(index)]")
      }
      return interaction
    }
  }
}

/// The cassette's interactions and how far replay has got for each request.
///
/// `@unchecked Sendable`: every access to its state goes through `lock`.
private final class Tape: @unchecked Sendable {
  enum Next {
    case answer(Interaction)
    /// The request is recorded, fewer times than it was asked.
    case exhausted(times: Int)
    /// The request is not recorded; the cassette's interactions.
    case unrecorded([Interaction])
  }

  /// The numbers given to the secrets of this recording or replay.
  let numbers = SecretNumbers()

  let isRecording: Bool
  /// Whether the cassette file existed when replay began.
  let exists: Bool
  private let lock = NSLock()
  private var interactions: [Interaction]
  private let asked = AskCounter()
  /// The names the interactions recorded so far were recorded under; nil before the first.
  private var written: Redaction?

  init(recording: Bool, exists: Bool, recorded: [Interaction]) {
    isRecording = recording
    self.exists = exists
    interactions = recorded
  }

  /// The interaction for the n-th time `key` is asked, among the recorded interactions that
  /// match it (see `ReplayTransport`: the same credentials when they were recorded).
  func next(for key: Interaction.Request) -> Next {
    let recorded = lock.withLock { interactions }
    let matching = ReplayTransport.matching(key, recorded)
    guard !matching.isEmpty else { return .unrecorded(recorded) }
    let index = asked.next(ReplayTransport.countingKey(key, matching)) - 1
    return index < matching.count ? .answer(matching[index]) : .exhausted(times: matching.count)
  }

  /// Adds an interaction recorded under `redaction` (the cassette's names and its call's) and
  /// hands them all, in order, to `write` before another can be added, with the names of every
  /// call recorded so far (a cassette is written whole); returns how many there are.
  func append(
    _ interaction: Interaction, under redaction: Redaction,
    write: ([Interaction], Redaction) throws -> Void
  ) throws -> Int {
    try lock.withLock {
      interactions.append(interaction)
      written = written?.adding(redaction) ?? redaction
      try write(interactions, written ?? redaction)
      return interactions.count
    }
  }
}
