#!/usr/bin/env bash
# Installs the agent stacks the six-stack study measures (LangChain/LangGraph, CrewAI, the OpenAI
# Agents SDK, AutoGen, the MCP Python SDK, jsonschema + pydantic; every dependency pinned) into
# research/2026-12-03-six-stacks/.venv. The MCP TypeScript SDK row uses servers/ (npm ci
# --prefix servers). Then: driftlab stack-study research/2026-12-03-six-stacks/study.toml
set -euo pipefail
cd "$(dirname "$0")/../research/2026-12-03-six-stacks"
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
.venv/bin/python - <<'PY'
from importlib.metadata import version
names = ["langchain-core", "langgraph", "crewai", "openai-agents", "autogen-core", "mcp", "pydantic", "jsonschema"]
print("installed:", ", ".join(f"{n} {version(n)}" for n in names))
PY
