#!/usr/bin/env bash
# Rebuilds driftlab and reruns every committed study into results/ (what the regeneration tests
# compare against): the published MCP contract-drift study and the drift taxonomy study on
# synthetic and on real bases, the whole-contract study, the live drift study, the
# output-contracts study and the guard study (silent failures without and with `driftlab
# guard`), the real-checkers study (the published checkers from PyPI:
# scripts/install-real-checkers.sh) and the six-stack study (the agent stacks from PyPI:
# scripts/install-stacks.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked
./target/release/driftlab study --force "$@"
./target/release/driftlab study research/2026-11-30-mcp-drift-taxonomy/study.toml --force "$@"
./target/release/driftlab study research/2026-11-30-mcp-drift-taxonomy/study-real.toml --force "$@"
./target/release/driftlab study research/2026-12-03-whole-contract/study.toml --force "$@"
# The live drift study needs the pinned servers (npm ci --prefix servers; a venv for
# servers/requirements.txt), and the output-contracts study's live half too.
./target/release/driftlab study research/2026-11-30-live-drift/study.toml --force "$@"
scripts/scan-pinned-servers.sh
./target/release/driftlab scan --corpus research/2026-11-30-output-contracts/captures \
  --live results/2026-11-30-output-contracts/live --out results/2026-11-30-output-contracts
./target/release/driftlab guard-study --yes research/2026-11-30-silent-failures/study.toml
./target/release/driftlab study research/2026-11-30-real-checkers/study.toml --force "$@"
./target/release/driftlab stack-study --yes research/2026-12-03-six-stacks/study.toml --force
# The census rederives from its kept captures (no network); recapturing is
# `driftlab census research/2026-12-05-mcp-census/census.toml --yes` (19 min, needs the registries).
./target/release/driftlab census research/2026-12-05-mcp-census/census.toml --offline
# The field census too (recapturing: docs/census.md, "The field census").
./target/release/driftlab census research/2026-12-06-mcp-field-census/census.toml --offline
# The re-judgement of mcp-drift's record (docs/watch.md), from its kept logs (no network).
./target/release/driftlab watch report results/watch-mcp-drift-2026-06-14/record \
  --out results/watch-mcp-drift-2026-06-14 --window 7d --title "mcp-drift's record, re-judged"
