import Foundation

// libFuzzer entry: the fuzzer's bytes drive the generator of `ReportInvariantTests`
// (Tests/EnvelopeKitTests/Support/PromiseGenerator.swift) and its oracle is the check: lenient
// against strict, strict against Foundation's JSONDecoder, the depth limit against the input.
// The same bytes then drive an envelope of `EnvelopeDifferentialTests`, checked by its oracle
// (`EnvelopeOracle`: decodeEnvelope, RootModel by our decoder and by JSONDecoder, one answer).
// A broken promise stops the run with the input that shows it. Built by Fuzz/run.sh.

/// libFuzzer's entry: aborts when the promise oracle (lenient, strict, Foundation) fails on
/// the model and document the bytes generate, or the envelope oracle on their envelope.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPromise(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  defer { SpareBuffer.freeThreadSpares() }  // LeakSanitizer checks each input
  let bytes = Array(
    UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
  var generator = PromiseGenerator(ByteSource(bytes))
  var outcome = PromiseOracle.Outcome()
  PromiseOracle.runOne(&generator, into: &outcome)
  if let violation = outcome.violations.first {
    fatalError("The promise is broken: \(violation)")
  }
  var source = ByteSource(bytes)
  var envelopes = EnvelopeOracle.Outcome()
  EnvelopeOracle.runOne(&source, into: &envelopes)
  if let violation = envelopes.violations.first {
    fatalError("The envelope promise is broken: \(violation)")
  }
  return 0
}
