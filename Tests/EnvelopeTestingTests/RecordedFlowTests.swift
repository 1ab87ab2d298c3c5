import EnvelopeKit
import EnvelopeNetworking
import Foundation
import LoopbackServer
import Testing

@testable import EnvelopeTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The rotation routes of the loopback server: a login whose access token has already expired,
/// refresh tokens that work once.
struct RotationTarget: TargetType {
  var baseURL: URL
  var path: String
  var method: HTTPMethod = .get
  var task: RequestTask = .plain
  var authorization: AuthorizationType = .bearer
  // Only a hang's bound: a call waits in the default session's queue (six connections to a
  // host) behind the calls of every suite running beside it, which on a loaded machine can take
  // longer than the 5 s this was.
  var timeout: TimeInterval { 30 }

  static func login(_ base: URL, password: String) -> RotationTarget {
    RotationTarget(
      baseURL: base, path: "/rot/login", method: .post,
      task: .json(["username": "ada", "password": password]), authorization: .none)
  }
  static func refresh(_ base: URL, token: String) -> RotationTarget {
    RotationTarget(
      baseURL: base, path: "/rot/refresh", method: .post, task: .json(["refresh_token": token]),
      authorization: .none)
  }
  static func me(_ base: URL) -> RotationTarget { RotationTarget(baseURL: base, path: "/rot/me") }
}

struct TokenPair: Decodable, Sendable {
  var accessToken: String
  var refreshToken: String
  enum CodingKeys: String, CodingKey {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
  }
}

/// The app's session: signs in, refreshes with the rotating refresh token, remembers every token
/// it was given (so the test can look for them in recorded files).
actor RotationSession {
  var access = ""
  var refreshToken = ""
  var refreshes = 0
  var seen: [String] = []

  func store(_ pair: TokenPair) {
    access = pair.accessToken
    refreshToken = pair.refreshToken
    seen += [pair.accessToken, pair.refreshToken]
  }
  func countRefresh() { refreshes += 1 }
}

/// Keeps every request body sent, to rebuild what a hash could have been made from.
final class SentBodies: Plugin, @unchecked Sendable {
  private let lock = NSLock()
  private var bodies: [Data] = []
  var all: [Data] { lock.withLock { bodies } }
  func willSend(_ request: URLRequest, target: any TargetType) async {
    if let body = request.httpBody { lock.withLock { bodies.append(body) } }
  }
}

/// One run of the app's flow: sign in, load the profile (the token has expired: 401, refresh,
/// retry), over `transport`.
func signInAndLoadProfile(
  _ transport: any HTTPTransport, base: URL, password: String, session: RotationSession,
  plugins: [any Plugin] = []
) async throws -> Int {
  let provider = Provider<RotationTarget>(transport: transport, plugins: plugins)
  let auth = AccessTokenPlugin(token: { await session.access }) {
    await session.countRefresh()
    let pair = try await provider.request(
      .refresh(base, token: await session.refreshToken), as: TokenPair.self)
    await session.store(pair)
  }
  let app = Provider<RotationTarget>(transport: transport, plugins: [auth] + plugins)
  await session.store(try await app.request(.login(base, password: password), as: TokenPair.self))
  return try await app.request(.me(base), as: LoopUser.self).id
}

@Suite final class RecordedFlowTests {
  let folder = makeFolder()
  deinit { try? FileManager.default.removeItem(at: folder) }

  @Test func aRefreshFlowRecordedOnceReplaysOfflineInOrder() async throws {
    let server = try TestServer()
    let base = server.baseURL
    let live = RotationSession()
    let sent = SentBodies()
    let recorder = try RecordingTransport(folder: folder, mode: .missing)
    let id = try await signInAndLoadProfile(
      recorder, base: base, password: "kiwi", session: live, plugins: [sent])
    #expect(id == 1)
    #expect(await live.refreshes == 1)
    server.stop()
    try await expectNoSecret(in: folder, secrets: ["kiwi"] + (await live.seen), sent: sent.all)

    // The retry after the refresh was recorded, not answered with the 401 of a moment before.
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names.contains("GET_rot_me.json") && names.contains("GET_rot_me@2.json"), "\(names)")
    #expect(try text(folder, "GET_rot_me.json").contains("\"status\" : 401"))
    #expect(try text(folder, "GET_rot_me@2.json").contains("\"status\" : 200"))

