import EnvelopeKit
import Foundation
import Testing

extension FixtureContract {
  /// Decodes a fixture strictly; on drift records a Swift Testing issue at the caller.
  ///
  /// - Parameters:
  ///   - type: the model.
  ///   - fixture: a path below the fixture root.
  ///   - envelope: an envelope format to unwrap, or nil.
  ///   - path: a key path to decode at when there is no envelope.
  ///   - decoder: the decoder whose options apply (its policy is forced per check).
  ///   - filePath: the caller's `#filePath`.
  ///   - sourceLocation: where the issue is recorded.
  /// - Returns: the value, or nil after recording an issue.
  @discardableResult
  public static func expectDecodes<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
    decoder: LenientDecoder = LenientDecoder(policy: .strict),
    filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
  ) -> T? {
    reporting {
      try decode(
        type, fixture: fixture, envelope: envelope, at: path, decoder: decoder, filePath: filePath)
    } fail: {
      Issue.record("\($0)", sourceLocation: sourceLocation)
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
      try businessFailure(
        fixture: fixture, envelope: envelope, code: code, decoder: decoder, filePath: filePath)
    } fail: {
      Issue.record("\($0)", sourceLocation: sourceLocation)
    }
  }
}
