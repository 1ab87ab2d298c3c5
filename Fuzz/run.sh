#!/usr/bin/env bash
# Fuzzes EnvelopeKit with libFuzzer + AddressSanitizer, one target after the other:
#   envelopekit  raw bytes through the reader and every decoding entry point (no crash, no leak)
#   promise      the bytes drive the generator of ReportInvariantTests; its oracle (lenient vs
#                strict vs Foundation, the depth limit) is the check; then they drive an
#                envelope of EnvelopeDifferentialTests, checked by its oracle (decodeEnvelope,
#                RootModel by our decoder and by JSONDecoder: one answer)
#   encoding     the bytes drive the generator of EncoderDifferentialTests; its oracle
#                (ModelEncoder vs JSONEncoder byte for byte, the mapped round trip, keys of every
#                case style through ModelEncoder(matching:), generated numbers' shortest text)
#                is the check
#   framing      the bytes pick a path, chunk sizes and a document; its oracle (the elements
#                framed in those chunks equal the whole-body decode at the path; SSE events and
#                JSON lines do not depend on the chunking) is the check
#   scanner      raw bytes through JSONScanner, optimized, and through ReferenceScanner (the
#                reader before its main loop kept its state in locals): the same tape or the
#                same error, with and without trailing commas, at two depth limits; an array
#                of strings that Foundation's JSONDecoder reads must read the same (escapes)
# Usage: bash Fuzz/run.sh [seconds per target] [target...]   (default 60, every target)
# Each target's corpus is kept in git (Fuzz/corpus/TARGET, minimised with -merge=1), so runs
# spread over sessions build on each other; a run adds its new inputs there, to commit.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(envelopekit promise encoding framing scanner); fi
# The stack guard reads the real stack; ASan's fake stacks would hide it (see StackGuard.swift).
export ASAN_OPTIONS="detect_stack_use_after_return=0:${ASAN_OPTIONS:-}"
# A thread's spare buffers (tape, document, root decoder) live until the thread ends, which
# LeakSanitizer would count as a leak: every target frees them after each input
# (`SpareBuffer.freeThreadSpares()`), so each input's decodes run with them and are leak-checked.
# libFuzzer reports the crash itself; Swift's backtracer would stall on symbolication.
export SWIFT_BACKTRACE="enable=no"
mkdir -p Fuzz/out
build() {
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name EnvelopeKit \
    -package-name EnvelopeKit "$@"
}
for target in "${targets[@]}"; do
  case "$target" in
  envelopekit)
    build Sources/EnvelopeKit/*/*.swift Fuzz/FuzzTarget.swift -o Fuzz/out/fuzz-envelopekit
    seeds=Fixtures/envelopes
    ;;
  promise)
    build -D FUZZING Sources/EnvelopeKit/*/*.swift Fuzz/PromiseFuzzTarget.swift \
      Tests/EnvelopeKitTests/Support/PromiseGenerator.swift \
      Tests/EnvelopeKitTests/Support/PromiseOracle.swift \
      Tests/EnvelopeKitTests/Support/EnvelopeOracle.swift \
      Tests/EnvelopeKitTests/Support/SeededGenerator.swift -o Fuzz/out/fuzz-promise
    seeds=
    ;;
  encoding)
    build -D FUZZING Sources/EnvelopeKit/*/*.swift Fuzz/EncodingFuzzTarget.swift \
      Tests/EnvelopeKitTests/Support/EncodingOracle.swift \
      Tests/EnvelopeKitTests/Support/FloatingPointOracle.swift \
      Tests/EnvelopeKitTests/Support/KeyRoundTripOracle.swift \
      Tests/EnvelopeKitTests/Support/PromiseGenerator.swift \
      Tests/EnvelopeKitTests/Support/PromiseOracle.swift \
      Tests/EnvelopeKitTests/Support/SeededGenerator.swift -o Fuzz/out/fuzz-encoding
    seeds=
    ;;
  framing)
    build -D FUZZING Sources/EnvelopeKit/*/*.swift Fuzz/FramingFuzzTarget.swift \
      Tests/EnvelopeKitTests/Support/FramingOracle.swift -o Fuzz/out/fuzz-framing
    seeds=Fixtures/envelopes
    ;;
  scanner)
    build -D FUZZING Sources/EnvelopeKit/*/*.swift Fuzz/ScannerFuzzTarget.swift \
      Tests/EnvelopeKitTests/Support/ReferenceScanner.swift \
      Tests/EnvelopeKitTests/Support/ScannedStringOracle.swift -o Fuzz/out/fuzz-scanner
    seeds=Fixtures/envelopes
    ;;
  *)
    echo "unknown target $target" >&2
    exit 2
    ;;
  esac
  corpus="Fuzz/corpus/$target"
  mkdir -p "$corpus"
  echo "== fuzz $target for $seconds s"
  "Fuzz/out/fuzz-$target" "$corpus" $seeds -max_total_time="$seconds" -max_len=4096 \
    -artifact_prefix="Fuzz/out/$target-" -print_final_stats=1 2>&1 | tail -n 25
  test "${PIPESTATUS[0]}" -eq 0
done
