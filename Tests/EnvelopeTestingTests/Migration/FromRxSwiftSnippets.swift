import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// The snippets of "Migrating from RxSwift to async/await" (EnvelopeNetworking.docc/
// MigratingFromRxSwift.md). `MigrationGuideTests` checks that every swift block of the article
// is quoted from these files; the tests below run the snippets over an in-memory server.

/// The types the RxSwift guide's snippets use.
enum RxGuide {
  struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
  }

  struct Post: Codable, Equatable, Sendable {
    var title: String
  }

  enum FeedAPI: TargetType {
    case user(id: Int)
    case feed
    case archive
    case slow

    var baseURL: URL { URL(string: "https://feed.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String {
      switch self {
      case .user(let id): "/users/\(id)"
      case .feed: "/feed"
      case .archive: "/archive"
      case .slow: "/slow"
      }
    }
  }

  // MARK: - A list driven by cache then network

  /// What a screen shows; the view reads `rows` (no UIKit or SwiftUI needed here).
  @MainActor final class FeedViewModel {
    private(set) var rows: [String] = []
    private(set) var isStale = false
    private(set) var errorText: String?
    private let provider: Provider<FeedAPI>
    private var loading: Task<Void, Never>?

    init(provider: Provider<FeedAPI>) { self.provider = provider }

    /// Starts a load, cancelling the one in flight (flatMapLatest).
    func load() {
      loading?.cancel()
      loading = Task { await refresh() }
    }

    /// The disposeBag going away: the request in flight ends.
    func cancel() { loading?.cancel() }

    func refresh() async {
      do {
        for try await page in provider.cachedThenNetwork(.feed, as: [Post].self) {
          rows = page.value.map(\.title)
          isStale = page.source != .network
        }
      } catch is CancellationError {
        // cancelled: keep what is shown
      } catch {
        errorText = "\(error)"
      }
    }
  }

  // MARK: - Download progress

  @MainActor final class DownloadViewModel {
    private(set) var fraction = 0.0
    private(set) var file: URL?
    private(set) var steps: [Double] = []

    func download(with provider: Provider<FeedAPI>, to destination: URL) async throws {
      for try await event in provider.download(.archive, to: destination) {
        switch event {
        case .progress(let done, let total?):
          fraction = Double(done) / Double(total)
          steps.append(fraction)
        case .progress:
          break  // no Content-Length: show an indeterminate bar
        case .finished:
          file = destination
        }
      }
    }
  }
}

extension RxGuide.FeedViewModel {
  /// Waits for the load in flight, for tests.
  func loaded() async { await loading?.value }
}

@Suite struct MigrationRxSwiftSnippets {
  typealias User = RxGuide.User
  typealias Post = RxGuide.Post

  static let userBody = #"{"code":0,"msg":"ok","data":{"id":7,"name":"Ada"}}"#
  static let feedBody = #"{"code":0,"data":[{"title":"One"},{"title":"Two"}]}"#

  func makeProvider(feed: [String] = [feedBody]) -> (Provider<RxGuide.FeedAPI>, CannedTransport) {
    let transport = CannedTransport([
      "/users/7": [.init(body: Self.userBody)],
      "/feed": feed.map { .init(body: $0) },
      "/archive": [.init(body: String(repeating: "x", count: 1000))],
      "/slow": [.init(body: Self.feedBody, delay: .seconds(10))],
    ])
    return (Provider(transport: transport, cache: MemoryCache()), transport)
  }

  @Test func requestAndMapAreOneAwait() async throws {
    let (provider, _) = makeProvider()
    // provider.rx.request(.user(id: 7)).map(User.self, atKeyPath: "data")
    let user = try await provider.request(.user(id: 7), as: User.self)
    // Single.zip(user, feed)
    async let me = provider.request(.user(id: 7), as: User.self)
    async let feed = provider.request(.feed, as: [Post].self)
    let (someone, posts) = try await (me, feed)

    #expect(user == User(id: 7, name: "Ada"))
    #expect(someone == user)
    #expect(posts.map(\.title) == ["One", "Two"])
  }

  @Test @MainActor func aListFromCacheThenNetwork() async throws {
    let (provider, _) = makeProvider(feed: [
      Self.feedBody, #"{"code":0,"data":[{"title":"Three"}]}"#,
    ])
    let model = RxGuide.FeedViewModel(provider: provider)
    model.load()
    await model.loaded()
    #expect(model.rows == ["One", "Two"])
    #expect(!model.isStale)

    // The second load shows the cached rows first, then the network's.
    model.load()
    await model.loaded()
    #expect(model.rows == ["Three"])
    #expect(!model.isStale)
    #expect(model.errorText == nil)
  }

  @Test func theCachedValueComesFirst() async throws {
    let (provider, transport) = makeProvider(feed: [
      Self.feedBody, #"{"code":0,"data":[{"title":"Three"}]}"#,
    ])
    for try await _ in provider.cachedThenNetwork(.feed, as: [Post].self) {}
    var sources: [Bool] = []
    for try await page in provider.cachedThenNetwork(.feed, as: [Post].self) {
      sources.append(page.source == .network)
    }
    #expect(sources == [false, true])
    #expect(transport.requestedPaths == ["/feed", "/feed"])
  }

  @Test func cancellingTheTaskEndsTheRequest() async throws {
    let (provider, _) = makeProvider()
    // let disposable = provider.rx.request(.slow).subscribe(...); disposable.dispose()
    let task = Task { try await provider.request(.slow, as: [Post].self) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test @MainActor func aCancelledLoadLeavesTheRowsAlone() async throws {
    let transport = CannedTransport(["/feed": [.init(body: Self.feedBody, delay: .seconds(10))]])
    let provider = Provider<RxGuide.FeedAPI>(transport: transport, cache: MemoryCache())
    let model = RxGuide.FeedViewModel(provider: provider)
    model.load()
    model.cancel()
    await model.loaded()
    #expect(model.rows.isEmpty)
    #expect(model.errorText == nil)
  }

  @Test @MainActor func downloadProgressDrivesABar() async throws {
    let (provider, _) = makeProvider()
    let folder = migrationFolder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let destination = folder.appendingPathComponent("archive.bin")

    let model = RxGuide.DownloadViewModel()
    try await model.download(with: provider, to: destination)

    #expect(model.steps == [0.25, 0.5, 0.75, 1.0])
    #expect(model.file == destination)
    #expect(try Data(contentsOf: destination).count == 1000)
  }
}
