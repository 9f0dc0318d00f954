#!/usr/bin/env bash
# Installs the agent stacks the six-stack study measures (LangChain/LangGraph, CrewAI, the OpenAI
# Agents SDK, AutoGen, the MCP Python SDK, jsonschema + pydantic; every dependency pinned) into
# research/2026-12-03-six-stacks/.venv, and the stacks' MCP adapters (langchain-mcp-adapters,
# crewai-tools' MCPServerAdapter, the Agents SDK's MCP classes, autogen-ext's McpWorkbench,
# pydantic-ai's MCPToolset; pinned too) into .venv-adapters beside it: the adapters need mcp 1.x,
# the bench's Python servers mcp 2.x. The MCP TypeScript SDK rows use servers/ (npm ci
# --prefix servers). Then: driftlab stack-study research/2026-12-03-six-stacks/study.toml
set -euo pipefail
cd "$(dirname "$0")/../research/2026-12-03-six-stacks"
python3 -m venv .venv
python3 -m venv .venv-adapters
# The two venvs install side by side; each pip waits mostly on downloads.
.venv/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements.txt &
stacks=$!
.venv-adapters/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
  -r requirements-adapters.txt \
  2> >(grep -v "does not provide the extra" >&2) &
adapters=$!
wait "$stacks"
wait "$adapters"
.venv/bin/python - <<'PY'
from importlib.metadata import version
names = ["langchain-core", "langgraph", "crewai", "openai-agents", "autogen-core", "mcp", "pydantic", "jsonschema"]
print("installed:", ", ".join(f"{n} {version(n)}" for n in names))
PY
.venv-adapters/bin/python - <<'PY'
from importlib.metadata import version
names = ["langchain-mcp-adapters", "crewai-tools", "mcpadapt", "openai-agents", "autogen-ext", "pydantic-ai-slim", "mcp"]
print("adapters installed:", ", ".join(f"{n} {version(n)}" for n in names))
PY
