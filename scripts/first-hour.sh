#!/usr/bin/env bash
# Times the README's set-up on a fresh clone of this checkout, step by step, as written: the
# release build, installing what the tests start (scripts/install-test-deps.sh), the test suite,
# and the first gate example. Cargo's download cache (~/.cargo/registry) is used as it is, so on a machine that has
# never fetched driftlab's crates add their download time. Usage: scripts/first-hour.sh
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$source_dir" "$work/driftlab"
cd "$work/driftlab"

step() {
  local name="$1" log="$work/step-$2.log"
  shift 2
  local start
  start=$(date +%s)
  if ! "$@" >"$log" 2>&1; then
    echo "FAILED: $name"
    tail -n 30 "$log"
    exit 1
  fi
  printf '%-40s %4d s\n' "$name" $(($(date +%s) - start))
}

step "cargo build --release --locked" 1 cargo build --release --locked
step "scripts/install-test-deps.sh" 2 scripts/install-test-deps.sh
step "cargo test --release --locked" 3 cargo test --release --locked
cd tests/data/corpus
step "first gate example (check)" 4 ../../../target/release/driftlab check --approved \
  @modelcontextprotocol__server-filesystem@2025.1.14+pinned-zod.json \
  @modelcontextprotocol__server-filesystem@2025.8.21+pinned-zod.json
head -n 1 "$work/step-4.log"