    // Offline: the replayed login hands the app `<redacted>` tokens, the app sends them back,
    // and every request still finds its recording, in the recorded order.
    let offline = RotationSession()
    let replay = try RecordingTransport(folder: folder, mode: .never)
    #expect(
      try await signInAndLoadProfile(replay, base: base, password: "kiwi", session: offline) == 1)
    #expect(await offline.refreshes == 1)
    // A plain ReplayTransport replays the same flow.
    let again = RotationSession()
    #expect(
      try await signInAndLoadProfile(
        ReplayTransport(folder: folder), base: base, password: "kiwi", session: again) == 1)
  }

  /// No recorded file holds a secret, or a hash from which the planted four-letter password is
  /// found by trying a 10,000-word list (every hex run in the files is checked against the
  /// SHA-256 of every request body with each word in the password's place, and of each word).
  func expectNoSecret(in folder: URL, secrets: [String], sent: [Data]) async throws {
    var files = ""
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
      files += try text(folder, name)
    }
    for secret in secrets { #expect(!files.contains(secret), "\(secret) was written") }
    let hexRuns = Set(
      files.split { !$0.isHexDigit }.filter { $0.count >= 8 }.map { $0.lowercased() })
    // 9,999 four-letter words spread over all 26^4 (a stride prime to it), and the planted one.
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let words =
      (0..<9_999).map { index in
        var number = (index * 7_919 + 12_345) % 456_976
        var word = ""
        for _ in 0..<4 {
          word.append(letters[number % 26])
          number /= 26
        }
        return word
      } + ["kiwi"]
    let loginBodies = sent.filter { String(decoding: $0, as: UTF8.self).contains("kiwi") }
    #expect(!loginBodies.isEmpty)
    for word in words {
      var candidates = [Data(word.utf8)]
      for body in loginBodies {
        candidates.append(
          Data(
            String(decoding: body, as: UTF8.self).replacingOccurrences(of: "kiwi", with: word).utf8)
        )
      }
      for candidate in candidates {
        let hash = SHA256.hex(candidate)
        let found = hexRuns.contains { hash.hasPrefix($0) || $0.contains(hash) }
        #expect(!found, "a recorded hash gives away the password \(word)")
        if found { return }
      }
    }
  }

  @Test func onCIAMissingRecordingFailsWithTheClosestInsteadOfGoingLive() async throws {
    let server = try TestServer()
    let recorder = try RecordMode.$environment.withValue(["CI": "true"]) {
      try RecordingTransport(folder: folder)
    }
    #expect(recorder.mode == .never)
    let provider = Provider<CassetteTarget>(transport: recorder)
    do {
      _ = try await provider.request(
        CassetteTarget(baseURL: server.baseURL, path: "/counter"), as: Count.self)
      Issue.record("a missing recording went to the live server on CI")
    } catch ProviderError.underlying(let error as ReplayError, _) {
      #expect("\(error)".contains("no recorded interaction matches GET /counter"))
    }
    // The server never saw it: its counter starts at 1 for the first request that reaches it.
    let live = Provider<CassetteTarget>()
    #expect(
      try await live.request(
        CassetteTarget(baseURL: server.baseURL, path: "/counter"), as: Count.self)
        == Count(count: 1))
    #expect(!FileManager.default.fileExists(atPath: folder.path))
  }

  @Test func namedRedactionsAddAndRevealFields() throws {
    let redaction = Redaction(fields: ["ssn"], revealing: ["token", "X-Api-Key"])
    let body = Data(#"{"ssn":"1-2-3","token":"page-2","password":"p"}"#.utf8)
    #expect(
      redaction.bodyText(body) == #"{"ssn":"<redacted>","token":"page-2","password":"<redacted>"}"#)
    #expect(redaction.header("X-Api-Key", "k") == "k")
    #expect(redaction.header("Authorization", "Bearer a") == "<redacted>")
    #expect(Redaction.default.bodyText(body).contains(#""token":"<redacted>""#))
  }

  @Test func aBodyIsMatchedOnItsRedactedFormWithKeysSorted() {
    let one = Data(#"{"refresh_token":"r-1","user":"ada"}"#.utf8)
    let other = Data(#"{"user":"ada","refresh_token":"<redacted>"}"#.utf8)
    let redaction = Redaction.default
    #expect(redaction.matchingHash(of: one) == redaction.matchingHash(of: other))
    #expect(redaction.matchingHash(of: one) != SHA256.hex(one))
    #expect(
      redaction.matchingHash(of: Data(#"{"user":"bob","refresh_token":"r-1"}"#.utf8))
        != redaction.matchingHash(of: one))
    #expect(redaction.matchingHash(of: Data()) == nil)
  }
}
