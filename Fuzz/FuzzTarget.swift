import Foundation

// libFuzzer entry: the bytes go through the reader and the decoder in both policies.
// Built by Fuzz/run.sh together with the EnvelopeKit sources.

struct FuzzItem: Codable { var id: Int; var name: String?; var tags: [String]; var price: Double? }
struct FuzzPage: Codable { var items: [FuzzItem]; var total: Int64; var next: URL?; var flag: Bool }

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
  }
  return 0
}
