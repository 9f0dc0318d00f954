#!/usr/bin/env bash
# Rebuilds driftlab and reruns every committed study into results/ (what the regeneration tests
# compare against): the published MCP contract-drift study and the drift taxonomy study on
# synthetic and on real bases.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
./target/release/driftlab study --force "$@"
./target/release/driftlab study research/2026-11-30-mcp-drift-taxonomy/study.toml --force "$@"
./target/release/driftlab study research/2026-11-30-mcp-drift-taxonomy/study-real.toml --force "$@"
