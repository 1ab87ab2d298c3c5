import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLRequest {
  /// The request as a `curl` command line to paste into a terminal, with secrets redacted by
  /// `Redaction`: the default secret headers plus `headers`, secret query items and JSON fields.
  ///
  /// ```swift
  /// print(request.cURLDescription(redacting: ["X-Session"]))
  /// // curl -X POST 'https://api.example.com/login' -H 'Authorization: <redacted>' --data-raw '…'
  /// ```
  ///
  /// - Parameter headers: more header names to redact.
  /// - Returns: the command, one option per line.
  public func cURLDescription(redacting headers: Set<String> = []) -> String {
    let redaction = Redaction(headers: headers)
    var lines = ["curl -X \(httpMethod ?? "GET") \(Self.quoted(redaction.url(url)))"]
    for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
      lines.append("-H \(Self.quoted("\(name): \(redaction.header(name, value))"))")
    }
    if let body = httpBody, !body.isEmpty {
      lines.append("--data-raw \(Self.quoted(redaction.bodyText(body)))")
    }
    return lines.joined(separator: " \\\n  ")
  }

  /// Single-quoted for a POSIX shell (`'` written as `'\''`).
  private static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
