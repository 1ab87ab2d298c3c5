import EnvelopeKit
import Foundation
import Testing

/// Finds the `Fixtures/` folder of the package that holds the calling test file.
public enum FixtureRoot {
  /// The environment variable that overrides discovery.
  public static let environmentKey = "ENVELOPEKIT_FIXTURES"

  /// Walks up from `filePath` to the first folder that has a `Fixtures/` child.
  ///
  /// - Parameter filePath: the caller's `#filePath`.
  /// - Returns: the `Fixtures` folder, or nil when none is found.
  public static func find(from filePath: String = #filePath) -> URL? {
    if let override = ProcessInfo.processInfo.environment[environmentKey] {
      return URL(fileURLWithPath: override)
    }
    var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while folder.path != "/" {
      let candidate = folder.appendingPathComponent("Fixtures")
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder),
        isFolder.boolValue
      {
        return candidate
      }
      folder.deleteLastPathComponent()
    }
    return nil
  }
}

/// Checks that a recorded response still decodes strictly as a model.
public enum FixtureContract {
  /// Decodes a fixture strictly and explains any drift.
  ///
  /// - Parameters:
  ///   - type: the model.
  ///   - fixture: a path below the fixture root, e.g. `envelopes/code0_object.json`.
  ///   - envelope: an envelope format to unwrap, or nil.
  ///   - path: a key path to decode at when there is no envelope.
  ///   - filePath: the caller's `#filePath`, for finding the fixture root.
  /// - Returns: the value decoded strictly.
  /// - Throws: `ContractFailure` with the fixture path, the JSON path, what was expected and
  ///   found, and the lenient report as the drift list.
  public static func decode<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
    filePath: String = #filePath
  ) throws -> T {
    guard let root = FixtureRoot.find(from: filePath) else {
      throw ContractFailure(message: "no Fixtures/ folder above \(filePath)")
    }
    let file = root.appendingPathComponent(fixture)
    guard let data = FileManager.default.contents(atPath: file.path) else {
      throw ContractFailure(message: "fixture not found: \(file.path)")
    }
    var strict = LenientDecoder()
    strict.policy = .strict
    func run(_ decoder: LenientDecoder) throws -> Decoded<T> {
      if let envelope {
        return try decoder.decodeEnvelopeWithReport(T.self, from: data, format: envelope)
      }
      return try decoder.decodeWithReport(T.self, from: data, at: path)
    }
    do {
      return try run(strict).value
    } catch {
      var message = "\(fixture): \(describe(error))"
      if let lenient = try? run(LenientDecoder()), !lenient.report.isEmpty {
        message += "\nLenient decoding still succeeds; drift:\n\(lenient.report)"
      }
      throw ContractFailure(message: message)
    }
  }

  /// Decodes a fixture strictly and records a Swift Testing issue at the caller on failure.
  ///
  /// - Parameters:
  ///   - type: the model.
  ///   - fixture: a path below the fixture root.
  ///   - envelope: an envelope format to unwrap, or nil.
  ///   - path: a key path to decode at when there is no envelope.
  ///   - filePath: the caller's `#filePath`.
  ///   - sourceLocation: where the issue is recorded.
  /// - Returns: the value, or nil after recording an issue.
  @discardableResult
  public static func expectDecodes<T: Decodable>(
    _ type: T.Type, fixture: String, envelope: EnvelopeFormat? = nil, at path: JSONPath? = nil,
    filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation
  ) -> T? {
    do {
      return try decode(type, fixture: fixture, envelope: envelope, at: path, filePath: filePath)
    } catch {
      Issue.record("\(error)", sourceLocation: sourceLocation)
      return nil
    }
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
      let keys = context.codingPath.map { key in
        key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
      }
      let text = keys.joined()
      return text.hasPrefix(".") ? String(text.dropFirst()) : (text.isEmpty ? "<root>" : text)
    }
    switch error {
    case .typeMismatch(let type, let context):
      return "at \(path(context)): expected \(type): \(context.debugDescription)"
    case .valueNotFound(let type, let context):
      return "at \(path(context)): expected \(type): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      let parent = path(context)
      return
        "at \(parent == "<root>" ? key.stringValue : parent + "." + key.stringValue): missing key"
    case .dataCorrupted(let context):
      return "at \(path(context)): \(context.debugDescription)"
    @unknown default:
      return "\(error)"
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
