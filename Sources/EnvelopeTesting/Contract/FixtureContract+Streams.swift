import EnvelopeKit
import EnvelopeNetworking
import Foundation

extension FixtureContract {
  /// Checks a recorded JSON Lines body (`provider.lines`) strictly, value by value, as
  /// ``decode(_:fixture:envelope:at:decoder:acceptedDrift:filePath:)`` checks a body: a value
  /// that drifts fails the check naming its index (`[12].price`), unless a baseline accepts it.
  ///
  /// ```swift
  /// let rows = try FixtureContract.decodeLines(Row.self, fixture: "export.ndjson")
  /// ```
  ///
  /// - Parameters:
  ///   - type: a line's type.
  ///   - fixture: the fixture's path under `Fixtures/` (a body, or a recorded interaction).
  ///   - decoder: the decoder whose options apply; strict for the check, lenient for drift.
  ///   - acceptedDrift: `.none`, or `.baseline` (`<fixture>.drift.json`).
  ///   - filePath: the caller's `#filePath`, for finding the fixture root.
  /// - Returns: the values, as the stream would yield them.
  /// - Throws: `ContractFailure`.
  public static func decodeLines<T: Decodable & Sendable>(
    _ type: T.Type, fixture: String, decoder: LenientDecoder = LenientDecoder(policy: .strict),
    acceptedDrift: AcceptedDrift = .none, filePath: String = #filePath
  ) throws -> [T] {
    try checkStream(fixture, decoder, acceptedDrift, filePath) {
      try RecordedStream.lines(T.self, from: $1, decoder: $0)
    }
  }

  /// Checks a recorded Server-Sent Events body (`provider.events`) strictly, event by event
  /// (each event's data); see ``decodeLines(_:fixture:decoder:acceptedDrift:filePath:)``.
  ///
  /// - Parameters:
  ///   - type: an event's data type.
  ///   - fixture: the fixture's path under `Fixtures/`.
  ///   - endMarker: the data that ends the stream (`[DONE]`); nil for none.
  ///   - decoder: the decoder whose options apply.
  ///   - acceptedDrift: `.none`, or `.baseline`.
  ///   - filePath: the caller's `#filePath`.
  /// - Returns: the events, as the stream would yield them.
  /// - Throws: `ContractFailure`.
  public static func decodeEvents<T: Decodable & Sendable>(
    _ type: T.Type, fixture: String, endMarker: String? = "[DONE]",
    decoder: LenientDecoder = LenientDecoder(policy: .strict),
    acceptedDrift: AcceptedDrift = .none, filePath: String = #filePath
  ) throws -> [ServerSentEvent<T>] {
    try checkStream(fixture, decoder, acceptedDrift, filePath) {
      try RecordedStream.events(T.self, from: $1, endMarker: endMarker, decoder: $0)
    }
  }

  /// Checks the elements of a recorded body's array (`provider.elements`) strictly, element by
  /// element; a business failure in the envelope fails the check.
  ///
  /// - Parameters:
  ///   - type: an element's type.
  ///   - fixture: the fixture's path under `Fixtures/`.
  ///   - envelope: the envelope format (`at` is inside its data); nil or `.plain` for none.
  ///   - path: where the array is.
  ///   - decoder: the decoder whose options apply.
  ///   - acceptedDrift: `.none`, or `.baseline`.
  ///   - filePath: the caller's `#filePath`.
  /// - Returns: the elements, as the stream would yield them.
  /// - Throws: `ContractFailure`.
  public static func decodeElements<T: Decodable & Sendable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath,
    decoder: LenientDecoder = LenientDecoder(policy: .strict),
    acceptedDrift: AcceptedDrift = .none, filePath: String = #filePath
  ) throws -> [T] {
    try checkStream(fixture, decoder, acceptedDrift, filePath) {
      try RecordedStream.elements(T.self, from: $1, at: path, format: envelope, decoder: $0)
    }
  }

  /// The one check of a recorded stream: `check` with `run` as the body's decoding.
  private static func checkStream<R>(
    _ fixture: String, _ decoder: LenientDecoder, _ acceptedDrift: AcceptedDrift,
    _ filePath: String, run: (LenientDecoder, Data) throws -> Decoded<R>
  ) throws -> R {
    try check(
      fixture: fixture, decoder: decoder, acceptedDrift: acceptedDrift, filePath: filePath,
      rawSteps: 0, run: run
    ).valueNoting(fixture)
  }
}
