import EnvelopeKit
import EnvelopeNetworking
import Foundation

/// Checks that recorded responses still decode strictly as your models.
///
/// Production decodes leniently; these checks decode the same fixtures strictly, so a drifted
/// API fails a test that says exactly what drifted while the app keeps working. Fixtures are
/// body-only JSON files or interaction files (see `Fixtures/README.md`), below the folder
/// `FixtureRoot.find` discovers.
///
/// The throwing functions here suit any test framework; `expectDecodes` records a Swift Testing
/// issue and `assertDecodes` fails an XCTest test, each at the caller's line.
public enum FixtureContract {
  /// Decodes a fixture strictly and explains any drift, or checks its drift against a baseline.
  ///
  /// - Parameters:
  ///   - type: the model.
  ///   - fixture: a path below the fixture root, e.g. `envelopes/code0_object.json`.
  ///   - envelope: an envelope format to unwrap, or nil.
  ///   - path: a key path to decode at: inside the envelope's data, or from the root when there
  ///     is no envelope (nil) or it is `EnvelopeFormat.plain`.
  ///   - decoder: the decoder whose options apply (key strategy, dates, key mappings,
  ///     transforms); its policy is made strict for the check and lenient for the drift list.
  ///   - acceptedDrift: `.none` to decode strictly; `.baseline` to decode leniently and fail
  ///     only on drift not in `<fixture>.drift.json` (see `AcceptedDrift`). Accepted drift no
  ///     longer seen, and a baseline written, are noted on standard error.
  ///   - filePath: the caller's `#filePath`, for finding the fixture root.
  /// - Returns: the value decoded (strictly, or leniently under a baseline).
  /// - Throws: `ContractFailure` naming the fixture, the JSON path, the expected type, what was
  ///   found with its line and column, and the lenient report as the drift list; under a
  ///   baseline, only the drift that is new, each entry with its line and column.
  public static func decode<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
    decoder: LenientDecoder = LenientDecoder(policy: .strict),
    acceptedDrift: AcceptedDrift = .none, filePath: String = #filePath
  ) throws -> T {
    let outcome = try check(
      type, fixture: fixture, envelope: envelope, at: path, decoder: decoder,
      acceptedDrift: acceptedDrift, filePath: filePath)
    return outcome.valueNoting(fixture)
  }

  /// The check behind `decode` and the test helpers: the value, with what a passing check
  /// has to say.
  static func check<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat?, at path: JSONPath?,
    decoder: LenientDecoder, acceptedDrift: AcceptedDrift, filePath: String
  ) throws -> DriftOutcome<T> {
    // The envelope's data path or the `at:` path is read as written, not through the strategy.
    let dataSteps = envelope.map { $0.isPlain ? 0 : $0.data.components.count } ?? 0
    return try check(
      fixture: fixture, decoder: decoder, acceptedDrift: acceptedDrift, filePath: filePath,
      rawSteps: dataSteps + (path?.components.count ?? 0)
    ) { decoder, body in
      if let envelope {
        return try decoder.decodeEnvelopeWithReport(
          T.self, from: body, format: envelope, at: path ?? .root)
      }
      return try decoder.decodeWithReport(T.self, from: body, at: path)
    }
  }

  /// The one check: `run` decodes the fixture's body strictly (or leniently under a baseline,
  /// its drift compared with the baseline's); a failure names the fixture and the position.
  static func check<R>(
    fixture: String, decoder: LenientDecoder, acceptedDrift: AcceptedDrift, filePath: String,
    rawSteps: Int, run body: (LenientDecoder, Data) throws -> Decoded<R>
  ) throws -> DriftOutcome<R> {
    var file = try FixtureFile(fixture, filePath: filePath, keys: decoder.keyDecodingStrategy)
    file.rawSteps = rawSteps
    var strict = decoder
    strict.policy = .strict
    var lenient = decoder
    lenient.policy = .lenient
    if acceptedDrift == .baseline {
      // Every entry, so the baseline compares them all.
      lenient.maxReportEntries = .max
    }
    func run(_ decoder: LenientDecoder) throws -> Decoded<R> { try body(decoder, file.body) }
    switch acceptedDrift {
    case .none:
      do {
        return DriftOutcome(value: try run(strict).value)
      } catch {
        var message = "\(fixture): \(file.explain(error))"
        if let lenient = try? run(lenient), !lenient.report.isEmpty {
          message += "\nLenient decoding still succeeds; drift:\n\(lenient.report)"
        }
        throw ContractFailure(message: message)
      }
    case .baseline:
      let decoded: Decoded<R>
      do {
        decoded = try run(lenient)
      } catch {
        throw ContractFailure(
          message: "\(fixture): \(file.explain(error))\nEven lenient decoding fails; "
            + "no baseline can accept that.")
      }
      return try compare(decoded, of: file, fixture: fixture)
    }
  }

  /// Compares a lenient decode's drift with the fixture's baseline, writing the baseline as
  /// the record mode says.
  private static func compare<T>(_ decoded: Decoded<T>, of file: FixtureFile, fixture: String)
    throws -> DriftOutcome<T>
  {
    let baseline = DriftBaseline(fixture: fixture, file: file.url)
    let current = Set(decoded.report.entries.map(DriftEntry.init))
    let mode: RecordMode
    do {
      mode = try RecordMode.fromEnvironment()
    } catch {
      throw ContractFailure(message: "\(error)")
    }
    let accepted = try baseline.read()
    guard let accepted, mode != .all else {
      if accepted == nil, mode == .never {
        throw ContractFailure(
          message: "\(fixture): no drift baseline at \(baseline.file.path), and the record "
            + "mode is `never` (the default on CI); record it with ENVELOPEKIT_RECORD=missing, "
            + "review it and check it in. Drift now:\n"
            + (current.isEmpty
              ? "  none" : current.sorted().map { "  \($0)" }.joined(separator: "\n")))
      }
      do {
        try baseline.write(current)
      } catch {
        throw ContractFailure(
          message: "\(fixture): could not write \(baseline.file.path): \(error)")
      }
      if accepted == nil, mode == .failed {
        throw ContractFailure(
          message: "\(fixture): recorded drift baseline \(baseline.file.path) (record mode "
            + "`failed`): review it, check it in and run again.")
      }
      return DriftOutcome(value: decoded.value, written: baseline.file)
    }
    let fixed = accepted.subtracting(current).sorted()
    let new = decoded.report.entries.filter { !accepted.contains(DriftEntry($0)) }
    guard new.isEmpty else {
      var message =
        "\(fixture): drift not in the baseline \(baseline.file.lastPathComponent):\n"
        + new.map { "  \($0) \(file.whereIs(reportPath: $0.path))" }.joined(separator: "\n")
      if !fixed.isEmpty {
        message +=
          "\naccepted drift no longer seen:\n" + fixed.map { "  \($0)" }.joined(separator: "\n")
      }
      throw ContractFailure(message: message)
    }
    return DriftOutcome(value: decoded.value, fixed: fixed)
  }

  /// Checks that a fixture is an envelope carrying a business failure.
  ///
  /// - Parameters:
  ///   - fixture: a path below the fixture root.
  ///   - envelope: the envelope format.
  ///   - code: the code expected, or nil for any failure code.
  ///   - decoder: the decoder whose options apply; its policy is made strict.
  ///   - filePath: the caller's `#filePath`.
  /// - Returns: the envelope's status (code and message).
  /// - Throws: `ContractFailure` when the envelope is a success, has another code, or cannot be
  ///   read.
  @discardableResult
  public static func businessFailure(
    fixture: String, envelope: EnvelopeFormat = .default, code: EnvelopeCode? = nil,
    decoder: LenientDecoder = LenientDecoder(policy: .strict), filePath: String = #filePath
  ) throws -> EnvelopeStatus {
    let file = try FixtureFile(fixture, filePath: filePath, keys: decoder.keyDecodingStrategy)
    var strict = decoder
    strict.policy = .strict
    let status: EnvelopeStatus
    do {
      status = try strict.envelopeStatus(from: file.body, format: envelope)
    } catch {
      throw ContractFailure(message: "\(fixture): \(file.explain(error))")
    }
    if status.isSuccess {
      throw ContractFailure(
        message: "\(fixture): expected a business failure, found \(status)")
    }
    if let code, status.code != code {
      throw ContractFailure(
        message: "\(fixture): expected business code \(code), found \(status)")
    }
    return status
  }
}

