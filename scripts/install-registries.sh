#!/usr/bin/env bash
# Installs the local package registries the census tests start on 127.0.0.1: Verdaccio (npm,
# tools/registries/package.json) and pypiserver (PyPI, tools/registries/requirements.txt, into
# tools/registries/.venv), and uv, the installer a census installs PyPI releases with as of their
# upload time (same venv). Every version pinned; nothing here is started.
set -euo pipefail
cd "$(dirname "$0")/../tools/registries"
npm ci --no-audit --no-fund --loglevel=error
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements.txt
echo "installed: verdaccio $(node -p 'require("verdaccio/package.json").version'), pypiserver $(.venv/bin/pypi-server --version), $(.venv/bin/uv --version)"
