#!/usr/bin/env bash
# Rebuilds driftlab and reruns the published MCP contract-drift study into
# results/mcp-contract-drift-2026-08-22/ (rows, summaries, manifest).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
./target/release/driftlab study "$@"
