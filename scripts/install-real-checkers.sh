#!/usr/bin/env bash
# Installs the published MCP checkers the real-checkers study measures (mcp-compat 0.1.0,
# mcp-diff 0.1.0, pinned by hash) into research/2026-11-30-real-checkers/.venv.
# Then: driftlab study research/2026-11-30-real-checkers/study.toml
set -euo pipefail
cd "$(dirname "$0")/../research/2026-11-30-real-checkers"
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements.txt
.venv/bin/python -c "import mcp_compat, mcp_diff; print('installed:', mcp_compat.__version__, mcp_diff.__version__)"
