import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Keeps the request's `X-Tag` in the call at `willSend`, counts attempts in it, and reads both
/// back at `didReceive` and `retry` (failing the first attempt of every call).
private final class TagKeeper: Plugin, @unchecked Sendable {
  static let tag = CallValueKey<String>()
  let attempts = CallValueKey<Int>()
  private let lock = NSLock()
  private var seen: [String] = []
  var all: [String] { lock.withLock { seen } }

  func willSend(_ request: URLRequest, target: any TargetType) async {
    let call = ProviderCall.current
    if call?.attempt == 1 {
      #expect(call?.value(for: Self.tag) == nil, "a new call starts with no values")
      call?.setValue(request.value(forHTTPHeaderField: "X-Tag"), for: Self.tag)
    }
    call?.setValue((call?.value(for: attempts) ?? 0) + 1, for: attempts)
    // Another task's turn between the hooks: the values stay this call's.
    await Task.yield()
  }

  func didReceive(_ result: Result<Response, ProviderError>, target: any TargetType) async {
    let call = ProviderCall.current
    let tag = call?.value(for: Self.tag) ?? "none"
    let sent = (try? result.get())?.request?.value(forHTTPHeaderField: "X-Tag") ?? tag
    lock.withLock { seen.append(tag == sent ? "same" : "\(tag) != \(sent)") }
  }

  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    guard ProviderCall.current?.attempt == 1, case .success(let response) = result else {
      return result
    }
    return .failure(.status(response))
  }

  func retry(after error: any Error, target: any TargetType, attempt: Int) async -> Duration? {
    // The count kept by the first attempt is seen by the retry: one call, all its attempts.
    ProviderCall.current?.value(for: attempts) == attempt ? .zero : nil
  }
}

private struct Tagged: TargetType {
  var tag: String
  var baseURL: URL { URL(fileURLWithPath: "/") }
  var path: String { "/tagged" }
  var headers: [String: String] { ["X-Tag": tag] }
  var sample: StubResponse { .body(Data(#"{"code":0,"data":1}"#.utf8)) }
}

@Suite struct CallValuesTests {
  @Test func aPluginKeepsItsValuesInTheCallAcrossHooksAndAttempts() async throws {
    let keeper = TagKeeper()
    let provider = Provider<Tagged>(plugins: [keeper], stub: .immediate)
    // 40 calls at once, each kept apart: every retry came (the count was seen), every hook
    // read its own call's tag.
    let values = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<40 {
        group.addTask { try await provider.request(Tagged(tag: "t\(index)"), as: Int.self) }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(values == Array(repeating: 1, count: 40))
    #expect(keeper.all.count == 80)
    #expect(keeper.all.allSatisfy { $0 == "same" }, "\(keeper.all.filter { $0 != "same" })")
  }

  @Test func keysAreTheirOwnAndCallsStartEmpty() {
    let one = CallValueKey<Int>()
    let other = CallValueKey<Int>()
    let call = ProviderCall(id: 1, attempt: 1)
    call.setValue(7, for: one)
    #expect(call.value(for: one) == 7)
    #expect(call.value(for: other) == nil)
    #expect(ProviderCall(id: 1, attempt: 1).value(for: one) == nil)
    call.setValue(nil, for: one)
    #expect(call.value(for: one) == nil)
    // Equality is the call's number and attempt, whatever it keeps.
    #expect(call == ProviderCall(id: 1, attempt: 1))
  }

  @Test func aKeyMadeAfterAnotherWasFreedNeverReadsItsValue() {
    // A key freed while its value is kept: the next key may get its address. The value must
    // stay the freed key's (no key can ask for it again), never the new key's.
    let call = ProviderCall(id: 1, attempt: 1)
    var read: [Int] = []
    for index in 0..<200 {
      do {
        let temporary = CallValueKey<Int>()
        call.setValue(index, for: temporary)
      }
      let fresh = CallValueKey<Int>()
      if let value = call.value(for: fresh) { read.append(value) }
    }
    #expect(read.isEmpty, "new keys read the values of freed keys: \(read.prefix(5))")
  }
}
