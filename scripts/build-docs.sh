#!/usr/bin/env bash
# Builds the DocC catalogs of EnvelopeKit, EnvelopeNetworking and EnvelopeTesting with the
# toolchain's `docc convert`; any warning fails. Output: .build/docs/<Module>.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=.build/docs/symbol-graphs
rm -rf .build/docs && mkdir -p "$graphs"
swift build --scratch-path .build/docs/build \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
status=0
for module in EnvelopeKit EnvelopeNetworking EnvelopeTesting; do
  mkdir -p ".build/docs/$module-graphs"
  cp "$graphs/$module".symbols.json "$graphs/$module"@*.symbols.json ".build/docs/$module-graphs/" 2>/dev/null || true
  log=".build/docs/$module.log"
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir ".build/docs/$module-graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.envelopekit.$module" \
    --output-path ".build/docs/$module.doccarchive" > "$log" 2>&1 || status=1
  if grep -qE "warning|error" "$log"; then
    echo "FAILED: $module documentation has warnings:"
    cat "$log"
    status=1
  else
    echo "ok: $module documentation builds with no warning"
  fi
done
exit $status