extension FixtureContract {
  /// Runs a throwing check for a non-throwing assertion: the value, or nil after `fail` is
  /// handed the failure's message; a passing check's notes go to `note`.
  static func reporting<R>(
    _ check: () throws -> DriftOutcome<R>, fail: (String) -> Void,
    note: (String) -> Void = { _ in }
  ) -> R? {
    do {
      let outcome = try check()
      outcome.notes.forEach(note)
      return outcome.value
    } catch {
      fail("\(error)")
      return nil
    }
  }
}

/// A contract check that failed: the message says what drifted and where.
public struct ContractFailure: Error, CustomStringConvertible {
  /// The explanation.
  public var message: String
  /// Same as `message`.
  public var description: String { message }
}

/// A fixture read for a contract check: the body to decode and where it sits in the file.
struct FixtureFile {
  /// The file's bytes.
  var contents: Data
  /// The response body: the file itself, or an interaction's `response.body`.
  var body: Data
  /// Where the body starts in the file, for locating values.
  var bodyPrefix: [String]
  /// The file.
  var url: URL
  /// The decoder's key strategy: values are located under the JSON keys the decoder reads.
  var keys: LenientDecoder.KeyDecodingStrategy
  /// How many leading path steps are JSON keys as written (the envelope's data, an `at:` path).
  var rawSteps = 0

