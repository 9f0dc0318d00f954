#!/usr/bin/env bash
# Wall and CPU time of `cargo build --release` after touching one rule file (issue 55's target:
# at least 3x less wall time than the one crate before the workspace), this checkout against an
# earlier commit (default 18d75aa, the last single-crate one). Each tree is built whole first
# (the earlier one in a temporary worktree with its own target folder); then, RUNS times
# alternately, the rule's file is touched in a tree and that tree rebuilt, and the wall and CPU
# (user + system) seconds are printed, with the median wall time of each.
# Usage: scripts/bench-rebuild.sh [COMMIT] [RULE] [RUNS]   (RULE: a file stem, schema_invalid)
set -euo pipefail
cd "$(dirname "$0")/.."
commit=${1:-18d75aa}
rule=${2:-schema_invalid}
runs=${3:-3}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach --quiet "$work/tree" "$commit"

# label, manifest, target folder, rule file
trees=("$commit|$work/tree/Cargo.toml|$work/target|$work/tree/src/check/rules/$rule.rs"
  "this checkout|Cargo.toml|$PWD/target|crates/rules/src/$rule.rs")
build() {
  CARGO_TARGET_DIR="$3" cargo build --release --locked --quiet --manifest-path "$2"
}
echo "building $commit and this checkout whole (release)..."
for tree in "${trees[@]}"; do
  IFS='|' read -r label manifest target file <<<"$tree"
  [ -f "$file" ] || { echo "no rule file $file in $label" >&2; exit 2; }
  build "$label" "$manifest" "$target"
done
declare -A walls=()
for _ in $(seq "$runs"); do
  for tree in "${trees[@]}"; do
    IFS='|' read -r label manifest target file <<<"$tree"
    touch "$file"
    line=$({ /usr/bin/time -f "%e %U %S" bash -c \
      "CARGO_TARGET_DIR='$target' cargo build --release --locked --quiet --manifest-path '$manifest'"; } 2>&1 | tail -1)
    read -r wall user sys <<<"$line"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f", u + s}')
    echo "$label: touched ${file#"$work/tree/"}, rebuilt in $wall s wall, $cpu s CPU"
    walls[$label]+="$wall"$'\n'
  done
done
for tree in "${trees[@]}"; do
  label=${tree%%|*}
  printf '%s' "${walls[$label]}" | sort -n |
    awk -v l="$label" '{a[NR]=$1} END {printf "%s: median %.1f s wall (%d runs)\n", l, a[int((NR+1)/2)], NR}'
done
