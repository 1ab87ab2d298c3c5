import Foundation

/// When a `RecordingTransport` goes to the network and writes what it got.
public enum RecordMode: String, Sendable, CaseIterable {
  /// Replay what is recorded; record only requests with no recording yet (the default).
  case missing
  /// Send every request and (re)write its recording.
  case all
  /// Never touch the network: replay, and fail for a request with no recording (for CI).
  case never
  /// Replay what is recorded; record what is missing and fail the Swift Testing test that
  /// recorded (naming the file written), so CI never passes on a fresh recording. The next run
  /// replays and passes.
  case failed

  /// The environment variable read when no mode is given in code: `missing`, `all`, `never` or
  /// `failed`.
  public static let environmentKey = "ENVELOPEKIT_RECORD"

  /// The mode named by `ENVELOPEKIT_RECORD`, or `fallback` when it is unset.
  ///
  /// - Parameter fallback: the mode when the variable is unset.
  /// - Returns: the mode.
  /// - Throws: `RecordModeError` when the variable holds anything else.
  public static func fromEnvironment(default fallback: RecordMode = .missing) throws -> RecordMode {
    guard let value = ProcessInfo.processInfo.environment[environmentKey], !value.isEmpty else {
      return fallback
    }
    guard let mode = RecordMode(rawValue: value.lowercased()) else {
      throw RecordModeError(value: value)
    }
    return mode
  }
}

/// `ENVELOPEKIT_RECORD` held an unknown mode.
public struct RecordModeError: Error, CustomStringConvertible {
  /// The value found.
  public var value: String

  /// `ENVELOPEKIT_RECORD=sometimes is not one of missing, all, never, failed`.
  public var description: String {
    "\(RecordMode.environmentKey)=\(value) is not one of missing, all, never, failed"
  }
}
