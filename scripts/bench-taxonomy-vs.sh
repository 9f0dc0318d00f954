#!/usr/bin/env bash
# The drift taxonomy on real bases, timed side by side with an earlier commit (default 397bb43,
# the last commit before the study hot path work of issue 15). Both binaries run the earlier
# commit's spec (later specs may use fields it does not know), alternately, five times each, and
# the rows they write are compared first: the speed-up must not change a result.
# Usage: scripts/bench-taxonomy-vs.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-397bb43}
source scripts/build-beside.sh
build_beside "$commit"
spec="$work/tree/research/2026-11-30-mcp-drift-taxonomy/study-real.toml"
"$before" study "$spec" --quiet --no-figures --out "$work/rows-before" >/dev/null
"$now" study "$spec" --quiet --no-figures --out "$work/rows-now" >/dev/null
cmp "$work/rows-before/rows.csv" "$work/rows-now/rows.csv"
echo "rows.csv identical"
for _ in 1 2 3 4 5; do
  for bin in "$before" "$now"; do
    label=$([ "$bin" = "$now" ] && echo "this checkout" || echo "$commit")
    /usr/bin/time -f "$label: %e s wall, %U s user" "$bin" study "$spec" --quiet --force \
      --no-figures --rows none --out "$work/timed" 2>&1 >/dev/null | tail -1
  done
done
