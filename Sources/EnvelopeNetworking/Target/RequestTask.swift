import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a request carries besides its URL.
public enum RequestTask: Sendable {
  /// Nothing.
  case plain
  /// URL query parameters, percent-encoded, keys sorted.
  case query([String: String])
  /// A JSON body from any `Encodable` with an encoder of your own: a `ModelEncoder` (made
  /// with `ModelEncoder(matching: decoder)`, a PUT body is written with the key mappings and
  /// transforms the response was read with) or a `JSONEncoder`. `.json(value)` uses a
  /// `ModelEncoder` with sorted keys.
  case json(any Encodable & Sendable, encoder: any JSONBodyEncoder)
  /// An `application/x-www-form-urlencoded` body, keys sorted.
  case form([String: String])
  /// Raw bytes with a content type.
  case data(Data, contentType: String)
  /// A `multipart/form-data` body.
  case multipart([MultipartPart])
  /// A file's contents as the body. `Provider.upload` streams it from disk; other calls map
  /// the file into memory.
  case file(URL, contentType: String)
  /// Parameters as Moya's `Task.requestParameters` and Alamofire take them: the query for GET,
  /// HEAD and DELETE and a form body otherwise (`.url`), always the query (`.queryString`), or a
  /// JSON body (`.json`); nested dictionaries as `a[b]=c`, arrays as `a[]=1`, keys sorted (see
  /// ``ParameterEncoding``). A value that cannot be encoded (a `Date`, a type of your own)
  /// fails the request with a ``ParameterEncodingError`` naming its key.
  case parameters([String: any Sendable], encoding: ParameterEncoding)
}

/// An encoder of request bodies: `ModelEncoder` and `JSONEncoder` are both.
public protocol JSONBodyEncoder: Sendable {
  /// The JSON body for `value`.
  ///
  /// - Parameter value: the body's value.
  /// - Returns: the UTF-8 JSON text.
  /// - Throws: the encoder's error.
  func encodeBody(_ value: any Encodable) throws -> Data
}

extension ModelEncoder: JSONBodyEncoder {
  /// The JSON body for `value`, with this encoder's mappings and options.
  ///
  /// - Parameter value: the body's value.
  /// - Returns: the UTF-8 JSON text.
  /// - Throws: the encoder's error.
  public func encodeBody(_ value: any Encodable) throws -> Data { try encode(value) }
}

extension JSONEncoder: JSONBodyEncoder {
  /// The JSON body for `value`, with this encoder's options.
  ///
  /// - Parameter value: the body's value.
  /// - Returns: the UTF-8 JSON text.
  /// - Throws: the encoder's error.
  public func encodeBody(_ value: any Encodable) throws -> Data { try encode(value) }
}

/// One part of a multipart body.
public struct MultipartPart: Sendable {
  /// The form field name.
  public var name: String
  /// The content.
  public var data: Data
  /// The file name, for file parts.
  public var fileName: String?
  /// The part's content type, for file parts.
  public var contentType: String?

  /// Creates a part.
  ///
  /// - Parameters:
  ///   - name: the field name.
  ///   - data: the content.
  ///   - fileName: the file name, making this a file part.
  ///   - contentType: the content type, e.g. `image/png`.
  public init(name: String, data: Data, fileName: String? = nil, contentType: String? = nil) {
    self.name = name
    self.data = data
    self.fileName = fileName
    self.contentType = contentType
  }

  /// A text field.
  ///
  /// - Parameters:
  ///   - name: the field name.
  ///   - value: the text.
  /// - Returns: the part.
  public static func text(_ name: String, _ value: String) -> MultipartPart {
    MultipartPart(name: name, data: Data(value.utf8))
  }
}

extension RequestTask {
  /// A JSON body from any `Encodable`, keys sorted (the same value always gives the same bytes,
  /// so recordings replay).
  ///
  /// - Parameter value: the body.
  /// - Returns: `.json(value, encoder:)` with a sorted-keys `ModelEncoder` (the bytes
  ///   `JSONEncoder` writes with `.sortedKeys`).
  public static func json(_ value: any Encodable & Sendable) -> RequestTask {
    var encoder = ModelEncoder()
    encoder.outputFormatting = .sortedKeys
    return .json(value, encoder: encoder)
  }

  /// Applies the task to `request`, then appends the target's `query` items to the URL.
  func apply(to request: inout URLRequest, query items: [URLQueryItem]) throws {
    // Nothing to add (most GETs): no work, not even an empty list of queries to filter.
    if case .plain = self, items.isEmpty { return }
    var queries: [String] = []
    switch self {
    case .plain:
      break
    case .query(let parameters):
      queries.append(Self.encode(parameters))
    case .parameters(let parameters, let encoding):
      if let query = try encoding.apply(parameters, to: &request) { queries.append(query) }
    case .json(let value, encoder: let encoder):
      request.httpBody = try encoder.encodeBody(value)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    case .form(let parameters):
      request.httpBody = Data(Self.encode(parameters).utf8)
      request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    case .data(let data, let contentType):
      request.httpBody = data
      request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    case .file(let url, let contentType):
      request.httpBody = try Data(contentsOf: url, options: .mappedIfSafe)
      request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    case .multipart(let parts):
      let boundary = Self.boundary(for: parts)
      var body = Data()
      for part in parts {
        body.append(Data("--\(boundary)\r\n".utf8))
        var disposition = "Content-Disposition: form-data; name=\"\(part.name)\""
        if let fileName = part.fileName { disposition += "; filename=\"\(fileName)\"" }
        body.append(Data((disposition + "\r\n").utf8))
        if let contentType = part.contentType {
          body.append(Data("Content-Type: \(contentType)\r\n".utf8))
        }
        body.append(Data("\r\n".utf8))
        body.append(part.data)
        body.append(Data("\r\n".utf8))
      }
      body.append(Data("--\(boundary)--\r\n".utf8))
      request.httpBody = body
      request.setValue(
        "multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
    }
    if !items.isEmpty { queries.append(Self.encode(items.map { ($0.name, $0.value ?? "") })) }
    queries.removeAll { $0.isEmpty }
    guard !queries.isEmpty, let url = request.url,
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return }
    let added = queries.joined(separator: "&")
    components.percentEncodedQuery =
      components.percentEncodedQuery.map { $0 + "&" + added } ?? added
    request.url = components.url ?? url
  }

  /// A boundary derived from the parts' contents: the same parts always give the same body (so
  /// recorded requests replay), and a part cannot contain its own digest by chance.
  static func boundary(for parts: [MultipartPart]) -> String {
    var digestInput = Data()
    for part in parts {
      for field in [part.name, part.fileName ?? "", part.contentType ?? ""] {
        digestInput.append(Data(field.utf8))
        digestInput.append(0)
      }
      digestInput.append(Data(String(part.data.count).utf8))
      digestInput.append(part.data)
    }
    return "EnvelopeKit-" + SHA256.hex(digestInput).prefix(32)
  }

  /// `a=1&b=x%20y`, keys sorted, RFC 3986 unreserved characters kept.
  static func encode(_ parameters: [String: String]) -> String {
    encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
  }

  /// `a=1&b=x%20y` in the order given, RFC 3986 unreserved characters kept (so `+` and `&` in
  /// a value are escaped).
  static func encode(_ pairs: [(String, String)]) -> String {
    let allowed = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    return pairs.map { key, value in
      let name = key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
      let text = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
      return "\(name)=\(text)"
    }.joined(separator: "&")
  }
}
