import Foundation

// libFuzzer entry for the stream framers: the first bytes pick the array's path and the chunk
// sizes, the rest is the document. The oracle (Tests/EnvelopeKitTests/Support/FramingOracle.swift)
// is the check: the framed elements decoded as JSON equal the whole-body strict decode at the
// path (or both throw), and SSE events and JSON lines do not depend on the chunking. A broken
// promise stops the run with the input that shows it. Built by Fuzz/run.sh.

private let paths: [JSONPath] = ["data", "data.items", "items", "data.0", .root, "a.b.c", "code"]

/// libFuzzer's entry: aborts when the framed elements differ from the whole-body decode.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFraming(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  defer { SpareBuffer.freeThreadSpares() }  // LeakSanitizer checks each input
  let bytes = Array(
    UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
  guard bytes.count >= 3 else { return 0 }
  let path = paths[Int(bytes[0]) % paths.count]
  // Sizes 0...15 (an empty chunk now and then), from two bytes: four sizes, cycled.
  let sizes = [bytes[1] & 0x0F, bytes[1] >> 4, bytes[2] & 0x0F, bytes[2] >> 4].map { Int($0) }
  let document = Array(bytes[3...])
  let cycled = sizes.allSatisfy { $0 == 0 } ? [1] : sizes
  if let violation = FramingOracle.checkElements(document, at: path, sizes: cycled) {
    fatalError("The framing promise is broken: \(violation)")
  }
  if let violation = FramingOracle.checkBatches(document, at: path, sizes: cycled) {
    fatalError("The batch promise is broken: \(violation)")
  }
  if let violation = FramingOracle.checkChunking(document, sizes: cycled) {
    fatalError("The chunking promise is broken: \(violation)")
  }
  return 0
}
