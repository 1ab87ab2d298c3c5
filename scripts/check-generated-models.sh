#!/usr/bin/env bash
# Checks `envelope models` the way a user meets it: for every JSON sample under Fixtures/ (one
# model each), for merged samples (envelopes, snake_case, dates, kinds that disagree, nested
# lists; --public and --var; --enums and --require-keys; tagged variants), for the benchmark payloads and for an update-center.json-like
# sample (maps keyed by hundreds of names), it generates models, checks the text
# passes `swift format lint` and is the same on a second run, compiles all of them in a scratch
# package that depends on this one, and decodes every sample with the decoder the file declares
# (`LenientDecoder.forRoot`):
# - where the file names no disagreeing samples: in strict policy with an empty report, and with
#   Foundation's JSONDecoder (.convertFromSnakeCase) when the file needs no date transform;
# - otherwise in lenient policy, where every report entry must be a coercion of a key the
#   generated comments name ("Samples of "key" disagree").
# A file that is not JSON must be refused with its line and column.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
payloads="$repo/../shared/data/payloads"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

swift build --package-path "$repo" --product envelope >/dev/null
envelope="$(swift build --package-path "$repo" --show-bin-path)/envelope"

# name | flags | files...
samples=()
while IFS= read -r file; do
  relative="${file#"$repo/Fixtures/"}"
  samples+=("Fixture_$(printf '%s' "${relative%.json}" | tr -c 'A-Za-z0-9' '_')||$file")
done < <(find "$repo/Fixtures" -name '*.json' ! -name '*.drift.json' | LC_ALL=C sort)
samples+=(
  "DemoUser|--envelope|$repo/Fixtures/demo/user.json"
  "EnvelopeObject|--envelope|$repo/Fixtures/envelopes/code0_object.json $repo/Fixtures/envelopes/code0_message_key.json"
  "EnvelopeArray|--envelope --var|$repo/Fixtures/envelopes/code0_array.json"
  "Drift|--envelope|$repo/Fixtures/envelopes/drift_numbers_as_strings.json $repo/Fixtures/envelopes/drift_id_as_string.json"
  "OrderPage|--envelope --public|$repo/Fixtures/models/orders_page1.json $repo/Fixtures/models/orders_page2.json"
  "RetOrder|--format retStatus,retMsg,retBody,\"000\"|$repo/Fixtures/models/ret_envelope.json"
  "FeedEnums|--enums --require-keys --public|$repo/Fixtures/models/tagged_feed.json"
  "Users|--public --var|$repo/Fixtures/contracts/users/ada.json $repo/Fixtures/contracts/users/bob.json $repo/Fixtures/contracts/users/cy.json"
)
for payload in twitter:Twitter citm_catalog:CitmCatalog canada:Canada github_events:GitHubEvents; do
  file="${payload%%:*}"
  if [ -f "$payloads/$file.json" ]; then
    samples+=("${payload##*:}||$payloads/$file.json")
  else
    echo "SKIPPED $file.json: $payloads is absent"
  fi
done

# A feed shaped like Jenkins' update-center.json: 654 plugins keyed by name must be one
# `[String: Plugin]`, not a struct of 654 properties (checked by size below, and by building).
python3 "$repo/scripts/update-center-sample.py" 654 > "$scratch/update-center.json"
samples+=("UpdateCenter||$scratch/update-center.json")

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
cat > "$main" <<'SWIFT'
import EnvelopeKit
import Foundation

var failures = 0

/// The last key of a report path: `data.orders[1].item_count` → `item_count`.
func lastKey(_ path: String) -> String {
  var text = Substring(path)
  while text.hasSuffix("]"), let open = text.lastIndex(of: "[") { text = text[..<open] }
  return String(text.split(separator: ".").last ?? "")
}

/// Foundation's snake-case conversion, for keys a report may name either way.
func camel(_ key: String) -> String {
  let parts = key.split(separator: "_")
  guard parts.count > 1 else { return key }
  return parts[0].lowercased() + parts.dropFirst().map { $0.capitalized }.joined()
}

/// Decodes a sample as the generated file says: strictly when `named` is empty, else leniently
/// with coercions of the named keys only.
@MainActor func check<T: Decodable>(
  _ type: T.Type, _ sample: String, _ file: String, decoder: (DecodingPolicy) -> LenientDecoder,
  envelope: Bool, named: Set<String>, foundation: Bool
) {
  do {
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let policy: DecodingPolicy = named.isEmpty ? .strict : .lenient
    let report =
      envelope
      ? try decoder(policy).decodeEnvelopeWithReport(T.self, from: data).report
      : try decoder(policy).decodeWithReport(T.self, from: data).report
    for entry in report.entries {
      let key = lastKey(entry.path)
      guard entry.kind == .coerced, named.contains(key) || named.map(camel).contains(key) else {
        throw CheckFailure(description: "unnamed report entry: \(entry)")
      }
    }
    if foundation {
      let json = JSONDecoder()
      json.keyDecodingStrategy = .convertFromSnakeCase
      if envelope {
        _ = try json.decode(RootModel<T>.self, from: data).validate()
      } else {
        _ = try json.decode(T.self, from: data)
      }
    }
    let how = named.isEmpty ? "strictly" : "leniently, \(report.entries.count) named coercions"
    print("ok: \(sample) decodes \((file as NSString).lastPathComponent) \(how)")
  } catch {
    print("FAILED: \(sample) on \(file): \(error)")
    failures += 1
  }
}

struct CheckFailure: Error, CustomStringConvertible { var description: String }
SWIFT