  init(_ fixture: String, filePath: String, keys: LenientDecoder.KeyDecodingStrategy) throws {
    self.keys = keys
    let file: URL
    do {
      file = try FixtureName.resolve(fixture, in: FixtureRoot.require(from: filePath))
    } catch {
      throw ContractFailure(message: "\(error)")
    }
    guard let contents = FileManager.default.contents(atPath: file.path) else {
      throw ContractFailure(message: "fixture not found: \(file.path)")
    }
    self.url = file
    self.contents = contents
    do {
      if let interaction = try Interaction.read(contents) {
        body = interaction.body
        bodyPrefix = ["response", "body"]
        return
      }
    } catch {
      throw ContractFailure(message: "\(fixture): \(error)")
    }
    body = contents
    bodyPrefix = []
  }

  /// `data.id: expected Int, found string "18" at line 4, column 11`, then Foundation's wording.
  func explain(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
      return "\(Self.path(context.codingPath)): expected \(type), found "
        + found(context.codingPath) + "\n  " + context.debugDescription
    case .keyNotFound(let key, let context):
      return "\(Self.path(context.codingPath + [key])): missing key \"\(key.stringValue)\" in "
        + found(context.codingPath)
    case .dataCorrupted(let context):
      let location = context.codingPath.isEmpty ? "" : ", found " + found(context.codingPath)
      return "\(Self.path(context.codingPath)): \(context.debugDescription)\(location)"
    @unknown default:
      return "\(error)"
    }
  }

  /// The value at `codingPath`, located in the file.
  private func found(_ codingPath: [any CodingKey]) -> String {
    guard
      let location = JSONLocation.locate(
        codingPath, in: contents, under: bodyPrefix, keys: keys, rawSteps: rawSteps)
    else { return "an unreadable value" }
    return location.depth == codingPath.count
      ? location.description : "nothing; nearest is \(location.description)"
  }

  /// Where a report entry's value is: `at line 4, column 11`, or for a missing value the
  /// object it is missing from.
  func whereIs(reportPath: String) -> String {
    guard
      let location = JSONLocation.locate(
        reportPath: reportPath, in: contents, under: bodyPrefix, keys: keys, rawSteps: rawSteps)
    else { return "" }
    let steps = parseReportPath(reportPath).count
    return location.depth == steps
      ? "at line \(location.line), column \(location.column)"
      : "(in the \(location.kind) at line \(location.line), column \(location.column))"
  }

  /// `data.items[2].id`, as in `DecodingReport`; `<root>` for the empty path.
  static func path(_ codingPath: [any CodingKey]) -> String {
    codingPath.isEmpty ? "<root>" : formatCodingPath(codingPath)
  }
}
