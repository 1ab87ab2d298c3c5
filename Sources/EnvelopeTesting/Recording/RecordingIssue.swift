import Foundation
import Testing

/// How the `failed` record mode fails the test that recorded.
enum RecordingIssue {
  /// Records a Swift Testing issue naming the file written (outside a Swift Testing test, the
  /// message goes to standard error).
  static func report(recorded file: URL) {
    let message =
      "Recorded \(file.path) (record mode `failed`): check it in and run again to replay it."
    if Test.current != nil {
      Issue.record(Comment(rawValue: message))
    } else {
      FileHandle.standardError.write(Data("EnvelopeKit: \(message)\n".utf8))
    }
  }
}
