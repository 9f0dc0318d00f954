#!/usr/bin/env bash
# Measures the study runner's wall time and peak memory against the speed targets, side by side
# with the plain Node.js implementation of the published method in benches/peers/node-study.mjs
# (when node is installed; otherwise the comparison is skipped with a line saying so),
# and prints the speed ratio per surface and per candidate byte (Node's surfaces are smaller).
# The scale runs write to a temporary folder: --rows all at 1,000,000 surfaces needs 1.4 GB.
# Usage: scripts/bench-study.sh [SURFACES_FOR_NODE_COMPARISON] [SURFACES_FOR_SCALE_RUN]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=./target/release/driftlab
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n_compare=${1:-100000}
n_scale=${2:-1000000}
peer=benches/peers/node-study.mjs
# Prints "<wall seconds> <peak KB> <user CPU seconds>" of a command.
measure() { /usr/bin/time -f "%e %M %U" "$@" 2>&1 >/dev/null | tail -1; }
show() { echo "  $1 s wall, $2 KB peak RSS, $3 s user CPU"; }

echo "published study end to end (all files and figures), 5 runs:"
for _ in 1 2 3 4 5; do
  show $(measure "$bin" study --quiet --force --out "$out/published")
done

echo "driftlab, $n_compare surfaces x 5 mutations x 2 gates, --rows none:"
read -r ours ours_kb ours_cpu < <(measure "$bin" study --quiet --force --no-figures --rows none \
  --surfaces "$n_compare" --out "$out/compare")
show "$ours" "$ours_kb" "$ours_cpu"
python3 -c "print(f'  {1e6 * $ours_cpu / $n_compare:.1f} µs of user CPU per surface')"
if ! command -v node >/dev/null; then
  echo "SKIPPED the Node comparison: node is not installed (the ratio needs it)"
else
  echo "node-study.mjs, $n_compare surfaces:"
  read -r theirs theirs_kb theirs_cpu < <(measure node "$peer" "$n_compare")
  show "$theirs" "$theirs_kb" "$theirs_cpu"
  # Mean bytes of one approved surface: driftlab's from `generate` (its payload field), Node's
  # by running the peer's own generator (the file up to its main loop) on the same count.
  ours_bytes=$("$bin" generate --surfaces 1000 | python3 -c '
import json, sys
sizes = [len(json.dumps(json.loads(l)["payload"], separators=(",", ":"))) for l in sys.stdin]
print(sum(sizes) / len(sizes))')
  theirs_bytes=$(node -e '
const src = require("fs").readFileSync(process.argv[1], "utf8");
const generator = src.slice(0, src.indexOf("const rng = mulberry32(SEED);"));
const rng = eval(generator + "; mulberry32(SEED)");
let total = 0;
for (let i = 0; i < 1000; i++) total += JSON.stringify({ tools: eval("makeSurface")(rng) }).length;
console.log(total / 1000);' "$peer" 2>/dev/null || echo 0)
  python3 - "$ours" "$theirs" "$ours_bytes" "$theirs_bytes" <<'PY'
import sys
ours, theirs, ours_bytes, theirs_bytes = map(float, sys.argv[1:])
print(f"ratio: driftlab is {theirs / ours:.1f}x faster than Node per surface")
print(f"10x Node would be {theirs / 10:.2f} s wall")
if theirs_bytes > 0:
    print(f"mean approved surface: driftlab {ours_bytes:.0f} bytes, Node {theirs_bytes:.0f} bytes")
    per_byte = (theirs / theirs_bytes) / (ours / ours_bytes)
    print(f"ratio per candidate byte: {per_byte:.1f}x")
PY
fi

echo "driftlab, $n_scale surfaces x 5 mutations x 2 gates, --rows none:"
show $(measure "$bin" study --quiet --force --no-figures --rows none --surfaces "$n_scale" \
  --out "$out/scale")
echo "driftlab, $n_scale surfaces x 5 mutations x 2 gates, --rows all (every row to rows.csv):"
show $(measure "$bin" study --quiet --force --no-figures --rows all --surfaces "$n_scale" \
  --out "$out/scale-rows")
ls -l "$out/scale-rows/rows.csv" | awk '{printf "  rows.csv: %.2f GB\n", $5 / 1e9}'
rm -rf "$out/scale-rows"
echo "driftlab, the drift taxonomy on real bases (240 surfaces x 24 classes x 9 gates), --rows none:"
show $(measure "$bin" study research/2026-11-30-mcp-drift-taxonomy/study-real.toml --quiet \
  --force --no-figures --rows none --out "$out/taxonomy-real")
