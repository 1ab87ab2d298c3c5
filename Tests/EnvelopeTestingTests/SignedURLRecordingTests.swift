import EnvelopeKit
import EnvelopeNetworking
import EnvelopeTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A blob read through a signed URL, whose query is the credential.
struct SignedBlobTarget: TargetType {
  var query: [URLQueryItem]
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "/container/report.json" }
  var timeout: TimeInterval { 5 }
}

/// A signed URL's signature grants access on its own: an Azure SAS URL's `sig`, as a presigned
/// S3 URL's `X-Amz-Signature`, must reach no recording, log line or cURL description.
@Suite struct SignedURLRecordingTests {
  static let signatures: [[URLQueryItem]] = [
    [  // Azure Storage SAS
      URLQueryItem(name: "sv", value: "2022-11-02"), URLQueryItem(name: "sp", value: "r"),
      URLQueryItem(name: "sig", value: "planted-sas-signature"),
    ],
    [  // S3 presigned
      URLQueryItem(name: "X-Amz-Expires", value: "300"),
      URLQueryItem(name: "X-Amz-Signature", value: "planted-sas-signature"),
    ],
  ]

  @Test(arguments: signatures)
  func aSignedURLsSignatureReachesNoRecordingFile(_ query: [URLQueryItem]) async throws {
    let folder = makeFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let recorder = try RecordingTransport(wrapping: FixedTransport(), folder: folder, mode: .all)
    _ = try await Provider<SignedBlobTarget>(transport: recorder).response(
      SignedBlobTarget(query: query))
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(names.count == 1)
    for name in names {
      let contents = try text(folder, name)
      #expect(!contents.contains("planted-sas-signature") && !name.contains("planted"), "\(name)")
    }
    var components = URLComponents(string: "https://account.blob.core.windows.net/c/b")
    components?.queryItems = query
    let url = try #require(components?.url)
    #expect(!Redaction.default.url(url).contains("planted-sas-signature"))
    #expect(!URLRequest(url: url).cURLDescription().contains("planted-sas-signature"))
  }
}
