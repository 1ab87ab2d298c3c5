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
  /// Decodes a fixture strictly and explains any drift.
  ///
  /// - Parameters:
  ///   - type: the model.
  ///   - fixture: a path below the fixture root, e.g. `envelopes/code0_object.json`.
  ///   - envelope: an envelope format to unwrap, or nil.
  ///   - path: a key path to decode at when there is no envelope.
  ///   - decoder: the decoder whose options apply (key strategy, dates, key mappings,
  ///     transforms); its policy is made strict for the check and lenient for the drift list.
  ///   - filePath: the caller's `#filePath`, for finding the fixture root.
  /// - Returns: the value decoded strictly.
  /// - Throws: `ContractFailure` naming the fixture, the JSON path, the expected type, what was
  ///   found with its line and column, and the lenient report as the drift list.
  public static func decode<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
    decoder: LenientDecoder = LenientDecoder(policy: .strict), filePath: String = #filePath
  ) throws -> T {
    let file = try FixtureFile(fixture, filePath: filePath)
    var strict = decoder
    strict.policy = .strict
    var lenient = decoder
    lenient.policy = .lenient
    func run(_ decoder: LenientDecoder) throws -> Decoded<T> {
      if let envelope {
        return try decoder.decodeEnvelopeWithReport(T.self, from: file.body, format: envelope)
      }
      return try decoder.decodeWithReport(T.self, from: file.body, at: path)
    }
    do {
      return try run(strict).value
    } catch {
      var message = "\(fixture): \(file.explain(error))"
      if let lenient = try? run(lenient), !lenient.report.isEmpty {
        message += "\nLenient decoding still succeeds; drift:\n\(lenient.report)"
      }
      throw ContractFailure(message: message)
    }
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
    let file = try FixtureFile(fixture, filePath: filePath)
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
  /// handed the failure's message.
  static func reporting<R>(_ check: () throws -> R, fail: (String) -> Void) -> R? {
    do {
      return try check()
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

  init(_ fixture: String, filePath: String) throws {
    guard let root = FixtureRoot.find(from: filePath) else {
      throw ContractFailure(message: "no Fixtures/ folder above \(filePath)")
    }
    let file: URL
    do {
      file = try FixtureName.resolve(fixture, in: root)
    } catch {
      throw ContractFailure(message: "\(error)")
    }
    guard let contents = FileManager.default.contents(atPath: file.path) else {
      throw ContractFailure(message: "fixture not found: \(file.path)")
    }
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
    guard let location = JSONLocation.locate(codingPath, in: contents, under: bodyPrefix) else {
      return "an unreadable value"
    }
    return location.depth == codingPath.count
      ? location.description : "nothing; nearest is \(location.description)"
  }

  /// `data.items[2].id`, as in `DecodingReport`; `<root>` for the empty path.
  static func path(_ codingPath: [any CodingKey]) -> String {
    codingPath.isEmpty ? "<root>" : formatCodingPath(codingPath)
  }
}
