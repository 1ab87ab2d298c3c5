#!/usr/bin/env bash
# Fuzzes the reader and the decoder with libFuzzer + AddressSanitizer.
# Usage: bash Fuzz/run.sh [seconds]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
mkdir -p Fuzz/out Fuzz/corpus-run
cp Fixtures/envelopes/*.json Fuzz/corpus-run/ 2>/dev/null || true
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name EnvelopeKit -package-name EnvelopeKit \
  Sources/EnvelopeKit/*/*.swift Fuzz/FuzzTarget.swift -o Fuzz/out/fuzz-envelopekit
Fuzz/out/fuzz-envelopekit Fuzz/corpus-run -max_total_time="$seconds" -max_len=4096 \
  -artifact_prefix=Fuzz/out/
