#!/usr/bin/env bash
# Paired timing of this checkout against an earlier commit, for a VM whose wall times drift by a
# quarter between minutes: the two builds run the same study alternately, RUNS times each, and
# the minimum and median of each are printed. The outputs are compared first (summary.json and
# rows.csv of a smaller run): a speed-up must not change a result.
# Usage: scripts/ab.sh COMMIT [SURFACES] [RUNS] [THREADS]
#   defaults: 100000 surfaces of the published study, --rows none, 5 runs each, all cores
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: scripts/ab.sh COMMIT [SURFACES] [RUNS] [THREADS]" >&2
  exit 2
fi
commit=$1
surfaces=${2:-100000}
runs=${3:-5}
threads=${4:-0}
source scripts/build-beside.sh
build_beside "$commit"
thread_args=()
[ "$threads" != 0 ] && thread_args=(--threads "$threads")

"$before" study --quiet --no-figures --surfaces 2000 --out "$work/same-before" >/dev/null
"$now" study --quiet --no-figures --surfaces 2000 --out "$work/same-now" >/dev/null
for file in summary.json rows.csv; do
  cmp "$work/same-before/$file" "$work/same-now/$file"
done
echo "summary.json and rows.csv identical at 2000 surfaces"

declare -A times
for _ in $(seq "$runs"); do
  for bin in "$before" "$now"; do
    label=$([ "$bin" = "$now" ] && echo "this checkout" || echo "$commit")
    line=$(/usr/bin/time -f "%e %U" "$bin" study --quiet --force --no-figures --rows none \
      --surfaces "$surfaces" "${thread_args[@]}" --out "$work/timed" 2>&1 >/dev/null | tail -1)
    echo "$label: ${line% *} s wall, ${line#* } s user"
    times[$label]+="${line% *}"$'\n'
  done
done
for label in "$commit" "this checkout"; do
  printf '%s\n' "${times[$label]}" | sed '/^$/d' | sort -n |
    awk -v l="$label" '{a[NR]=$1} END {printf "%s: min %.2f s, median %.2f s wall (%d runs)\n", l, a[1], a[int((NR+1)/2)], NR}'
done
