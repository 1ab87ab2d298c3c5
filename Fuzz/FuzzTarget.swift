import Foundation

// libFuzzer entry: the bytes go through the reader and the decoder in both policies.
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(bytes: start, count: count)
  _ = try? JSON(data: data)
  var strict = LenientDecoder()
  strict.policy = .strict
  for decoder in [LenientDecoder(), strict] {
    _ = try? decoder.decodeWithReport(FuzzPage.self, from: data)
    _ = try? decoder.decode([FuzzItem].self, from: data, at: "data.items")
    _ = try? decoder.decodeEnvelope(FuzzPage.self, from: data)
    _ = try? decoder.decode(RootModel<[Int]>.self, from: data)
    _ = try? decoder.decodeEnvelope([FuzzItem].self, from: data, at: "items")
    _ = try? decoder.envelopeStatus(from: data)
    _ = try? decoder.decode(JSON.self, from: data)
  }
  for policy in [DecodingPolicy.lenient, .strict] {
    _ = try? mapped(policy).decodeWithReport([FuzzEvent].self, from: data, at: "data")
  }
  // Foundation's decoder through our Codable conformances (JSON, RootModel, EnvelopeCode).
  _ = try? JSONDecoder().decode(JSON.self, from: data)
  _ = try? JSONDecoder().decode(RootModel<JSON>.self, from: data)
  return 0
}
