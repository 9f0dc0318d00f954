#!/usr/bin/env bash
# Measures the study runner's wall time and peak memory against the speed targets, side by side
# with the plain Node.js implementation in ../shared/peers/node-study.mjs (when node is present).
# Usage: scripts/bench-study.sh [SURFACES_FOR_NODE_COMPARISON] [SURFACES_FOR_SCALE_RUN]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=./target/release/driftlab
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n_compare=${1:-100000}
n_scale=${2:-1000000}
wall() { /usr/bin/time -f "%e s wall, %M KB peak RSS" "$@" 2>&1 >/dev/null | tail -1; }

echo "published study end to end (all files and figures), 5 runs:"
for _ in 1 2 3 4 5; do wall "$bin" study --quiet --force --out "$out/published"; done

echo "driftlab, $n_compare surfaces x 5 mutations x 2 gates, --rows none:"
wall "$bin" study --quiet --force --no-figures --rows none --surfaces "$n_compare" --out "$out/compare"
if command -v node >/dev/null && [ -f ../shared/peers/node-study.mjs ]; then
  echo "node-study.mjs, $n_compare surfaces:"
  wall node ../shared/peers/node-study.mjs "$n_compare"
fi

echo "driftlab, $n_scale surfaces x 5 mutations x 2 gates, --rows none:"
wall "$bin" study --quiet --force --no-figures --rows none --surfaces "$n_scale" --out "$out/scale"
