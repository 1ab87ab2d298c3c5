import Foundation

/// When a `RecordingTransport` goes to the network and writes what it got.
public enum RecordMode: String, Sendable, CaseIterable {
  /// Replay what is recorded; record only requests with no recording yet (the default).
  case missing
  /// Send every request and (re)write its recording.
  case all
  /// Never touch the network: replay, and fail for a request with no recording (for CI).
  case never
  /// Replay what is recorded; record what is missing and fail the test that recorded (Swift
  /// Testing or XCTest, at the line that made the transport, naming the file written), so CI
  /// never passes on a fresh recording. The next run replays and passes.
  case failed

  /// The environment variable read when no mode is given in code: `missing`, `all`, `never` or
  /// `failed`.
  public static let environmentKey = "ENVELOPEKIT_RECORD"

  /// The mode named by `ENVELOPEKIT_RECORD`; when it is unset, `never` on CI (the `CI`
  /// environment variable set to anything but empty, `0` or `false`, as CI services set it), else
  /// `fallback`. So CI never records silently: a missing recording or drift baseline fails there.
  ///
  /// - Parameter fallback: the mode when the variable is unset and not on CI.
  /// - Returns: the mode.
  /// - Throws: `RecordModeError` when the variable holds anything else.
  public static func fromEnvironment(default fallback: RecordMode = .missing) throws -> RecordMode {
    let environment = Self.environment ?? ProcessInfo.processInfo.environment
    guard let value = environment[environmentKey], !value.isEmpty else {
      return isCI(environment["CI"]) ? .never : fallback
    }
    guard let mode = RecordMode(rawValue: value.lowercased()) else {
      throw RecordModeError(value: value)
    }
    return mode
  }

  /// The variables read instead of the process environment, for one task: tests set it rather
  /// than `setenv`, which races with every other thread reading the environment.
  @TaskLocal static var environment: [String: String]?

  /// Whether a `CI` variable's value says the run is on CI.
  static func isCI(_ value: String?) -> Bool {
    guard let value = value?.trimmingCharacters(in: .whitespaces).lowercased() else {
      return false
    }
    return !value.isEmpty && value != "0" && value != "false"
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
