import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Provider {
  /// The pages of a listing, one call each, as the consumer asks for them.
  ///
  /// Without `next`, it follows the response's `Link: <…>; rel="next"` (``Response/links``)
  /// until there is none: GitHub-style APIs. With `next`, your closure gives the target of the
  /// next page from the page and its response, or nil at the end: cursor and offset APIs.
  ///
  /// Every page is a whole call of the provider: prepare (credentials), plugins, retries, the
  /// cache, logs. A followed link is sent as is (`Provider(baseURL:)` does not rewrite it), with
  /// the first target's method, headers and body. When it is on another origin (scheme, host and
  /// port) than the first page, it goes without credentials: without the credential headers, as
  /// a redirect does; without the secret query items (`Redaction.isSecret(name:)`) the provider
  /// or a plugin's `prepare` added to it (the link's own query, as the server wrote it, stays:
  /// a secret the server copies into a link to another origin goes there, as in a redirect's
  /// `Location`); and without the first target's body and `Content-Type` (the method stays).
  /// Plugins see the first target for every followed page.
  ///
  /// The sequence is pulled: nothing is sent before the consumer asks, and no page after it
  /// stops; cancelling the consuming task cancels the call in flight. A failed page ends the
  /// sequence with its error (after the pages before it); a next link to a page already
  /// fetched ends it with ``PagingError/repeatedLink(_:)``, one that is not `http` or
  /// `https` (`file:`, `ftp:`, `javascript:`, …) with ``PagingError/unsupportedLink(_:)``, and
  /// one to another origin while the session's configuration adds a credential header to every
  /// request (`httpAdditionalHeaders`, which URLSession would send there too) with
  /// ``PagingError/crossOriginLink(_:)``, before anything is sent to it.
  ///
  /// ```swift
  /// // GitHub's targets say `var envelope: EnvelopeFormat? { .plain }`: each page is the body.
  /// for try await repos in github.pages(.repos(org: "swiftlang"), as: [Repo].self) {
  ///   show(repos)
  /// }
  /// let events = provider.pages(.events(cursor: nil), as: EventPage.self) { page, _ in
  ///   page.nextCursor.map { .events(cursor: $0) }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: the first page.
  ///   - type: a page's value type.
  ///   - path: where each page's value is, as `request(_:as:inData:)` reads it: inside the
  ///     envelope's data (under the target's or the decoder's format), or from the root of the
  ///     body under `EnvelopeFormat.plain`; nil for the data (or the whole plain body) itself.
  ///   - next: gives the next page's target, or nil after the last; nil to follow `Link`.
  /// - Returns: the pages, in order.
  public func pages<Page: Decodable & Sendable>(
    _ target: Target, as type: Page.Type = Page.self, at path: JSONPath? = nil,
    next: (@Sendable (Page, Response) -> Target?)? = nil
  ) -> PageSequence<Target, Page> {
    PageSequence(provider: self, first: target, path: path, next: next)
  }

  /// One page: a whole call with its value and response.
  nonisolated(nonsending) func page<Page: Decodable>(
    _ target: Target, _ type: Page.Type, at path: JSONPath?, following link: PageLink?
  ) async throws -> DecodedResponse<Page> {
    let plan = EnvelopePlan<Page>(format: target.envelope, path: path ?? .root)
    return try await run(target, PagePlan(inner: WithResponse(inner: plan), link: link))
  }
}

