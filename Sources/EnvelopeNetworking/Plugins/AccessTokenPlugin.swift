import EnvelopeKit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Adds the access token to every target whose `authorization` is not `.none`, and refreshes it
/// when the server says it expired: HTTP 401, or an envelope code in `expiredCodes` (also when
/// the envelope format maps that code to an error of your own).
///
/// Any number of concurrent requests that fail on an expired token cause one refresh: the first
/// starts it, the others wait for it, and each retries once with the new token. A request that
/// failed with a token older than the current one (someone refreshed meanwhile) retries without
/// a new refresh: the plugin compares the `Authorization` the request carried with the current
/// one, as Alamofire's authenticator does. A refresh that fails ends every request waiting for it
/// with `ProviderError.authentication`; a later request may try again (the failure may have
/// been the network's, not the refresh token's).
///
/// Login and refresh endpoints say `authorization: .none`: they get no token and are never
/// refreshed, so a dead refresh token cannot recurse.
///
/// ```swift
/// let auth = AccessTokenPlugin(expiredCodes: [1001], token: { await session.token }) {
///   try await session.refresh()
/// }
/// let provider = Provider<API>(plugins: [auth])
/// ```
public struct AccessTokenPlugin: Plugin {
  /// Gives the current token.
  public let token: @Sendable () async throws -> String
  /// Refreshes the token; called once however many requests wait for it.
  public let refresh: @Sendable () async throws -> Void
  /// Business codes that mean "token expired".
  public let expiredCodes: Set<EnvelopeCode>
  /// The envelope format read for `expiredCodes` when the target names none; nil for `.default`.
  public let format: EnvelopeFormat?
  private let refresher = TokenRefresher()

  /// Creates the plugin.
  ///
  /// - Parameters:
  ///   - expiredCodes: business codes that mean the token expired.
  ///   - format: the envelope format for targets without one; nil for `EnvelopeFormat.default`.
  ///   - token: gives the current token.
  ///   - refresh: refreshes it.
  public init(
    expiredCodes: Set<EnvelopeCode> = [], format: EnvelopeFormat? = nil,
    token: @escaping @Sendable () async throws -> String,
    refresh: @escaping @Sendable () async throws -> Void = {}
  ) {
    self.token = token
    self.refresh = refresh
    self.expiredCodes = expiredCodes
    self.format = format
  }

  /// Sets `Authorization` to `Bearer <token>` (or the target's custom scheme).
  public func prepare(_ request: URLRequest, target: any TargetType) async throws -> URLRequest {
    guard let header = try await header(for: target) else { return request }
    var request = request
    request.setValue(header, forHTTPHeaderField: "Authorization")
    return request
  }

  /// Refreshes the token (once for all waiting requests) after an expired-token failure; a
  /// refresh that fails becomes `ProviderError.authentication`.
  public func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    guard case .failure(let error) = result, isExpired(error, target) else { return result }
    let carried = error.response?.request?.value(forHTTPHeaderField: "Authorization")
    do {
      try await refresher.refresh(
        carried: carried, current: { try await header(for: target) }, run: refresh)
      return result
    } catch {
      return .failure(.authentication(error))
    }
  }

  /// Retries once, at once, after an expired-token failure.
  public func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration?
  {
    guard attempt == 1, let error = error as? ProviderError, isExpired(error, target) else {
      return nil
    }
    return .zero
  }

  /// The `Authorization` value for `target`, or nil for `.none`.
  private func header(for target: any TargetType) async throws -> String? {
    switch target.authorization {
    case .none: return nil
    case .bearer: return "Bearer " + (try await token())
    case .custom(let scheme): return scheme + " " + (try await token())
    }
  }

  /// A 401, or an envelope code in `expiredCodes`, on a target that carries the token.
  private func isExpired(_ error: ProviderError, _ target: any TargetType) -> Bool {
    guard target.authorization != .none else { return false }
    switch error {
    case .status(let response) where response.statusCode == 401:
      return true
    case .business(let code, _, _):
      return expiredCodes.contains(code)
    case .underlying(_, let response?), .envelope(_, let response):
      // An error the format mapped: read the code it was mapped from.
      guard !expiredCodes.isEmpty,
        let status = try? LenientDecoder().envelopeStatus(
          from: response.data, format: target.envelope ?? format ?? .default),
        let code = status.code
      else { return false }
      return expiredCodes.contains(code)
    default:
      return false
    }
  }
}

/// One refresh at a time, shared by every request that waits for it.
private actor TokenRefresher {
  private var inFlight: Task<Void, any Error>?

  /// Refreshes unless the credential changed since `carried` was sent; joins a refresh in
  /// flight.
  func refresh(
    carried: String?, current: @Sendable () async throws -> String?,
    run: @escaping @Sendable () async throws -> Void
  ) async throws {
    if let inFlight { return try await inFlight.value }
    let now = try await current()
    // Another request may have started a refresh while `current` ran.
    if let inFlight { return try await inFlight.value }
    guard now == carried else { return }  // refreshed meanwhile: retry with the new token
    let task = Task { try await run() }
    inFlight = task
    defer { inFlight = nil }
    try await task.value
  }
}
