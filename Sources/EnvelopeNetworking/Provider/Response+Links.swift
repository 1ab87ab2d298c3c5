import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Response {
  /// The `Link` header's targets by relation type (RFC 8288), e.g. `links["next"]` for the next
  /// page of a GitHub-style API.
  ///
  /// Every link-value of the header counts (several `Link` fields arrive joined by commas);
  /// commas and semicolons inside `<…>` and quoted parameters do not split. A `rel` with several
  /// space-separated types gives the link under each; types are lower-cased (they compare
  /// without case), and the first link of a type wins. References are resolved against the
  /// request's URL; a relative one without a request, or one that is no URL, is left out.
  /// Targets keep whatever scheme the header gives (`file:`, `ftp:`, `javascript:` too): check
  /// the scheme before you follow one yourself. ``Provider/pages(_:as:at:next:)`` follows only
  /// `http` and `https` links.
  public var links: [String: URL] {
    guard let value = header("Link") else { return [:] }
    var links: [String: URL] = [:]
    for link in LinkHeader.parse(value, base: request?.url) {
      for relation in link.relations where links[relation] == nil { links[relation] = link.target }
    }
    return links
  }
}

/// RFC 8288 §3: `Link: <uri-reference>; rel="next last"; title="…", <…>; rel=prev`.
enum LinkHeader {
  struct Link: Equatable {
    var target: URL
    /// Lower-cased relation types, in order.
    var relations: [String]
  }

  /// The links of a `Link` field value, in order, their targets resolved against `base`.
  static func parse(_ value: String, base: URL?) -> [Link] {
    HeaderList.split(value[...], on: ",").compactMap { link(in: $0, base: base) }
  }

  private static func link(in value: Substring, base: URL?) -> Link? {
    guard value.first == "<", let close = value.firstIndex(of: ">") else { return nil }
    let reference = value[value.index(after: value.startIndex)..<close]
      .trimmingCharacters(in: .whitespaces)
    guard let target = resolve(reference, base: base) else { return nil }
    var relations: [String]?
    for part in HeaderList.split(value[value.index(after: close)...], on: ";") {
      let (name, text) = HeaderList.parameter(part)
      // Occurrences of `rel` after the first are ignored (§3.3).
      guard name == "rel", relations == nil else { continue }
      relations = (text ?? "").lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
    }
    return Link(target: target, relations: relations ?? [])
  }

  /// `reference` as an absolute URL: itself when it has a scheme, else resolved against `base`.
  private static func resolve(_ reference: String, base: URL?) -> URL? {
    if reference.isEmpty { return base }  // the empty reference is the base itself
    if let url = URL(string: reference), url.scheme != nil { return url }
    guard let base, let url = URL(string: reference, relativeTo: base) else { return nil }
    return url.absoluteURL
  }
}
