#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  /// The queue `session`'s companion runs its callbacks on, one at a time: for tests that hold
  /// them back to set an order of events without timing.
  package func companionDelegateQueue(of session: URLSession) -> OperationQueue {
    SessionCompanion.of(session).delegateQueue
  }

  /// On Linux, the session that runs the tasks of a session given to `URLSessionTransport`.
  ///
  /// FoundationNetworking tells a task's own delegate only about redirects and challenges: the
  /// response, the data, the bytes sent and the end go to the session's delegate. A transport
  /// needs them for every task (to stream a download, to keep a 401's body), whatever delegate
  /// the app gave its session, or none. So each session gets a companion: a session with the
  /// same configuration (the same cookie, credential and cache storages) whose delegate hands
  /// each callback to the task's `TaskExchange` and then to the app session's delegate, on that
  /// session's delegate queue, with the app's session as the `session` argument.
  ///
  /// A 401 whose challenge the app's delegate does not answer with a credential (or that no
  /// delegate answers) ends the exchange at once with the 401 and its body: FoundationNetworking
  /// answers a `Basic` challenge itself and, up to Swift 6.3.1, never ends the task then. The
  /// task itself is then cancelled, so the app's delegate sees it complete with `.cancelled`.
  ///
  /// `@unchecked Sendable`: `exchanges` and `made` are only touched under `lock`; `owner` is
  /// a weak reference set once.
  final class SessionCompanion: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The app's session; weak, so the companion does not keep it alive.
    private weak var owner: URLSession?
    private let configuration: URLSessionConfiguration
    private let lock = NSLock()
    private var exchanges: [Int: TaskExchange] = [:]
    private var made: URLSession?

    private init(owner: URLSession) {
      self.owner = owner
      self.configuration = owner.configuration
    }

    /// The companion of `session`, made on first use and kept while `session` lives.
    static func of(_ session: URLSession) -> SessionCompanion {
      registry.withLock { companions in
        // Companions of sessions that are gone finish their tasks and go.
        for (key, companion) in companions where companion.owner == nil {
          companion.invalidate()
          companions[key] = nil
        }
        let key = ObjectIdentifier(session)
        if let companion = companions[key], companion.owner === session { return companion }
        let companion = SessionCompanion(owner: session)
        companions[key] = companion
        return companion
      }
    }

    private static let registry = Locked<[ObjectIdentifier: SessionCompanion]>([:])

    /// Whether the app's session may still start tasks: false once the app called
    /// `invalidateAndCancel()` or `finishTasksAndInvalidate()` on it (then the companion is
    /// invalidated too, letting its running tasks finish).
    ///
    /// FoundationNetworking has no public property for this, and making a task on an
    /// invalidated session stops the process, so the session's stored `invalidated` flag is read
    /// by reflection; a FoundationNetworking without that flag counts as valid. Tasks already
    /// running on the companion are not cancelled by the app's `invalidateAndCancel()`.
    var ownerIsValid: Bool {
      guard let owner else { return false }
      var mirror: Mirror? = Mirror(reflecting: owner)
      while let current = mirror {
        if let flag = current.children.first(where: { $0.label == "invalidated" }),
          let invalidated = flag.value as? Bool
        {
          if invalidated { invalidate() }
          return !invalidated
        }
        mirror = current.superclassMirror
      }
      return true
    }

    /// A task for `request` (with `file` as its body, when given) whose callbacks go to
    /// `exchange`; not resumed.
    ///
    /// FoundationNetworking's own request timer is set to a week: up to Swift 6.3.1, when it
    /// fires while a redirect's question waits on the delegate queue, it ends the task, and the
    /// answer that follows stops the process ("Received callback for HTTP redirection, but
    /// we're not waiting for it"). The exchange keeps the request's idle limit itself
    /// (`TaskExchange.start(_:)`) and cancels through the lock the redirect answer takes.
    func task(for request: URLRequest, uploading file: URL?, exchange: TaskExchange)
      -> URLSessionTask
    {
      var request = request
      request.timeoutInterval = Timeout.longest
      return lock.withLock {
        let session = madeSession()
        let task =
          file.map { session.uploadTask(with: request, fromFile: $0) }
          ?? session.dataTask(with: request)
        exchanges[task.taskIdentifier] = exchange
        return task
      }
    }

    /// The queue the companion's callbacks run on, one at a time.
    var delegateQueue: OperationQueue {
      lock.withLock { madeSession().delegateQueue }
    }

    /// The companion's own session, made on first use; called under `lock`.
    private func madeSession() -> URLSession {
      if let made { return made }
      let queue = OperationQueue()
      queue.maxConcurrentOperationCount = 1
      let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
      made = session
      return session
    }

    private func invalidate() {
      lock.withLock { made }?.finishTasksAndInvalidate()
    }

    private func exchange(_ task: URLSessionTask, ending: Bool = false) -> TaskExchange? {
      lock.withLock {
        ending ? exchanges.removeValue(forKey: task.taskIdentifier) : exchanges[task.taskIdentifier]
      }
    }

    /// Runs `call` with the app's session and its delegate, on that session's delegate queue.
    private func forward(_ call: @escaping @Sendable (URLSession, any URLSessionDelegate) -> Void) {
      guard let owner, let delegate = owner.delegate else { return }
      owner.delegateQueue.addOperation { call(owner, delegate) }
    }

    // MARK: - Callbacks

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
      completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      guard let exchange = exchange(task) else { return completionHandler(request) }
      exchange.urlSession(
        session, task: task, willPerformHTTPRedirection: response, newRequest: request,
        completionHandler: completionHandler)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      didReceive challenge: URLAuthenticationChallenge,
      completionHandler:
        @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
        -> Void
    ) {
      let exchange = exchange(task)
      let failure = challenge.failureResponse as? HTTPURLResponse
      let answer: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void = {
        disposition, credential in
        if disposition == .useCredential, let credential {
          completionHandler(.useCredential, credential)  // sent again with it
        } else if disposition == .cancelAuthenticationChallenge {
          completionHandler(.cancelAuthenticationChallenge, nil)
        } else if let failure, let exchange {
          // Default handling: the 401 is the answer, with its body (already delivered).
          exchange.finish(early: failure)
          completionHandler(.cancelAuthenticationChallenge, nil)
        } else {
          completionHandler(.performDefaultHandling, nil)
        }
      }
      guard let owner, let delegate = owner.delegate as? URLSessionTaskDelegate else {
        return answer(.performDefaultHandling, nil)
      }
      owner.delegateQueue.addOperation {
        delegate.urlSession(owner, task: task, didReceive: challenge, completionHandler: answer)
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
      totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
      exchange(task)?.urlSession(
        session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
        totalBytesExpectedToSend: totalBytesExpectedToSend)
      forward {
        ($1 as? URLSessionTaskDelegate)?.urlSession(
          $0, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
          totalBytesExpectedToSend: totalBytesExpectedToSend)
      }
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      if let exchange = exchange(dataTask) {
        exchange.urlSession(
          session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
      } else {
        completionHandler(.allow)
      }
      forward {
        ($1 as? URLSessionDataDelegate)?.urlSession(
          $0, dataTask: dataTask, didReceive: response, completionHandler: { _ in })
      }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      exchange(dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
      // A callback per piece of the body: no closure made when no delegate will hear it.
      guard owner?.delegate != nil else { return }
      forward {
        ($1 as? URLSessionDataDelegate)?.urlSession($0, dataTask: dataTask, didReceive: data)
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      exchange(task, ending: true)?.urlSession(session, task: task, didCompleteWithError: error)
      forward {
        ($1 as? URLSessionTaskDelegate)?.urlSession($0, task: task, didCompleteWithError: error)
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      didFinishCollecting metrics: URLSessionTaskMetrics
    ) {
      forward {
        ($1 as? URLSessionTaskDelegate)?.urlSession($0, task: task, didFinishCollecting: metrics)
      }
    }
  }
#endif
