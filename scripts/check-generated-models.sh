#!/usr/bin/env bash
# Generates models with `envelope models` for the repository's fixtures and the benchmark
# payloads, compiles them in a scratch package that depends on this one, and decodes every sample
# strictly (LenientDecoder in strict policy, no report entries) and with Foundation's JSONDecoder.
# Also checks the generated text passes `swift format lint` and is the same on a second run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
payloads="$repo/../shared/data/payloads"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

swift build --package-path "$repo" --product envelope >/dev/null
envelope="$(swift build --package-path "$repo" --show-bin-path)/envelope"

# name | flags | files...
samples=(
  "DemoUser|--envelope|$repo/Fixtures/demo/user.json"
  "Repos||$repo/Fixtures/demo/repos.json"
  "EnvelopeObject|--envelope|$repo/Fixtures/envelopes/code0_object.json $repo/Fixtures/envelopes/code0_message_key.json"
  "EnvelopeArray|--envelope|$repo/Fixtures/envelopes/code0_array.json"
  "Drift|--envelope|$repo/Fixtures/envelopes/drift_numbers_as_strings.json $repo/Fixtures/envelopes/drift_id_as_string.json"
)
for payload in twitter:Twitter citm_catalog:CitmCatalog canada:Canada; do
  file="${payload%%:*}"
  if [ -f "$payloads/$file.json" ]; then
    samples+=("${payload##*:}||$payloads/$file.json")
  else
    echo "SKIPPED $file.json: $payloads is absent"
  fi
done

mkdir -p "$scratch/Sources/ModelCheck"
cat > "$scratch/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
  name: "ModelCheck",
  platforms: [.macOS(.v13)],
  dependencies: [.package(path: "$repo")],
  targets: [
    .executableTarget(
      name: "ModelCheck", dependencies: [.product(name: "EnvelopeKit", package: "$(basename "$repo")")])
  ],
  swiftLanguageModes: [.v6]
)
SWIFT

main="$scratch/Sources/ModelCheck/main.swift"
printf 'import EnvelopeKit\nimport Foundation\n\nvar failures = 0\n' > "$main"
for sample in "${samples[@]}"; do
  IFS='|' read -r name flags files <<< "$sample"
  # shellcheck disable=SC2086
  "$envelope" models $files $flags --name "$name" > "$scratch/$name.generated.swift"
  # shellcheck disable=SC2086
  "$envelope" models $files $flags --name "$name" | cmp -s - "$scratch/$name.generated.swift" \
    || { echo "FAILED: $name: output differs between two runs"; exit 1; }
  swift format lint --configuration "$repo/.swift-format" "$scratch/$name.generated.swift"
  {
    printf "import EnvelopeKit\nimport Foundation\n\n"
    echo "enum Sample_$name {"
    grep -v '^import ' "$scratch/$name.generated.swift" | sed 's/^/  /;s/^  $//'
    echo "}"
  } > "$scratch/Sources/ModelCheck/$name.swift"
  for file in $files; do
    if [ "$flags" = "--envelope" ]; then
      strict="try LenientDecoder(policy: .strict).decodeEnvelopeWithReport(Sample_$name.$name.self, from: data)"
      foundation="try JSONDecoder().decode(RootModel<Sample_$name.$name>.self, from: data).validate()"
    else
      strict="try LenientDecoder(policy: .strict).decodeWithReport(Sample_$name.$name.self, from: data)"
      foundation="try JSONDecoder().decode(Sample_$name.$name.self, from: data)"
    fi
    cat >> "$main" <<SWIFT
do {
  let data = try Data(contentsOf: URL(fileURLWithPath: "$file"))
  let decoded = $strict
  precondition(decoded.report.isEmpty)
  _ = $foundation
  print("ok: $name decodes $(basename "$file") strictly and with JSONDecoder")
} catch {
  print("FAILED: $name on $(basename "$file"): \(error)")
  failures += 1
}
SWIFT
  done
done
echo 'exit(failures == 0 ? 0 : 1)' >> "$main"

swift build --package-path "$scratch" 2>&1 | grep -E "error|warning: |Compiling ModelCheck|Build complete" || true
test -x "$(swift build --package-path "$scratch" --show-bin-path)/ModelCheck"
"$(swift build --package-path "$scratch" --show-bin-path)/ModelCheck"
