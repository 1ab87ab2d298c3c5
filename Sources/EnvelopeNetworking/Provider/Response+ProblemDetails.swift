import Foundation

extension Response {
  /// The body read as ``ProblemDetails`` when the response says it is one: a `Content-Type` of
  /// `application/problem+json` (any case, parameters allowed) and a JSON object; nil
  /// otherwise. Read with ``errorBody(as:)``.
  ///
  /// ```swift
  /// func error(for response: Response) -> (any Error)? { response.problemDetails }
  /// ```
  public var problemDetails: ProblemDetails? {
    guard let type = header("Content-Type"),
      type.split(separator: ";", maxSplits: 1).first?
        .trimmingCharacters(in: .whitespaces).lowercased() == "application/problem+json"
    else { return nil }
    return errorBody(as: ProblemDetails.self)
  }
}