/// The pages of ``Provider/pages(_:as:at:next:)``: an `AsyncSequence` that sends one call per
/// page the consumer asks for.
public struct PageSequence<Target: TargetType, Page: Decodable & Sendable>: AsyncSequence,
  Sendable
{
  /// A page's value.
  public typealias Element = Page

  let provider: Provider<Target>
  let first: Target
  let path: JSONPath?
  let next: (@Sendable (Page, Response) -> Target?)?

  /// An iterator that starts at the first page.
  ///
  /// - Returns: the iterator.
  public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

  /// Fetches the pages one by one.
  public struct Iterator: AsyncIteratorProtocol, Sendable {
    private enum Step: Sendable {
      case target(Target)
      case link(URL)
      case failed(any Error)
      case done
    }

    private let sequence: PageSequence
    private var step: Step
    /// The URLs fetched by following links, and the first page's: a link back to one is a loop.
    private var fetched: Set<URL> = []
    /// Where the first page was sent (its prepared request), which decides what a followed link
    /// may carry.
    private var origin: URL?
    /// The one rule for what a request may carry to another origin (the provider's sensitive
    /// headers included).
    private let redirects: RedirectGuard

    init(sequence: PageSequence) {
      self.sequence = sequence
      self.step = .target(sequence.first)
      // The session's configuration may add a credential to every request it sends.
      let transport = sequence.provider.transport as? URLSessionTransport
      self.redirects = RedirectGuard(
        sensitiveHeaders: sequence.provider.redaction.names,
        sessionHeaders: transport?.session.configuration.httpAdditionalHeaders)
    }

    /// The next page, or nil after the last.
    ///
    /// - Returns: the page's value.
    /// - Throws: the failed page's error (`ProviderError`, your mapped error, or
    ///   `CancellationError`), or `ProviderError.underlying(PagingError…)` for a link loop or
    ///   a next link that is not http(s).
    public mutating func next() async throws -> Page? {
      let current = step
      // Whatever happens now, a failure ends the sequence.
      step = .done
      let decoded: DecodedResponse<Page>
      switch current {
      case .done:
        return nil
      case .failed(let error):
        throw error
      case .target(let target):
        try Task.checkCancellation()
        decoded = try await sequence.provider.page(
          target, Page.self, at: sequence.path, following: nil)
        if origin == nil, let sent = decoded.response.request?.url {
          origin = sent
          fetched.insert(sent)
        }
      case .link(let url):
        try Task.checkCancellation()
        let link = PageLink(url: url, origin: origin, redirects: redirects)
        decoded = try await sequence.provider.page(
          sequence.first, Page.self, at: sequence.path, following: link)
      }
      step = following(decoded)
      return decoded.value
    }

    /// What comes after `page`: the closure's target, or the next link, or the end.
    private mutating func following(_ page: DecodedResponse<Page>) -> Step {
      if let next = sequence.next {
        return next(page.value, page.response).map(Step.target) ?? .done
      }
      guard let url = page.response.links["next"] else { return .done }
      // `links` keeps every scheme (it is a parser); a page is only fetched over http(s).
      guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
        return .failed(
          ProviderError.underlying(PagingError.unsupportedLink(url), response: page.response))
      }
      // An unknown first origin counts as another one, as in `PageLink`.
      guard
        !redirects.refusesSessionCredential(to: url, from: [origin ?? URL(string: "about:blank")])
      else {
        return .failed(
          ProviderError.underlying(PagingError.crossOriginLink(url), response: page.response))
      }
      guard fetched.insert(url).inserted else {
        return .failed(
          ProviderError.underlying(PagingError.repeatedLink(url), response: page.response))
      }
      return .link(url)
    }
  }
}

/// Why ``Provider/pages(_:as:at:next:)`` stopped following links.
public enum PagingError: Error, Sendable, CustomStringConvertible {
  /// A `rel="next"` link named a page the sequence had already fetched: the server's links
  /// loop (or a stub answers every page with the same `Link`).
  case repeatedLink(URL)
  /// A `rel="next"` link that is not `http` or `https` (`file:`, `ftp:`, `javascript:`, …):
  /// not followed, nothing sent.
  case unsupportedLink(URL)
  /// A `rel="next"` link to another origin than the first page's while the session's
  /// configuration adds a credential header to every request (`httpAdditionalHeaders` with
  /// `Authorization`, `Cookie`, `X-Api-Key` or a `sensitiveHeaders` name): URLSession would send
  /// it there too, so the link is not followed and nothing is sent.
  case crossOriginLink(URL)

