#!/usr/bin/env bash
# Installs what the tests start, beside the Rust crates: the pinned real MCP servers (npm and
# PyPI, servers/), the published checkers (scripts/install-real-checkers.sh), the agent stacks of
# the six-stack study (scripts/install-stacks.sh), Verdaccio and pypiserver, the local npm
# registry and PyPI index the census tests start, with uv (scripts/install-registries.sh), and
# bubblewrap, the sandbox a census runs releases in. Without them the live tests print SKIPPED;
# CI (.ci/run runs this) turns each skip into a failure. Needs Node 20+, Python 3.11+ and npm
# and PyPI reachable; bubblewrap comes from apt when missing (as root).
# Usage: scripts/install-test-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --prefix servers --no-audit --no-fund --loglevel=error
scripts/install-registries.sh
command -v bwrap >/dev/null || apt-get install -y -qq bubblewrap >/dev/null ||
  { apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; } ||
  echo "could not install bubblewrap: the census sandbox test will fail" >&2
python3 -m venv servers/.venv
servers/.venv/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
  -r servers/requirements.txt
scripts/install-real-checkers.sh
scripts/install-stacks.sh
