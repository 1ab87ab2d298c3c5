import Foundation

// libFuzzer entry: the bytes through the optimized JSONScanner and through ReferenceScanner
// (Tests/EnvelopeKitTests/Support), which must give the same tape (every field of every token)
// or the same error, with and without trailing commas, at a small and the default depth limit;
// every scanned string must be valid UTF-8 as copied (`ScannedStringOracle`); and an array of
// strings must read as Foundation's JSONDecoder reads it.
// The bytes are copied into an allocation of exactly their size, so that AddressSanitizer sees
// any read past the end. Built by Fuzz/run.sh together with the EnvelopeKit sources.

/// Every field of `token`, to compare two tapes.
func scannerFields(_ token: JSONToken) -> [UInt32] {
  [
    UInt32(token.kind.rawValue), UInt32(token.flags.rawValue), UInt32(token.shortCount),
    token.start, token.end, token.next,
  ]
}

/// libFuzzer's entry: aborts when the two scanners differ on the bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  defer { SpareBuffer.freeThreadSpares() }  // LeakSanitizer checks each input
  let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
  defer { copy.deallocate() }
  copy.initialize(from: start.assumingMemoryBound(to: UInt8.self), count: count)
  let bytes = UnsafeBufferPointer(start: count == 0 ? nil : copy, count: count)
  for maxDepth in [3, 512] {
    for commas in [false, true] {
      var got: Result<[[UInt32]], JSONReaderError>
      do throws(JSONReaderError) {
        let tape = try JSONScanner(bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: commas)
          .scan()
        got = .success(tape.tokens.map(scannerFields))
        if let base = tape.tokens.baseAddress { SpareTape.giveBack(base, capacity: tape.capacity) }
      } catch {
        got = .failure(error)
      }
      var reference = ReferenceScanner(
        bytes: bytes, maxDepth: maxDepth, allowsTrailingCommas: commas)
      var want: Result<[[UInt32]], JSONReaderError>
      do throws(JSONReaderError) {
        want = .success(try reference.scan().map(scannerFields))
      } catch {
        want = .failure(error)
      }
      if got != want {
        print("scanner differs (depth \(maxDepth), trailing commas \(commas)): \(got) vs \(want)")
        abort()
      }
    }
  }
  // Strings are copied into `String`s without validating their UTF-8 again
  // (`JSONDocument.string(_:)`): each must be valid, and its ASCII flag right.
  if let document = try? JSONDocument(
    data: Data(bytes: start, count: count), maxDepth: 512, allowsTrailingCommas: true),
    let violation = ScannedStringOracle.violation(in: document)
  {
    print("scanned strings: \(violation)")
    abort()
  }
  // Strings read as Foundation reads them (escapes, the run copy between them, UTF-8): an
  // array of strings both decoders read must give the same strings.
  let data = Data(bytes: start, count: count)
  if let want = try? JSONDecoder().decode([String].self, from: data),
    let got = try? LenientDecoder(policy: .strict).decode([String].self, from: data), got != want
  {
    print("strings differ from Foundation's: \(got) vs \(want)")
    abort()
  }
  return 0
}
