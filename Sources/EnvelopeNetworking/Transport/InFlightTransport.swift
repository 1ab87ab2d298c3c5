import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The transport of a provider's line that lets identical GETs in flight share one network
/// exchange (`Provider(deduplicatesRequests: true)`); in the line after the cache and before
/// the timeout, so that a stub or the cache answers each caller as before and only what goes
/// to the network is shared. A provider without the option has no such stage.
///
/// Which requests share is `CachePartition.flightKey` (a GET without a body, the same URL,
/// headers, timeout, cookie handling, cache policy and cache scope). The first caller starts the exchange in a task of its
/// own, run with that caller's attempt; every caller, the first too, waits for it and gets its
/// own copy of the response (or the error), with its own request. A caller that is cancelled
/// stops waiting at once; when the last one is, the exchange is cancelled. An exchange is
/// forgotten as soon as it ends (or is cancelled): a caller that comes later, or a retry,
/// starts a new one.
struct InFlightTransport: LineTransport {
  let next: any LineTransport
  let scope: (@Sendable () async -> String?)?
  let flights = InFlightRequests()
  /// Transfers are never shared.
  var transfers: any HTTPTransport { next }

  /// The shared exchange's answer for a request that may share one, else the next transport's.
  nonisolated(nonsending) func response(to request: URLRequest, in exchange: Exchange?)
    async throws -> Response
  {
    guard CachePartition.mayShare(request) else {
      return try await next.response(to: request, in: exchange)
    }
    let key = CachePartition.flightKey(for: request, scope: await scope?())
    let next = next
    var response = try await flights.response(for: key) {
      try await next.response(to: request, in: exchange)
    }
    response.request = request
    return response
  }

  /// Streams are never shared: each consumer reads its own body at its own pace.
  nonisolated(nonsending) func stream(_ request: URLRequest, in exchange: Exchange?)
    async throws -> StreamedResponse
  {
    try await next.stream(request, in: exchange)
  }
}

/// The exchanges in flight by key, and who waits for each.
///
/// `@unchecked Sendable`: `flights` and every `Flight`'s state are only touched with `lock`
/// held (one lock for the table and its flights, so that joining, leaving and ending are each
/// one step).
final class InFlightRequests: @unchecked Sendable {
  typealias Waiter = CheckedContinuation<Response, any Error>

  /// One exchange and its callers.
  ///
  /// `@unchecked Sendable`: its state is only touched with the table's `lock` held.
  final class Flight: @unchecked Sendable {
    /// Callers that joined and neither left nor got the outcome.
    var members = 0
    /// The callers waiting, by number.
    var waiters: [Int: Waiter] = [:]
    /// Callers that left before they started waiting.
    var left: Set<Int> = []
    var nextMember = 0
    var outcome: Result<Response, any Error>?
    var task: Task<Void, Never>?
  }

  private let lock = NSLock()
  private var flights: [String: Flight] = [:]

  /// Exchanges in flight (nothing is kept once an exchange ends).
  var count: Int { lock.withLock { flights.count } }

  /// Callers waiting for the exchanges in flight.
  var callers: Int { lock.withLock { flights.values.reduce(0) { $0 + $1.members } } }

  /// The response of the exchange in flight under `key`, started with `send` when there is
  /// none.
  ///
  /// - Throws: the exchange's error, or `CancellationError` when the calling task is cancelled.
  func response(for key: String, send: @escaping @Sendable () async throws -> Response)
    async throws -> Response
  {
    let (flight, member) = join(key, send)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { waiter in
        wait(flight, member, waiter)
      }
    } onCancel: {
      leave(flight, member, key)
    }
  }

  /// Joins the flight under `key`, or starts one.
  private func join(_ key: String, _ send: @escaping @Sendable () async throws -> Response)
    -> (Flight, Int)
  {
    lock.withLock {
      let flight: Flight
      if let existing = flights[key] {
        flight = existing
      } else {
        flight = Flight()
        flights[key] = flight
        // A task of its own: the caller that started it may leave while others wait.
        flight.task = Task { [self] in
          let outcome: Result<Response, any Error>
          do { outcome = .success(try await send()) } catch { outcome = .failure(error) }
          end(flight, key, outcome)
        }
      }
      flight.members += 1
      flight.nextMember += 1
      return (flight, flight.nextMember)
    }
  }

  /// Waits for the outcome (at once when it is there or the caller already left).
  private func wait(_ flight: Flight, _ member: Int, _ waiter: Waiter) {
    let now: Result<Response, any Error>? = lock.withLock {
      if flight.left.remove(member) != nil { return .failure(CancellationError()) }
      if let outcome = flight.outcome { return outcome }
      flight.waiters[member] = waiter
      return nil
    }
    if let now { waiter.resume(with: now) }
  }

  /// A cancelled caller stops waiting; the last one cancels the exchange and forgets it.
  private func leave(_ flight: Flight, _ member: Int, _ key: String) {
    let (waiter, task): (Waiter?, Task<Void, Never>?) = lock.withLock {
      guard flight.outcome == nil else { return (nil, nil) }
      let waiter = flight.waiters.removeValue(forKey: member)
      if waiter == nil { flight.left.insert(member) }
      flight.members -= 1
      guard flight.members == 0 else { return (waiter, nil) }
      if flights[key] === flight { flights[key] = nil }
      defer { flight.task = nil }  // the task holds the flight until it ends
      return (waiter, flight.task)
    }
    waiter?.resume(throwing: CancellationError())
    task?.cancel()
  }

  /// Hands the outcome to every caller waiting and forgets the exchange.
  private func end(_ flight: Flight, _ key: String, _ outcome: Result<Response, any Error>) {
    let waiters: [Waiter] = lock.withLock {
      if flights[key] === flight { flights[key] = nil }
      flight.outcome = outcome
      flight.task = nil
      defer { flight.waiters.removeAll() }
      return Array(flight.waiters.values)
    }
    for waiter in waiters { waiter.resume(with: outcome) }
  }
}
