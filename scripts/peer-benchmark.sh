#!/usr/bin/env bash
# The peer benchmark: EnvelopeKit (this checkout) against ReerJSON 1.0.2 (yyjson 0.12.0 in C) and
# Foundation, in one process, release build; prints markdown tables of ratios against Foundation.
#
#   bash scripts/peer-benchmark.sh [REERJSON_REPO [YYJSON_REPO]] [-- BENCHMARK_FLAGS...]
#
# REERJSON_REPO and YYJSON_REPO are git URLs or paths of local clones (bare or not); they default to
# the GitHub URLs. Nothing is fetched by SwiftPM itself: both are cloned into a scratch package
# outside the sources ($PEER_BUILD_DIR, by default .build/peer in this checkout, ignored by git),
# whose yyjson URL is mirrored (`swift package config set-mirror`) to the local clone, so the build
# works offline once the two repositories are on the machine. EnvelopeKit is a path dependency on
# this checkout: its Package.swift stays dependency-free. The benchmark's sources are
# Benchmarks/Peer/Sources/PeerBenchmark plus the model files of Sources/EnvelopeBenchmarks,
# linked in at build time, and a list of the API model sets generated from the headers of
# Sources/EnvelopeBenchmarks/APIModels/*.swift.
#
# Environment: REERJSON_REF (1.0.2), YYJSON_VERSION (0.12.0, what ReerJSON 1.0.2 pins),
# PEER_BUILD_DIR, PEER_PAYLOADS (../shared/data/payloads), PEER_BUILD_LOCK (a file to `flock`
# around the build only, e.g. /work/notes/build.lock).
# BENCHMARK_FLAGS: --runs N (5), --quick, --only decode,small,api,encode,reader, --table FILE.
# The table is also written to $PEER_BUILD_DIR/peer-table.md.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
reer_source=https://github.com/reers/ReerJSON.git
yyjson_source=https://github.com/ibireme/yyjson.git
if [[ $# -gt 0 && $1 != "--" ]]; then reer_source=$1; shift; fi
if [[ $# -gt 0 && $1 != "--" ]]; then yyjson_source=$1; shift; fi
if [[ $# -gt 0 && $1 == "--" ]]; then shift; fi
reer_ref=${REERJSON_REF:-1.0.2}
yyjson_version=${YYJSON_VERSION:-0.12.0}
scratch=${PEER_BUILD_DIR:-$root/.build/peer}
payloads=${PEER_PAYLOADS:-$root/../shared/data/payloads}
yyjson_url=https://github.com/ibireme/yyjson.git # the URL ReerJSON's manifest names

# A fresh clone when the source changed, else the one already there; checked out at `ref`.
clone() {
  local source=$1 destination=$2 ref=$3
  if [[ -d $destination/.git ]] &&
    [[ $(git -C "$destination" remote get-url origin) == "$source" ]]; then
    git -C "$destination" fetch --quiet --tags origin
  else
    rm -rf "$destination"
    git clone --quiet "$source" "$destination"
  fi
  git -C "$destination" checkout --quiet --detach "$ref"
}

mkdir -p "$scratch/deps"
scratch=$(cd "$scratch" && pwd)
clone "$reer_source" "$scratch/deps/ReerJSON" "$reer_ref"
clone "$yyjson_source" "$scratch/deps/yyjson" "$yyjson_version"

# The manifest. EnvelopeKit's package identity is the name of this checkout's directory.
identity=$(basename "$root")
cat >"$scratch/Package.swift.new" <<EOF
// swift-tools-version: 6.0
// Written by scripts/peer-benchmark.sh; do not edit.
import PackageDescription

let package = Package(
  name: "PeerBenchmark",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  dependencies: [
    .package(path: "$root"),
    .package(path: "deps/ReerJSON"),
    .package(url: "$yyjson_url", exact: "$yyjson_version"),
  ],
  targets: [
    .executableTarget(
      name: "PeerBenchmark",
      dependencies: [
        .product(name: "EnvelopeKit", package: "$identity"),
        .product(name: "ReerJSON", package: "ReerJSON"),
        .product(name: "yyjson", package: "yyjson"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
EOF
# Rewritten only when changed, so that SwiftPM keeps its build.
cmp -s "$scratch/Package.swift.new" "$scratch/Package.swift" 2>/dev/null ||
  mv "$scratch/Package.swift.new" "$scratch/Package.swift"
rm -f "$scratch/Package.swift.new"
swift package --package-path "$scratch" config set-mirror \
  --original "$yyjson_url" --mirror "$scratch/deps/yyjson"

# SwiftPM kept the old file list of the EnvelopeKit dependency after a file was added to it
# ("cannot find 'DecimalDigits' in scope"): the scratch build starts again when that list
# changes. The first run only records it.
listing=$(cd "$root" && find Sources/EnvelopeKit -name '*.swift' | LC_ALL=C sort | cksum)
if [[ -f $scratch/sources.cksum && $(cat "$scratch/sources.cksum") != "$listing" ]]; then
  rm -rf "$scratch/.build"
fi
echo "$listing" >"$scratch/sources.cksum"

# The sources: links to this checkout's files, and the generated list of API rows (rewritten only
# when changed, as the manifest).
sources=$scratch/Sources/PeerBenchmark
mkdir -p "$sources"
find "$sources" -mindepth 1 ! -name APIRows.swift -delete
benchmarks=$root/Sources/EnvelopeBenchmarks
for file in "$root"/Benchmarks/Peer/Sources/PeerBenchmark/*.swift \
  "$benchmarks"/{Timing,TwitterModels,CitmModels,CanadaModels,SmallEnvelopeModels}.swift \
  "$benchmarks"/APIModels/*.swift; do
  ln -s "$file" "$sources/"
done
{
  echo "// Written by scripts/peer-benchmark.sh from the headers of APIModels/*.swift."
  echo "@MainActor func apiRows() throws {"
  # The header scripts/generate-api-models.sh writes:
  # // `envelope models FILE --name ROOT`, read with `NAMESPACE.decoder()`.
  pattern='envelope models ([^ ]+) --name ([A-Za-z0-9_]+)`, read with `([A-Za-z0-9_]+)\.decoder\(\)'
  for file in "$benchmarks"/APIModels/*.swift; do
    if [[ $(head -5 "$file") =~ $pattern ]]; then
      echo "  try apiRow(${BASH_REMATCH[3]}.${BASH_REMATCH[2]}.self, \"${BASH_REMATCH[1]}\", ${BASH_REMATCH[3]}.decoder)"
    else
      echo "peer-benchmark: no generated-models header in $file; its row is left out" >&2
    fi
  done
  echo "}"
} >"$scratch/APIRows.swift.new"
cmp -s "$scratch/APIRows.swift.new" "$sources/APIRows.swift" ||
  mv "$scratch/APIRows.swift.new" "$sources/APIRows.swift"
rm -f "$scratch/APIRows.swift.new"

build=(swift build -c release --package-path "$scratch")
if [[ -n ${PEER_BUILD_LOCK:-} ]]; then build=(flock "$PEER_BUILD_LOCK" "${build[@]}"); fi
"${build[@]}"

resolved=$(sed -n '/"identity" : "yyjson"/,/version/p' "$scratch/Package.resolved" |
  sed -n 's/.*"version" : "\(.*\)".*/\1/p')
label="EnvelopeKit $(git -C "$root" rev-parse --short HEAD)"
label+=" ($(git -C "$root" rev-parse --abbrev-ref HEAD)$(git -C "$root" diff --quiet HEAD -- Sources || echo ', uncommitted changes'))"
label+=", ReerJSON $reer_ref ($(git -C "$scratch/deps/ReerJSON" rev-parse --short HEAD)), yyjson ${resolved:-?}"
label+=", $(date -u '+%Y-%m-%d %H:%M UTC')"
"$scratch/.build/release/PeerBenchmark" --payloads "$payloads" --label "$label" \
  --table "$scratch/peer-table.md" "$@"
