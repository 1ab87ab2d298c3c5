import Foundation

// libFuzzer entry: the fuzzer's bytes drive the generator of `EncoderDifferentialTests`
// (Tests/EnvelopeKitTests/Support/EncodingOracle.swift) and its oracle is the check: ModelEncoder
// against Foundation's JSONEncoder, byte for byte, errors included, the round trip of the
// generated models through a mapped decoder, and of generated keys through
// ModelEncoder(matching:) (KeyRoundTripOracle.swift), the text of generated Doubles and Floats
// (FloatingPointOracle.swift). A broken promise stops the run with its input.
// Built by Fuzz/run.sh.

/// libFuzzer's entry: aborts when the encoding oracle fails on the model the bytes generate.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEncoding(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  defer { SpareBuffer.freeThreadSpares() }  // LeakSanitizer checks each input
  let bytes = Array(
    UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
  var source = ByteSource(bytes)
  var outcome = EncodingOracle.Outcome()
  EncodingOracle.runOne(&source, into: &outcome)
  if let violation = outcome.violations.first {
    fatalError("The promise is broken: \(violation)")
  }
  return 0
}
