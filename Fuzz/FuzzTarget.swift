import Foundation

// libFuzzer entry: the bytes go through the reader and the decoder in both policies. Each
// decoder's decodes reuse the thread's spare tape, document and root decoder; the first decode is
// made again after the others and must give the same value and report (a spare that kept
// anything of an earlier decode shows here, and AddressSanitizer checks every reuse).
// Built by Fuzz/run.sh together with the EnvelopeKit sources.

struct FuzzItem: Codable { var id: Int; var name: String?; var tags: [String]; var price: Double? }
struct FuzzPage: Codable { var items: [FuzzItem]; var total: Int64; var next: URL?; var flag: Bool }
struct FuzzEvent: Codable { var at: Date?; var tags: [String]; var vip: Bool; var raw: JSON? }

/// Key mappings and every built-in transform, in both policies.
func mapped(_ policy: DecodingPolicy) -> LenientDecoder {
  var decoder = LenientDecoder(policy: policy)
  decoder.map(FuzzEvent.self, key: "at", to: "time.at", "when")
  decoder.transform(FuzzEvent.self, key: "at", .iso8601)
  decoder.transform(FuzzEvent.self, key: "tags", .separated(by: ","))
  decoder.transform(FuzzEvent.self, key: "vip", .flag)
  return decoder
}

/// libFuzzer's entry: the bytes through every decoding entry point; aborts when a decode
/// with the reused spare decoder differs from the first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  // LeakSanitizer checks each input: the thread's spares are freed when it ends.
  defer { SpareBuffer.freeThreadSpares() }
  let data = Data(bytes: start, count: count)
  _ = try? JSON(data: data)
  var strict = LenientDecoder()
  strict.policy = .strict
  for decoder in [LenientDecoder(), strict] {
    let first = outcome { try decoder.decodeWithReport(FuzzPage.self, from: data) }
    _ = try? decoder.decode([FuzzItem].self, from: data, at: "data.items")
    _ = try? decoder.decodeEnvelope(FuzzPage.self, from: data)
    _ = try? decoder.decode(RootModel<[Int]>.self, from: data)
    _ = try? decoder.decodeEnvelope([FuzzItem].self, from: data, at: "items")
    _ = try? decoder.envelopeStatus(from: data)
    _ = try? decoder.decode(JSON.self, from: data)
    let again = outcome { try decoder.decodeWithReport(FuzzPage.self, from: data) }
    if again != first {
      fatalError("A decode after others differs from the first: \(first) then \(again)")
    }
  }
  for policy in [DecodingPolicy.lenient, .strict] {
    _ = try? mapped(policy).decodeWithReport([FuzzEvent].self, from: data, at: "data")
  }
  // Foundation's decoder through our Codable conformances (JSON, RootModel, EnvelopeCode).
  _ = try? JSONDecoder().decode(JSON.self, from: data)
  _ = try? JSONDecoder().decode(RootModel<JSON>.self, from: data)
  return 0
}

/// A decode's value and report, or its error, as text to compare.
private func outcome(_ decode: () throws -> Decoded<FuzzPage>) -> String {
  do {
    let decoded = try decode()
    return "\(decoded.value) \(decoded.report)"
  } catch {
    return "error: \(error)"
  }
}
