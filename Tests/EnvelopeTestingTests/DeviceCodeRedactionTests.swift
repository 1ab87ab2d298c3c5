import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import LoopbackServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The device authorization grant (RFC 8628): the device code the server hands out (§3.2) and
/// the token request that polls with it (§3.4) buy the user's tokens, so `device_code` is a
/// credential there; elsewhere (a device's model code) it stays readable.
@Suite struct DeviceCodeRedactionTests {
  static let deviceCode = "planted-device-code"
  static let grant = "urn:ietf:params:oauth:grant-type:device_code"

  struct Case: Sendable, CustomTestStringConvertible {
    var text: String
    var kept: [String]
    var testDescription: String { text }
  }

  @Test(arguments: [
    Case(
      text: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code"
        + "&device_code=S3CR3T&client_id=app",
      kept: ["client_id=app"]),
    Case(
      text: "client_id=app&device_code=S3CR3T&grant_type=" + grant, kept: ["client_id=app"]),
    Case(
      // Text that is no form is withheld whole when it names a secret.
      text: "poll failed: https://id.example/token?grant_type=\(grant)&device_code=S3CR3T",
      kept: []),
    Case(
      text: #"{"device_code":"S3CR3T","user_code":"WDJB-MJHT","#
        + #""verification_uri":"https://id.example/device","expires_in":1800}"#,
      kept: ["WDJB-MJHT", "expires_in"]),
    Case(
      text: #"{"grant_type":"\#(grant)","deviceCode":"S3CR3T","client_id":"app"}"#,
      kept: ["client_id"]),
    // The same grant marks a `code` beside it.
    Case(text: #"{"code":"S3CR3T","user_code":"WDJB-MJHT"}"#, kept: ["WDJB-MJHT"]),
  ])
  func aDeviceCodeOfTheDeviceGrantIsRedacted(_ test: Case) {
    var written = [Redaction.default.bodyText(Data(test.text.utf8))]
    if !test.text.hasPrefix("{") { written.append(Redaction.default.query(test.text)) }
    for text in written {
      #expect(!text.contains("S3CR3T"), "\(text)")
      for kept in test.kept { #expect(text.contains(kept), "\(text)") }
    }
  }

  @Test(arguments: [
    #"{"code":0,"data":{"device_code":"TH-200","name":"thermostat"}}"#,
    "device_code=TH-200&page=2",
    #"{"device_code":"TH-200","grant_type":"client_credentials"}"#,
  ])
  func aDeviceCodeOutsideTheGrantStaysReadable(_ text: String) {
    let written = Redaction.default.bodyText(Data(text.utf8))
    #expect(written.contains("TH-200"), "\(written)")
    #expect(!written.contains(Redaction.placeholder), "\(written)")
  }

  @Test func revealingDeviceCodeWritesItInClear() {
    let body = "grant_type=\(Self.grant)&device_code=S3CR3T"
    let written = Redaction(revealing: ["device_code"]).bodyText(Data(body.utf8))
    #expect(written.contains("S3CR3T"), "\(written)")
  }

  /// The poll of the token endpoint, sent to the loopback server: the server gets the device
  /// code, no log line or recording holds it.
  @Test func aTokenPollLeavesNoDeviceCodeInLogsOrRecordings() async throws {
    let server = try #require(TestServer.shared, "python3 must be available")
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let lines = LineLog()
    let logging = LoggingPlugin(level: .debug) { lines.add($1) }
    let recorder = try RecordingTransport(folder: folder, mode: .all)
    let provider = Provider<OAuthTarget>(transport: recorder, plugins: [logging])
    let target = OAuthTarget(
      baseURL: server.baseURL, path: "/echo",
      task: .form([
        "grant_type": Self.grant, "device_code": Self.deviceCode, "client_id": "app",
      ]))
    let response = try await provider.response(target)
    #expect(response.statusCode == 200)
    #expect(String(decoding: response.data, as: UTF8.self).contains(Self.deviceCode))
    let logged = lines.all
    #expect(logged.contains { $0.contains("client_id") }, "\(logged)")
    for line in logged { #expect(!line.contains(Self.deviceCode), "\(line)") }
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == 1)
    for name in names {
      let contents = try text(folder, name)
      #expect(!contents.contains(Self.deviceCode) && !name.contains(Self.deviceCode), "\(name)")
    }
  }
}
