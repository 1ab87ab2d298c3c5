import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Where and how ``RequestTask/parameters(_:encoding:)`` writes its parameters: Alamofire's
/// `URLEncoding` and `JSONEncoding` (Moya's `Task.requestParameters`).
///
/// ```swift
/// var task: RequestTask {
///   .parameters(["q": "swift", "page": 2, "tags": ["a", "b"]], encoding: .url)
///   // GET /search?page=2&q=swift&tags%5B%5D=a&tags%5B%5D=b
/// }
/// ```
///
/// `.url` and `.queryString` write `key=value` pairs:
/// - keys sorted (by their UTF-8 bytes, `JSONEncoder`'s `.sortedKeys` order) at every level, so
///   the same parameters always give the same text (recordings and cache keys match);
/// - a nested dictionary as `a[b]=c`, an array as `a[]=1&a[]=2` (``ArrayEncoding``), a `Bool` as
///   `1`/`0` (``BoolEncoding``); an empty array or dictionary writes nothing, and a `nil` value
///   (an `Optional` that is `nil`, or `NSNull`) drops its key, as Alamofire's
///   `URLEncodedFormEncoder` does by default;
/// - keys and values percent-escaped as Alamofire escapes them: RFC 3986 unreserved characters
///   (`A-Z a-z 0-9 - . _ ~`) and `/` and `?` (RFC 3986 §3.4 lets a query carry them) are kept;
///   every other character, the delimiters `:#[]@!$&'()*+,;=` included, is written as the
///   `%XX` of its UTF-8 bytes: a space is `%20`, `a[]` is `a%5B%5D`.
///
/// Values are `String` (and `Substring`, `Character`), `Bool`, any integer, `Double`, `Float`,
/// `Decimal`, `NSNumber`, `URL` (its absolute string), `UUID` (its `uuidString`), a
/// `RawRepresentable` (its raw value), `nil`, and arrays and `[String: …]` dictionaries of those.
/// A `Double` with an integral value is written without a fraction (`1.0` → `1`), as Alamofire
/// writes it. Anything else (a `Date`, `Data`, a type of your own, a NaN) fails the request
/// with a ``ParameterEncodingError`` that names the key, before anything is sent: a value is
/// never written as its `description`.
public struct ParameterEncoding: Sendable, Hashable {
  /// Where the parameters go.
  enum Destination: Sendable, Hashable {
    /// The query for GET, HEAD and DELETE, a form body otherwise.
    case methodDependent
    /// Always the query.
    case queryString
    /// A JSON body.
    case json
  }

  let destination: Destination
  /// How arrays are written in a query or form body.
  public private(set) var arrayEncoding: ArrayEncoding = .brackets
  /// How `Bool` values are written in a query or form body.
  public private(set) var boolEncoding: BoolEncoding = .numeric

  /// The query for GET, HEAD and DELETE requests; an `application/x-www-form-urlencoded` body
  /// for every other method (Alamofire's `URLEncoding.default`).
  public static let url = ParameterEncoding(destination: .methodDependent)
  /// The query, whatever the method (Alamofire's `URLEncoding.queryString`); no body.
  public static let queryString = ParameterEncoding(destination: .queryString)
  /// A JSON body with `Content-Type: application/json`, keys sorted (Alamofire's
  /// `JSONEncoding.default`). `Bool` values are JSON `true`/`false` and `nil` is `null`; the
  /// array and bool styles do not apply.
  public static let json = ParameterEncoding(destination: .json)

  /// How an array is written in a query or form body (shown unescaped; the brackets are sent
  /// as `%5B` and `%5D`).
  public enum ArrayEncoding: Sendable, Hashable {
    /// `a[]=1&a[]=2`: the default, read by Rails, PHP and Alamofire's users' servers.
    case brackets
    /// `a=1&a=2`.
    case noBrackets
    /// `a[0]=1&a[1]=2`, as jQuery and Node.js write them.
    case indexInBrackets
  }

  /// How a `Bool` is written in a query or form body.
  public enum BoolEncoding: Sendable, Hashable {
    /// `1` and `0`: the default.
    case numeric
    /// `true` and `false`.
    case literal
  }

  /// The same encoding with arrays written in another style.
  ///
  /// - Parameter encoding: the array style.
  /// - Returns: the encoding, e.g. `.url.arrays(.noBrackets)`.
  public func arrays(_ encoding: ArrayEncoding) -> ParameterEncoding {
    var copy = self
    copy.arrayEncoding = encoding
    return copy
  }

  /// The same encoding with `Bool` values written in another style.
  ///
  /// - Parameter encoding: the bool style.
  /// - Returns: the encoding, e.g. `.url.bools(.literal)`.
  public func bools(_ encoding: BoolEncoding) -> ParameterEncoding {
    var copy = self
    copy.boolEncoding = encoding
    return copy
  }

  // MARK: - Applying

  /// Writes `parameters` into `request` (its method already set): a body and its content type,
  /// or the percent-encoded query text to append, which is returned.
  ///
  /// - Throws: ``ParameterEncodingError`` for a value that cannot be encoded.
  func apply(_ parameters: [String: any Sendable], to request: inout URLRequest) throws -> String? {
    let object = try ParameterValues.object(parameters)
    switch destination {
    case .json:
      request.httpBody = Data(JSON.object(object).text(pretty: false, sortedKeys: true).utf8)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      return nil
    case .queryString:
      return form(object)
    case .methodDependent:
      let method = (request.httpMethod ?? "GET").uppercased()
      if ["GET", "HEAD", "DELETE"].contains(method) { return form(object) }
      request.httpBody = Data(form(object).utf8)
      request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
      return nil
    }
  }

  /// `a=1&b%5B%5D=2`: the pairs of `object` in this encoding's styles, percent-escaped.
  func form(_ object: JSONObject) -> String {
    var pairs: [String] = []
    for (key, value) in object { append(value, key: key, to: &pairs) }
    return pairs.joined(separator: "&")
  }

  private func append(_ value: JSON, key: String, to pairs: inout [String]) {
    switch value {
    case .null:
      break
    case .bool(let flag):
      let text =
        switch boolEncoding {
        case .numeric: flag ? "1" : "0"
        case .literal: flag ? "true" : "false"
        }
      pairs.append(Self.escape(key) + "=" + text)
    case .number(let number):
      pairs.append(Self.escape(key) + "=" + Self.escape(number.text))
    case .string(let text):
      pairs.append(Self.escape(key) + "=" + Self.escape(text))
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        let elementKey =
          switch arrayEncoding {
          case .brackets: key + "[]"
          case .noBrackets: key
          case .indexInBrackets: key + "[\(index)]"
          }
        append(element, key: elementKey, to: &pairs)
      }
    case .object(let object):
      for (name, child) in object { append(child, key: key + "[" + name + "]", to: &pairs) }
    }
  }

  /// `text` with every UTF-8 byte percent-escaped but the RFC 3986 unreserved characters and
  /// `/` and `?` (Alamofire's set: `CharacterSet.urlQueryAllowed` without `:#[]@!$&'()*+,;=`).
  static func escape(_ text: String) -> String {
    var escaped = ""
    escaped.unicodeScalars.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if isKept(byte) {
        escaped.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        escaped.unicodeScalars.append("%")
        escaped.unicodeScalars.append(hexDigits[Int(byte >> 4)])
        escaped.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return escaped
  }

  private static let hexDigits: [Unicode.Scalar] = Array("0123456789ABCDEF".unicodeScalars)

  private static func isKept(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
      UInt8(ascii: "/"), UInt8(ascii: "?"):
      true
    default:
      false
    }
  }
}
