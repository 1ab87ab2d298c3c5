import EnvelopeKit
import EnvelopeNetworking
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Answers requests from recorded interaction files, with no network.
///
/// A request matches a recording when method, path, sorted query and body are equal, and the
/// credentials it carries (its secret headers) are those the recording was made with. Secrets
/// are compared as recordings write them: each distinct secret of a run is numbered by first
/// appearance (`<token 1>`, `<token 2>`, …), so a flow that sends back the `<token 4>` a
/// replayed refresh handed out gets the answers recorded for `<token 4>`, not the 401 recorded
/// for the expired `<token 2>`, however its concurrent requests interleave. (A recording made
/// before credentials were recorded matches whatever a request carries.) Other headers are not
/// matched. Every `.json` file below `folder` that has a `request` section is a candidate; the
/// folder is read on each request, so recordings made meanwhile count. Among the recordings
/// that match, the n-th request gets the n-th in recorded order (`GET_me@2.json` is the
/// second), or the last one when fewer were recorded.
///
/// ```swift
/// let replay = ReplayTransport(folder: FixtureRoot.find()!.appending(path: "recorded"))
/// let provider = Provider<API>(transport: replay)
/// ```
public struct ReplayTransport: HTTPTransport {
  /// The folder searched, recursively.
  public let folder: URL
  /// Which names were redacted when recording (requests are matched redacted the same way).
  public let redaction: Redaction
  /// How many times each request was asked of this transport.
  private let asked = AskCounter()
  /// The numbers this transport gave the secrets it met.
  private let numbers: SecretNumbers
  /// How `stream(_:)` hands a recorded body out: one chunk by default.
  public let chunking: StreamChunking

  /// Creates a transport over a folder.
  ///
  /// - Parameters:
  ///   - folder: the recordings.
  ///   - redaction: the redaction the recordings were made with; the defaults when omitted.
  ///   - chunking: how `stream(_:)` hands a recorded body out (chunk size and delay, to test a
  ///     parser on chunks split anywhere); one chunk by default.
  public init(
    folder: URL, redacting redaction: Redaction = .default, chunking: StreamChunking = .whole
  ) {
    self.init(folder: folder, redacting: redaction, numbers: SecretNumbers(), chunking: chunking)
  }

  /// A transport that numbers secrets with `numbers` (a recording transport's, shared with it).
  init(
    folder: URL, redacting redaction: Redaction, numbers: SecretNumbers,
    chunking: StreamChunking = .whole
  ) {
    self.folder = folder
    self.redaction = redaction
    self.numbers = numbers
    self.chunking = chunking
  }

  /// What request keys are made with: `redaction` numbered, with the names of the provider
  /// whose call is running added (as `RecordingTransport` made the recordings' keys).
  private var keyRedaction: Redaction { redaction.adding(.ofCurrentCall).numbering(numbers) }

  /// Answers `request` from its recording, after the recorded delay; a recorded transport error
  /// is thrown as a `URLError`.
  ///
  /// - Parameter request: the request.
  /// - Returns: the recorded body and response.
  /// - Throws: `ReplayError` when nothing matches; `URLError` for a recorded failure.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let key = Interaction.Request(request, redacting: keyRedaction)
    return try await play(request, try lookup(key).get())
  }

  /// Answers `request` from its recording as a stream: the recorded body in `chunking`'s chunks,
  /// after the recorded delay.
  ///
  /// - Parameter request: the request.
  /// - Returns: the recorded head and body.
  /// - Throws: `ReplayError` when nothing matches; `URLError` for a recorded failure.
  public func stream(_ request: URLRequest) async throws -> StreamedResponse {
    let key = Interaction.Request(request, redacting: keyRedaction)
    let (data, response) = try await play(request, try lookup(key).get())
    return StreamedResponse(response: response, body: ResponseBody(data, chunking: chunking))
  }

  /// Plays `interaction` back, noting the numbered secrets it hands out.
  func play(_ request: URLRequest, _ interaction: Interaction) async throws -> (
    Data, HTTPURLResponse
  ) {
    numbers.saw(interaction)
    return try await Self.answer(request, with: interaction)
  }

  /// The recording that answers `key` this time, or the `ReplayError` naming the closest
  /// recordings when it was never recorded.
  ///
  /// - Throws: when the folder holds a malformed interaction file.
  func lookup(_ key: Interaction.Request) throws -> Result<Interaction, ReplayError> {
    let recordings = try self.recordings()
    let matching = Self.matching(key, recordings.map(\.interaction))
    guard !matching.isEmpty else {
      var error = ReplayError(
        request: key, folder: folder, candidates: Self.closest(to: key, recordings))
      error.recordingCount = recordings.count
      return .failure(error)
    }
    let ordered = matching.enumerated().sorted {
      ($0.element.occurrence, $0.offset) < ($1.element.occurrence, $1.offset)
    }.map(\.element)
    let index = asked.next(Self.countingKey(key, matching)) - 1
    return .success(index < ordered.count ? ordered[index] : ordered[ordered.count - 1])
  }

  /// The recordings that may answer `key`, in recorded order: the same method, path, query and
  /// body, and the same credentials when the recording has any.
  static func matching(_ key: Interaction.Request, _ interactions: [Interaction]) -> [Interaction] {
    let base = key.withoutCredentials
    return interactions.filter { interaction in
      guard let recorded = interaction.request, recorded.withoutCredentials == base else {
        return false
      }
      return recorded.credentials == nil || recorded.credentials == key.credentials
    }
  }

  /// What asks are counted by: the key with its credentials when the recordings have them, else
  /// without (a recording made before credentials were recorded).
  static func countingKey(_ key: Interaction.Request, _ matching: [Interaction])
    -> Interaction.Request
  {
    matching.contains { $0.request?.credentials != nil } ? key : key.withoutCredentials
  }

  /// Plays one interaction back for `request`.
  static func answer(_ request: URLRequest, with interaction: Interaction) async throws -> (
    Data, HTTPURLResponse
  ) {
    if let delay = interaction.delayMilliseconds { try await Task.sleep(for: .milliseconds(delay)) }
    if let code = interaction.error { throw URLError(code) }
    guard
      let url = request.url,
      let response = HTTPURLResponse(
        url: url, statusCode: interaction.status, httpVersion: "HTTP/1.1",
        headerFields: interaction.headers)
    else { throw URLError(.badURL) }
    return (interaction.body, response)
  }

  /// Every interaction file below the folder, sorted by relative path.
  func recordings() throws -> [(file: String, interaction: Interaction)] {
    let manager = FileManager.default
    guard let paths = manager.subpaths(atPath: folder.path) else { return [] }
    var found: [(String, Interaction)] = []
    for path in paths.sorted() where path.hasSuffix(".json") {
      guard let data = manager.contents(atPath: folder.appendingPathComponent(path).path),
        let interaction = try Interaction.read(data), interaction.request != nil
      else { continue }
      found.append((path, interaction))
    }
    return found
  }

  /// Up to three recordings, most alike first, each with what differs.
  static func closest(
    to key: Interaction.Request, _ recordings: [(file: String, interaction: Interaction)]
  ) -> [ReplayError.Candidate] {
    let scored = recordings.compactMap { file, interaction -> (Int, ReplayError.Candidate)? in
      guard let recorded = interaction.request else { return nil }
      var differs: [String] = []
      var score = 0
      if recorded.method == key.method { score += 4 } else { differs.append("method") }
      if recorded.path == key.path {
        score += 8
      } else {
        differs.append("path")
        let shared = zip(recorded.path.split(separator: "/"), key.path.split(separator: "/"))
          .prefix { $0 == $1 }.count
        score += min(shared, 3)
      }
      if recorded.query == key.query { score += 2 } else { differs.append("query") }
      if recorded.bodySHA256 == key.bodySHA256 { score += 1 } else { differs.append("body") }
      if recorded.credentials != nil, recorded.credentials != key.credentials {
        differs.append("credentials")
      }
      return (score, ReplayError.Candidate(file: file, request: recorded, differs: differs))
    }
    return scored.sorted { $0.0 > $1.0 }.prefix(3).map(\.1)
  }
}

