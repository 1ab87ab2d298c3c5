import EnvelopeKit
import EnvelopeNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Puts a good envelope in place of a failed response (a plugin's `process` may answer for a
/// failure, as an offline fallback does).
private struct Mending: Plugin {
  /// The good body, in the target's format.
  var body: String
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    guard case .failure(let error) = result, let failed = error.response else { return result }
    var mended = failed
    mended.data = Data(body.utf8)
    return .success(mended)
  }
}

/// A body whose envelope cannot be read (not JSON, cut short, nested past the limit) is a
/// failed response: the plugins' `didReceive` and `process` see `.failure(.decoding)`, as they
/// see a status the target does not accept, and a plugin may answer for it. A body that is an
/// envelope whose value does not fit the type still fails after the plugins.
@Suite struct MalformedBodyTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var body: String
    var format: EnvelopeFormat?
    var testDescription: String { name }
  }

  static let malformed: [Case] = [
    Case(name: "HTML", body: "<html><body>maintenance</body></html>"),
    Case(name: "cut short", body: #"{"code":0,"msg":"ok","data":{"id":7,"#),
    Case(name: "text after the envelope", body: #"{"code":0,"data":{"id":7,"name":"a"}} and more"#),
    Case(name: "nested past the limit", body: String(repeating: "[", count: 600)),
    Case(name: "plain, not JSON", body: "Service Unavailable", format: .plain),
  ]

  @Test(arguments: malformed) func aMalformedBodyReachesThePluginsAsAFailure(_ test: Case)
    async throws
  {
    let seen = SeenResults()
    let provider = Provider<BodyStub>(plugins: [seen], stub: .immediate)
    let target = BodyStub(body: test.body, envelope: test.format)
    do {
      _ = try await provider.request(target, as: DemoUser.self)
      Issue.record("a malformed body decoded")
    } catch ProviderError.decoding(_, let response) {
      #expect(String(decoding: response.data, as: UTF8.self) == test.body)
    }
    guard case .failure(.decoding(_, let response)) = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
    #expect(response.statusCode == 200)
    #expect(seen.receivedAll.count == 1)
    #expect(seen.retriedAll.count == 1)
  }

  @Test(arguments: malformed) func aPluginMayAnswerForAMalformedBody(_ test: Case) async throws {
    let mended =
      test.format != nil  // the plain case
      ? #"{"id":7,"name":"Mended"}"# : #"{"code":0,"msg":"ok","data":{"id":7,"name":"Mended"}}"#
    let provider = Provider<BodyStub>(plugins: [Mending(body: mended)], stub: .immediate)
    let user = try await provider.request(
      BodyStub(body: test.body, envelope: test.format), as: DemoUser.self)
    #expect(user == DemoUser(id: 7, name: "Mended"))
  }

  /// The value's own decoding error (the envelope was read, its data is not a `DemoUser`) still
  /// comes after the plugins, which saw the response.
  @Test func aValueThatDoesNotFitFailsAfterThePlugins() async throws {
    let seen = SeenResults()
    let provider = Provider<BodyStub>(
      decoder: LenientDecoder(policy: .strict), plugins: [seen], stub: .immediate)
    let target = BodyStub(body: #"{"code":0,"msg":"ok","data":{"id":"abc","name":"x"}}"#)
    await #expect(throws: ProviderError.self) {
      try await provider.request(target, as: DemoUser.self)
    }
    guard case .success(let response) = seen.receivedAll.first else {
      Issue.record("didReceive saw \(seen.receivedAll)")
      return
    }
    #expect(response.envelopeStatus?.isSuccess == true)
  }
}

/// Hands a failed response on as a success, body and all (a plugin that accepts whatever the
/// server said, as an offline fallback may).
private struct Accepting: Plugin {
  func process(_ result: Result<Response, ProviderError>, target: any TargetType) async
    -> Result<Response, ProviderError>
  {
    guard case .failure(let error) = result, let failed = error.response else { return result }
    return .success(failed)
  }
}

extension MalformedBodyTests {
  /// A failed body a plugin hands on as a success is read again by the same rules: the call
  /// fails with the provider's error for it, never with a `CancellationError` it was not given.
  @Test(arguments: [
    (#"<html>maintenance</html>"#, "decoding"),
    (#"{"code":0,"msg":"ok","data":{"id":7,"#, "decoding"),
    (#"{"code":40001,"msg":"phone invalid","data":null}"#, "business"),
  ])
  func aFailedBodyAPluginHandsOnAsItIsFailsAgainByTheSameRules(_ body: String, _ kind: String)
    async throws
  {
    let provider = Provider<BodyStub>(plugins: [Accepting()], stub: .immediate)
    do {
      _ = try await provider.request(BodyStub(body: body), as: DemoUser.self)
      Issue.record("decoded")
    } catch ProviderError.decoding {
      #expect(kind == "decoding")
    } catch ProviderError.business {
      #expect(kind == "business")
    } catch {
      Issue.record("threw \(type(of: error)): \(error)")
    }
  }
}
