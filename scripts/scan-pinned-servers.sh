#!/usr/bin/env bash
# The live half of the output-contracts study: `driftlab scan` (static checks + the three error
# probes) on each real server pinned in servers/, one JSON report per server.
#   scripts/scan-pinned-servers.sh [OUT_DIR]   (default results/2026-11-30-output-contracts/live)
# Needs the servers installed (npm ci --prefix servers; python3 -m venv servers/.venv &&
# servers/.venv/bin/pip install -r servers/requirements.txt). Runs ./target/release/driftlab (built
# when missing), as every script here does; DRIFTLAB=PATH picks another binary.
# Paths are relative to the repository root, so the reports (which name the command) are the
# same on every machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-results/2026-11-30-output-contracts/live}"
driftlab="${DRIFTLAB:-./target/release/driftlab}"
[ -x "$driftlab" ] || cargo build --release --locked --quiet
mkdir -p "$out"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mcp=servers/node_modules/@modelcontextprotocol
scan() {
  local name="$1"; shift
  "$driftlab" scan --format json -- "$@" > "$scratch/$name.json"
  mv "$scratch/$name.json" "$out/$name.json"
}
scan server-everything node "$mcp/server-everything/dist/index.js"
scan server-filesystem node "$mcp/server-filesystem/dist/index.js" servers
MEMORY_FILE_PATH="$scratch/memory.jsonl" scan server-memory node "$mcp/server-memory/dist/index.js"
TZ=UTC scan mcp-server-time servers/.venv/bin/mcp-server-time
echo "driftlab: scanned 4 pinned servers -> $out" >&2
