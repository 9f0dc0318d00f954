#!/usr/bin/env bash
# The census's cost against the length of a package's history (issue 70: it must be linear):
# one synthetic npm package of N releases (20 tools; most releases change a schema or a
# description, every fourth restores the contract of two releases before, so reverts are
# found), derived with `census --offline`, for N = 8 16 32 64 128. Prints the user + system CPU
# seconds of each run (the median of RUNS) and the ratio of 128 releases to 16 (the target: at
# most 10; a linear cost is 8).
# Usage: scripts/bench-census-scaling.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=$PWD/target/release/driftlab
runs=${1:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
declare -A cpu
for n in 8 16 32 64 128; do
  out=$dir/census-$n
  python3 - "$out/captures/npm/synthetic" "$n" <<'PY'
import json, os, sys
folder, n = sys.argv[1], int(sys.argv[2])
os.makedirs(folder, exist_ok=True)
def contract(seed):
    tools = []
    for t in range(20):
        props = {f"p{p}": {"type": "string", "description": f"parameter {p} of tool {t}"} for p in range(10)}
        if seed % 20 == t:
            props[f"p{seed % 10}"] = {"type": "integer", "minimum": seed}
        tools.append({"name": f"tool_{t}", "description": f"tool {t}, revision {seed // 20}",
                      "inputSchema": {"type": "object", "properties": props, "required": ["p0"]}})
    return tools
seeds = []
for i in range(n):
    seeds.append(seeds[i - 2] if i % 4 == 3 else i)
    with open(os.path.join(folder, f"1.0.{i}.json"), "w") as f:
        json.dump({"tools": contract(seeds[i])}, f)
PY
  printf 'id = "census-scaling-%s"\n\n[[package]]\nsource = "npm:synthetic"\n' "$n" >"$dir/spec-$n.toml"
  times=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$dir/time" -f '%U %S' "$bin" census "$dir/spec-$n.toml" --offline --force --out "$out" >/dev/null 2>&1
    t=$(awk '{print $1 + $2}' "$dir/time")
    times+=("$t")
  done
  cpu[$n]=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  pairs=$(($(wc -l <"$out/pairs.csv") - 1))
  reverts=$(python3 -c "import json;print(json.load(open('$out/summary.json'))['pairs_reverting'])")
  echo "releases $n: ${cpu[$n]} s CPU (median of $runs), $pairs pairs, $reverts reverts"
done
awk -v a="${cpu[128]}" -v b="${cpu[16]}" 'BEGIN { printf "128 releases / 16 releases: %.1fx CPU\n", a / b }'
