import EnvelopeKit
import Foundation
import Testing

extension FixtureContract {
  /// Decodes a fixture strictly (or against its drift baseline); on drift records a Swift
  /// Testing issue at the caller.
  ///
  /// ```swift
  /// @Test func userContract() {
  ///   FixtureContract.expectDecodes(
  ///     User.self, fixture: "users/18.json", envelope: .default, acceptedDrift: .baseline)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - type: the model.
  ///   - fixture: a path below the fixture root.
  ///   - envelope: an envelope format to unwrap, or nil.
  ///   - path: a key path to decode at: inside the envelope's data, or from the root when there
  ///     is no envelope (nil) or it is `EnvelopeFormat.plain`.
  ///   - decoder: the decoder whose options apply (its policy is forced per check).
  ///   - acceptedDrift: `.baseline` to fail only on drift not in `<fixture>.drift.json`;
  ///     accepted drift no longer seen is a warning at the caller.
  ///   - filePath: the caller's `#filePath`.
  ///   - sourceLocation: where the issue is recorded.
  /// - Returns: the value, or nil after recording an issue.
  @discardableResult
  public static func expectDecodes<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
    decoder: LenientDecoder = LenientDecoder(policy: .strict),
    acceptedDrift: AcceptedDrift = .none,
    filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
  ) -> T? {
    reporting {
      try check(
        type, fixture: fixture, envelope: envelope, at: path, decoder: decoder,
        acceptedDrift: acceptedDrift, filePath: filePath)
    } fail: {
      Issue.record("\($0)", sourceLocation: sourceLocation)
    } note: { note in
      // A warning where Swift Testing has them (Swift 6.3); standard error before.
      #if compiler(>=6.3)
        Issue.record("\(fixture): \(note)", severity: .warning, sourceLocation: sourceLocation)
      #else
        FileHandle.standardError.write(Data("EnvelopeKit: \(fixture): \(note)\n".utf8))
      #endif
    }
  }

  /// Checks a fixture holds a business failure; otherwise records an issue at the caller.
  ///
  /// - Parameters:
  ///   - fixture: a path below the fixture root.
  ///   - envelope: the envelope format.
  ///   - code: the code expected, or nil for any failure.
  ///   - decoder: the decoder whose options apply.
  ///   - filePath: the caller's `#filePath`.
  ///   - sourceLocation: where the issue is recorded.
  /// - Returns: the status, or nil after recording an issue.
  @discardableResult
  public static func expectBusinessFailure(
    fixture: String, envelope: EnvelopeFormat = .default, code: EnvelopeCode? = nil,
    decoder: LenientDecoder = LenientDecoder(policy: .strict),
    filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
  ) -> EnvelopeStatus? {
    reporting {
      DriftOutcome(
        value: try businessFailure(
          fixture: fixture, envelope: envelope, code: code, decoder: decoder, filePath: filePath))
    } fail: {
      Issue.record("\($0)", sourceLocation: sourceLocation)
    }
  }
}
