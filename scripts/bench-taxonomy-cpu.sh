#!/usr/bin/env bash
# CPU per surface of the drift taxonomy studies at one thread (issue 55's target: at most
# 0.6 ms), this checkout against an earlier commit (default 1abfc88, the last before the study
# hot path of issue 55). Both binaries first run both taxonomy specs whole (240 surfaces, every
# row) and must write the same rows.csv and summary.json; then each spec runs SURFACES surfaces
# with `-j 1 --rows none --no-figures`, RUNS times per binary, alternately, and the CPU (user +
# system) per surface is printed, with the median of the runs.
# Usage: scripts/bench-taxonomy-cpu.sh [COMMIT] [SURFACES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-1abfc88}
surfaces=${2:-2400}
runs=${3:-3}
source scripts/build-beside.sh
build_beside "$commit"
specs=(research/2026-11-30-mcp-drift-taxonomy/study.toml research/2026-11-30-mcp-drift-taxonomy/study-real.toml)
for spec in "${specs[@]}"; do
  "$before" study "$spec" --quiet --no-figures --out "$work/same-before" --force >/dev/null
  "$now" study "$spec" --quiet --no-figures --out "$work/same-now" --force >/dev/null
  for file in rows.csv summary.json; do
    cmp "$work/same-before/$file" "$work/same-now/$file"
  done
  echo "$spec: rows.csv and summary.json identical"
done
for spec in "${specs[@]}"; do
  declare -A cpu=()
  for _ in $(seq "$runs"); do
    for bin in "$before" "$now"; do
      label=$([ "$bin" = "$now" ] && echo "this checkout" || echo "$commit")
      line=$(/usr/bin/time -f "%U %S" "$bin" study "$spec" --quiet --force --no-figures \
        --rows none --threads 1 --surfaces "$surfaces" --out "$work/timed" 2>&1 >/dev/null | tail -1)
      ms=$(awk -v u="${line% *}" -v s="${line#* }" -v n="$surfaces" 'BEGIN {printf "%.3f", (u + s) * 1000 / n}')
      echo "$spec, $label: $ms ms CPU per surface"
      cpu[$label]+="$ms"$'\n'
    done
  done
  for label in "$commit" "this checkout"; do
    printf '%s' "${cpu[$label]}" | sort -n |
      awk -v l="$label" -v s="$spec" '{a[NR]=$1} END {printf "%s, %s: median %.3f ms CPU per surface (%d runs)\n", s, l, a[int((NR+1)/2)], NR}'
  done
  unset cpu
done
