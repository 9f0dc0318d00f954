#!/usr/bin/env bash
# Instructions per surface of the synthetic drift taxonomy at one thread, this checkout against
# an earlier commit (default 18d75aa), counted by valgrind's callgrind: unlike CPU time, the
# count does not move with the host or its neighbours, so two builds compare on any machine.
# Each build runs `--surfaces 240` and `--surfaces 480` (`--rows none --no-figures`); the
# difference over 240 is the cost of one surface without the start-up. Needs valgrind.
# Usage: scripts/bench-taxonomy-instructions.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-18d75aa}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 2; }
source scripts/build-beside.sh
build_beside "$commit"
spec=research/2026-11-30-mcp-drift-taxonomy/study.toml
count() {
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$1" study "$spec" \
    --quiet --force --no-figures --rows none --threads 1 --surfaces "$2" --out "$work/out" 2>&1 |
    sed -n 's/.*Collected : //p'
}
for bin in "$before" "$now"; do
  label=$([ "$bin" = "$now" ] && echo "this checkout" || echo "$commit")
  small=$(count "$bin" 240)
  large=$(count "$bin" 480)
  awk -v l="$label" -v s="$small" -v b="$large" \
    'BEGIN {printf "%s: %.3f M instructions per surface\n", l, (b - s) / 240 / 1e6}'
done