/// No recording matched a request: the request, and the closest recordings with what differs.
public struct ReplayError: Error, CustomStringConvertible {
  /// A recording that nearly matched.
  public struct Candidate: Sendable, Equatable {
    /// Its file, relative to the folder.
    public var file: String
    /// Its request.
    public var request: Interaction.Request
    /// `method`, `path`, `query`, `body`: the parts that differ.
    public var differs: [String]

    /// Creates a candidate.
    ///
    /// - Parameters:
    ///   - file: the file.
    ///   - request: its request.
    ///   - differs: what differs.
    public init(file: String, request: Interaction.Request, differs: [String]) {
      self.file = file
      self.request = request
      self.differs = differs
    }
  }

  /// The request that found no recording.
  public var request: Interaction.Request
  /// The folder searched.
  public var folder: URL
  /// The closest recordings, most alike first.
  public var candidates: [Candidate]
  /// For a cassette: how many times the request is recorded, when it was asked once more.
  public var timesRecorded: Int?
  /// Why nothing could match, when it is not a missing recording (a missing cassette file).
  public var reason: String?
  /// How many recordings the folder (or interactions the cassette) holds.
  public var recordingCount = 0
  /// Whether `folder` is a cassette file rather than a folder of recordings.
  public var isCassette = false

  /// Creates the error.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - folder: the folder searched.
  ///   - candidates: the closest recordings.
  ///   - reason: why nothing could match, when it is not a missing recording.
  public init(
    request: Interaction.Request, folder: URL, candidates: [Candidate], reason: String? = nil
  ) {
    self.request = request
    self.folder = folder
    self.candidates = candidates
    self.reason = reason
  }

  /// The request, the folder and the candidates, one per line.
  public var description: String {
    if let timesRecorded, timesRecorded > 0 {
      return
        "\(request) was asked \(timesRecorded + 1) times but the cassette \(folder.path) holds it \(timesRecorded) time\(timesRecorded == 1 ? "" : "s")"
    }
    if let reason { return "no recorded interaction answers \(request): \(reason)" }
    let holder = isCassette ? "the cassette" : "the folder"
    var text = "no recorded interaction matches \(request) in \(folder.path)"
    guard recordingCount > 0 else { return text + "; \(holder) holds no recordings" }
    let plural = recordingCount == 1 ? "" : "s"
    text += "; \(holder) holds \(recordingCount) recording\(plural), none for this request"
    if candidates.isEmpty { return text }
    text += "; closest:"
    for candidate in candidates {
      text +=
        "\n  \(candidate.file): \(candidate.request) (differs: \(candidate.differs.joined(separator: ", ")))"
    }
    return text
  }
}

/// Counts how many times each request was asked of one transport, so the n-th identical request
/// gets the n-th recording.
///
/// `@unchecked Sendable`: every access to `counts` goes through `lock`.
final class AskCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var counts: [Interaction.Request: Int] = [:]

  /// Counts one more ask of `key`; returns which ask it is, from 1.
  func next(_ key: Interaction.Request) -> Int {
    lock.withLock {
      counts[key, default: 0] += 1
      return counts[key, default: 0]
    }
  }
}
