#if canImport(XCTest)
  import EnvelopeKit
  import Foundation
  import XCTest

  extension FixtureContract {
    /// Decodes a fixture strictly (or against its drift baseline); on drift fails the running
    /// XCTest test at the caller's line.
    ///
    /// ```swift
    /// func testUserContract() {
    ///   FixtureContract.assertDecodes(User.self, fixture: "users/ada.json", envelope: .default)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: the model.
    ///   - fixture: a path below the fixture root.
    ///   - envelope: an envelope format to unwrap, or nil.
    ///   - path: a key path to decode at: inside the envelope's data, or from the root when
    ///     there is no envelope (nil) or it is `EnvelopeFormat.plain`.
    ///   - decoder: the decoder whose options apply (its policy is forced per check).
    ///   - acceptedDrift: `.baseline` to fail only on drift not in `<fixture>.drift.json`;
    ///     accepted drift no longer seen is printed to standard error (XCTest has no warnings).
    ///   - file: the caller's `#filePath` (also where the fixture root is searched from).
    ///   - line: the caller's line.
    /// - Returns: the value, or nil after failing the test.
    @discardableResult
    public static func assertDecodes<T: Decodable>(
      _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
      decoder: LenientDecoder = LenientDecoder(policy: .strict),
      acceptedDrift: AcceptedDrift = .none,
      file: StaticString = #filePath, line: UInt = #line
    ) -> T? {
      reporting {
        try check(
          type, fixture: fixture, envelope: envelope, at: path, decoder: decoder,
          acceptedDrift: acceptedDrift, filePath: "\(file)")
      } fail: {
        XCTFail($0, file: file, line: line)
      } note: {
        FileHandle.standardError.write(Data("EnvelopeKit: \(fixture): \($0)\n".utf8))
      }
    }

    /// Checks a fixture holds a business failure; otherwise fails the XCTest test.
    ///
    /// - Parameters:
    ///   - fixture: a path below the fixture root.
    ///   - envelope: the envelope format.
    ///   - code: the code expected, or nil for any failure.
    ///   - decoder: the decoder whose options apply.
    ///   - file: the caller's `#filePath`.
    ///   - line: the caller's line.
    /// - Returns: the status, or nil after failing the test.
    @discardableResult
    public static func assertBusinessFailure(
      fixture: String, envelope: EnvelopeFormat = .default, code: EnvelopeCode? = nil,
      decoder: LenientDecoder = LenientDecoder(policy: .strict),
      file: StaticString = #filePath, line: UInt = #line
    ) -> EnvelopeStatus? {
      reporting {
        DriftOutcome(
          value: try businessFailure(
            fixture: fixture, envelope: envelope, code: code, decoder: decoder,
            filePath: "\(file)"))
      } fail: {
        XCTFail($0, file: file, line: line)
      }
    }
  }
#endif
