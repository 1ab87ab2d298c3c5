#!/usr/bin/env bash
# Retains, releases and mallocs per call of one `--profile-small` loop, counted with perf
# uprobes. Unlike a timing, the count is the same on every run, so it compares two builds on a
# noisy machine (needs perf and root; Linux only).
#
#   scripts/count-per-call.sh user|page|struct|struct-page|provider|provider-page|status|empty [binary]
#
# The binary defaults to .build/release/EnvelopeBenchmarks (build it with -c release first).
set -euo pipefail
what=${1:?usage: scripts/count-per-call.sh user|page|struct|struct-page|provider|provider-page|status|empty [binary]}
binary=${2:-.build/release/EnvelopeBenchmarks}
core=$(ldd "$binary" | awk '/libswiftCore/ {print $3}')
libc=$(ldd "$binary" | awk '$1 == "libc.so.6" {print $3}')
# Probes named after this run (perf probes are system-wide): another run's, at once on a shared
# machine, are neither reused nor removed.
tag=c$$
cleanup() {
  perf probe -q -d "probe_libswiftCore:${tag}*" 2>/dev/null || true
  perf probe -q -d "probe_libc:${tag}*" 2>/dev/null || true
}
trap cleanup EXIT
perf probe -q -x "$core" --add "${tag}_swift_retain=swift_retain"
perf probe -q -x "$core" --add "${tag}_swift_release=swift_release"
perf probe -q -x "$libc" --add "${tag}_malloc=malloc"
# Counted over 1,000 and over 3,000 calls; the difference over 2,000 leaves out the setup (the
# decoder, the provider, Foundation's and the first call's metadata: about 17 mallocs and 30
# retains per call of a 1,000-call run).
count() {
  perf stat -x, -e "probe_libswiftCore:${tag}_swift_retain" \
    -e "probe_libswiftCore:${tag}_swift_release" -e "probe_libc:${tag}_malloc" \
    "$binary" --profile-small "$what" "$1" 2>&1 >/dev/null |
    awk -F, '{split($3, name, ":"); sub(/^[^_]*_/, "", name[2]); printf "%s %s\n", name[2], $1}'
}
join <(count 0 | sort) <(count -3 | sort) |
  awk '{printf "%s %.1f  ", $1, ($3 - $2) / 2000} END {print "(per call)"}'
