import Foundation
import Testing

#if canImport(XCTest)
  import XCTest
#endif

/// Where a test made a recording or contract check, so a failure found later (inside a
/// transport, on another task) is reported at the test's own line, not inside the library.
struct TestSite: Sendable {
  var fileID: String
  var filePath: StaticString
  var line: UInt
  var column: UInt

  /// Fails the running test at this site: a Swift Testing issue inside a Swift Testing test,
  /// else an XCTest failure (which fails the running XCTest test and is dropped outside one),
  /// and the message on standard error.
  ///
  /// - Parameter message: what failed.
  func report(_ message: String) {
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column)))
      return
    }
    FileHandle.standardError.write(Data("EnvelopeKit: \(message)\n".utf8))
    #if canImport(XCTest)
      XCTFail(message, file: filePath, line: line)
    #endif
  }
}

/// How the `failed` record mode fails the test that recorded.
enum RecordingIssue {
  /// Fails the test at `site`, naming the file written.
  static func report(recorded file: URL, at site: TestSite) {
    site.report(
      "Recorded \(file.path) (record mode `failed`): check it in and run again to replay it.")
  }
}
