import EnvelopeKit
import Foundation

/// An RFC 9457 problem details object (`application/problem+json`): the error body of many
/// HTTP APIs (ASP.NET Core, Spring, Zalando's guidelines), ready to throw as your app's error.
///
/// ```json
/// {"type": "https://example.com/probs/out-of-credit", "title": "You do not have enough credit.",
///  "status": 403, "detail": "Your balance is 30, but that costs 50.", "balance": 30}
/// ```
///
/// reads as `type`, `title`, `status`, `detail` and `instance`, and `balance` is an extension
/// member: `extensions["balance"]?.numberValue?.intValue == 30`. As the RFC says, a standard
/// member of the wrong kind (a `status` that is a string) is ignored, as if it were absent, and
/// an absent `type` is `"about:blank"`. Member names are the server's, whatever the decoder's
/// key strategy.
///
/// Thrown in place of ``ProviderError`` by ``TargetType/error(for:)``:
///
/// ```swift
/// func error(for response: Response) -> (any Error)? {
///   response.problemDetails   // nil unless the body is application/problem+json
/// }
/// ```
public struct ProblemDetails: Decodable, Sendable, Error, Hashable, CustomStringConvertible {
  /// A URI reference naming the problem type; `"about:blank"` when the body has none (the
  /// problem is then no more than its HTTP status).
  public var type: String
  /// A short summary of the problem type.
  public var title: String?
  /// The HTTP status the server gave this occurrence.
  public var status: Int?
  /// An explanation of this occurrence, for a person.
  public var detail: String?
  /// A URI reference naming this occurrence.
  public var instance: String?
  /// Every other member, as the server sent it (`"balance": 30`, `"errors": [...]`).
  public var extensions: [String: JSON]

  /// The members the RFC defines; every other one is an extension.
  static let standardMembers: Set<String> = ["type", "title", "status", "detail", "instance"]

  /// Creates problem details.
  ///
  /// - Parameters:
  ///   - type: the problem type; `"about:blank"` by default.
  ///   - title: a short summary.
  ///   - status: the HTTP status.
  ///   - detail: an explanation of this occurrence.
  ///   - instance: a URI reference naming this occurrence.
  ///   - extensions: more members.
  public init(
    type: String = "about:blank", title: String? = nil, status: Int? = nil, detail: String? = nil,
    instance: String? = nil, extensions: [String: JSON] = [:]
  ) {
    self.type = type
    self.title = title
    self.status = status
    self.detail = detail
    self.instance = instance
    self.extensions = extensions
  }

  /// Reads a problem details object.
  ///
  /// - Parameter decoder: any decoder.
  /// - Throws: `DecodingError.typeMismatch` when the value is not a JSON object.
  public init(from decoder: any Decoder) throws {
    // The object as it is (LenientDecoder hands it over without its key strategy), so member
    // names stay the server's and a member of the wrong kind can be ignored as the RFC asks.
    guard case .object(let members) = try JSON(from: decoder) else {
      throw DecodingError.typeMismatch(
        ProblemDetails.self,
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "Expected a problem details object but found another JSON value."))
    }
    self.init(members: members)
  }

  /// The problem details of an object's members.
  init(members: JSONObject) {
    // `JSON.stringValue` gives a number's text too: a string member must be a string.
    func string(_ name: String) -> String? {
      if case .string(let value)? = members[name] { return value }
      return nil
    }
    self.init(
      type: string("type") ?? "about:blank", title: string("title"),
      status: members["status"]?.numberValue?.intValue, detail: string("detail"),
      instance: string("instance"))
    for (name, value) in members where !Self.standardMembers.contains(name) {
      // Duplicate names keep the first value, as the JSON reader does.
      if extensions[name] == nil { extensions[name] = value }
    }
  }

  /// `403 You do not have enough credit.: Your balance is 30, but that costs 50.
  /// (https://example.com/probs/out-of-credit)`; the parts the body has.
  public var description: String {
    let summary = [status.map(String.init), title].compactMap { $0 }.joined(separator: " ")
    let text = [summary.isEmpty ? nil : summary, detail].compactMap { $0 }.joined(separator: ": ")
    return text.isEmpty ? type : "\(text) (\(type))"
  }
}

extension ProblemDetails: LocalizedError {
  /// The detail, else the title, else `description`: what a person is shown.
  public var errorDescription: String? { detail ?? title ?? description }
}