  /// What happened, with the link.
  public var description: String {
    switch self {
    case .repeatedLink(let url):
      return "The next link \(Redaction.default.url(url)) names a page already fetched."
    case .unsupportedLink(let url):
      return
        "The next link \(Redaction.default.url(url)) is not http or https: it was not followed."
    case .crossOriginLink(let url):
      return
        "The next link \(Redaction.default.url(url)) is on another origin and the session adds "
        + "a credential to every request: it was not followed."
    }
  }
}

/// A next link a page call follows instead of its target's URL.
struct PageLink: Sendable {
  /// The link, absolute.
  let url: URL
  /// Where the first page was sent; nil when its response does not say (then every link counts
  /// as another origin).
  let origin: URL?
  /// The one rule for what a request may carry to another origin.
  let redirects: RedirectGuard

  /// The built request, sent to the link instead (its query is the link's).
  func aim(_ request: URLRequest) -> URLRequest {
    var request = request
    request.url = url
    return request
  }

  /// The prepared request as it may go to the link. To the first page's origin, as it is. To
  /// another origin (or when the first page's is unknown): without the credential headers (the
  /// redirect rule, `RedirectGuard`), without the secret query items the provider and its
  /// plugins added to the link (the items the server wrote into the link stay, as a redirect's
  /// `Location` does), and without the first target's body and its `Content-Type`.
  func credentialed(_ request: URLRequest) -> URLRequest {
    if let origin, let sent = request.url, RedirectGuard.sameOrigin(origin, sent) {
      return request
    }
    var request = redirects.redirect(request, from: [origin ?? URL(string: "about:blank")])
    if let sent = request.url { request.url = withoutAddedSecrets(sent) }
    request.httpBody = nil
    request.httpBodyStream = nil
    for name in ["Content-Type", "Content-Length", "Content-Encoding"] {
      request.setValue(nil, forHTTPHeaderField: name)
    }
    return request
  }

  /// `sent` without the query items with a secret name (`Redaction.isSecret(name:)`) that the
  /// link as the server gave it does not have: those the provider or a plugin added in
  /// `prepare`. Items are compared as written (percent-encoded), each of the link's once.
  private func withoutAddedSecrets(_ sent: URL) -> URL {
    guard var components = URLComponents(url: sent, resolvingAgainstBaseURL: false),
      let query = components.percentEncodedQuery
    else { return sent }
    var given =
      (URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
      .map { $0.split(separator: "&", omittingEmptySubsequences: false) } ?? []
    let items = query.split(separator: "&", omittingEmptySubsequences: false)
    let kept = items.filter { item in
      if let index = given.firstIndex(of: item) {
        given.remove(at: index)
        return true
      }
      let name = String(item.prefix { $0 != "=" })
      let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
      return !redirects.redaction.isSecret(name: decoded)
    }
    guard kept.count < items.count else { return sent }
    // Pieces of a valid query joined as they were stay a valid query.
    components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
    // Should the URL not be rebuilt, the link as the server gave it has nothing added.
    return components.url ?? url
  }
}

/// A page call: another plan's value and response, sent to a followed link when there is one.
struct PagePlan<Inner: CallPlan>: CallPlan {
  var inner: Inner
  var link: PageLink?
  var cacheUse: CacheUse { inner.cacheUse }
  var format: EnvelopeFormat? { inner.format }

  func decode(
    _ response: Response, _ target: some TargetType, with decoder: LenientDecoder,
    status: inout EnvelopeStatus?, report: inout DecodingReport
  ) throws -> Inner.Value {
    try inner.decode(response, target, with: decoder, status: &status, report: &report)
  }

  func handing(_ value: consuming Inner.Value, over response: Response) -> Inner.Value {
    inner.handing(value, over: response)
  }
}