for sample in "${samples[@]}"; do
  IFS='|' read -r name flags files <<< "$sample"
  generated="$scratch/$name.generated.swift"
  # shellcheck disable=SC2086
  if ! "$envelope" models $files $flags --name "$name" > "$generated" 2> "$scratch/error"; then
    if grep -qE "^$files:[0-9]+:[0-9]+: " "$scratch/error"; then
      echo "ok: $name is not JSON and is refused with its position: $(cat "$scratch/error")"
      continue
    fi
    echo "FAILED: $name: $(cat "$scratch/error")"
    exit 1
  fi
  # shellcheck disable=SC2086
  "$envelope" models $files $flags --name "$name" | cmp -s - "$generated" \
    || { echo "FAILED: $name: output differs between two runs"; exit 1; }
  swift format lint --strict --configuration "$repo/.swift-format" "$generated"
  if [ "$name" = UpdateCenter ] && ! grep -q 'let plugins: \[String: Plugin\]' "$generated"; then
    echo "FAILED: UpdateCenter: plugins is not a [String: Plugin] ($(wc -l < "$generated") lines)"
    exit 1
  fi
  # The header names the decoder and the root type: `LenientDecoder.forX().decode(X.self`.
  header="$(grep -m1 '^//   let value = try LenientDecoder\.' "$generated")"
  factory="$(sed -E 's/.*LenientDecoder\.([A-Za-z0-9_]+)\(\).*/\1/' <<< "$header")"
  root="$(sed -E 's/.*\.decode(Envelope)?\(([A-Za-z0-9_]+)\.self.*/\2/' <<< "$header")"
  envelope_flag=false
  if [[ "$header" == *decodeEnvelope* ]]; then envelope_flag=true; fi
  # Comment lines joined first: a long key may start a comment's second line.
  named="$(grep -E '^ *// ' "$generated" | sed -E 's|^ *// ?||' | tr '\n' ' ' \
    | grep -oE 'Samples (of "([^"\\]|\\.)*"|at the top level) disagree' \
    | sed -E 's/^Samples of (".*") disagree$/\1/;s/^Samples at the top level disagree$/""/' \
    | paste -sd, - || true)"
  foundation=true
  if grep -q 'decoder.transform(' "$generated" || [ -n "$named" ]; then foundation=false; fi
  # Foundation's RootModel reads code/msg/data only.
  if grep -q 'base.envelope = EnvelopeFormat(' "$generated"; then foundation=false; fi
  # Types in an enum of their own (names repeat across samples); the decoder's extension at file
  # scope, its types qualified.
  {
    echo "import EnvelopeKit"
    echo "import Foundation"
    echo ""
    echo "enum Sample_$name {"
    sed -n '/^extension LenientDecoder {/q;p' "$generated" | grep -v '^import ' | sed 's/^/  /;s/^  $//'
    echo "}"
    sed -n '/^extension LenientDecoder {/,$p' "$generated" \
      | sed -E "s/decoder\.transform\(([A-Za-z0-9_.]+)\.self/decoder.transform(Sample_$name.\1.self/"
  } > "$scratch/Sources/ModelCheck/$name.swift"
  for file in $files; do
    cat >> "$main" <<SWIFT
check(
  Sample_$name.$root.self, "$name", "$file", decoder: { LenientDecoder.$factory(policy: \$0) },
  envelope: $envelope_flag, named: [$named], foundation: $foundation)
SWIFT
  done
done
# Generated sets as they are (types nested in their roots), in one module beside a
# hand-written `Issue` (Swift Testing has one too): no name may collide.
echo 'struct Issue {}' > "$scratch/Sources/ModelCheck/Issue.swift"
for together in \
  "TogetherIssues|--envelope|$repo/Fixtures/models/issue_page.json" \
  "TogetherUser|--envelope|$repo/Fixtures/contracts/snake/user.json" \
  "TogetherRet|--format retStatus,retMsg,retBody,\"000\"|$repo/Fixtures/models/ret_envelope.json"; do
  IFS='|' read -r name flags file <<< "$together"
  # shellcheck disable=SC2086
  "$envelope" models "$file" $flags --name "$name" > "$scratch/Sources/ModelCheck/$name.swift"
  cat >> "$main" <<SWIFT
check(
  $name.self, "$name", "$file", decoder: { LenientDecoder.for$name(policy: \$0) },
  envelope: true, named: [], foundation: false)
SWIFT
done
# Two sets of one API on one decoder, composed either way round (as on one provider): each
# sample decodes strictly, its dates read by the transforms its set added.
for shared in \
  "LenientDecoder.forTogetherUser(.forTogetherIssues(policy: \$0))" \
  "LenientDecoder.forTogetherIssues(.forTogetherUser(policy: \$0))"; do
  cat >> "$main" <<SWIFT
check(
  TogetherIssues.self, "shared decoder", "$repo/Fixtures/models/issue_page.json",
  decoder: { $shared }, envelope: true, named: [], foundation: false)
check(
  TogetherUser.self, "shared decoder", "$repo/Fixtures/contracts/snake/user.json",
  decoder: { $shared }, envelope: true, named: [], foundation: false)
SWIFT
done
echo 'exit(failures == 0 ? 0 : 1)' >> "$main"

swift build --package-path "$scratch" 2>&1 | grep -E "error:|warning: |Build complete" || true
test -x "$(swift build --package-path "$scratch" --show-bin-path)/ModelCheck"
"$(swift build --package-path "$scratch" --show-bin-path)/ModelCheck"
