#!/usr/bin/env python3
"""driftlab checker (JSON Lines) around mcp-compat 0.1.0, doing what `mcp-compat BEFORE AFTER --ci`
does: each payload's tool array (mcp-compat reads a bare array; a tools/list result's `tools`),
`compare_schemas(before, after)`, detected when `report.has_breaking()` (the CLI's exit 1).
Where the CLI would stop on a load error (exit 2) or an exception (a traceback), the adapter
answers `error`: a crash, never a verdict."""
import json
import sys

from mcp_compat.compat import compare_schemas


def tools(payload):
    data = json.loads(payload)
    # The CLI's loader accepts a JSON array only.
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list):
        raise ValueError("Schema must be a JSON array of tool objects")
    return tools


for line in sys.stdin:
    request = json.loads(line)
    try:
        report = compare_schemas(tools(request["approved"]), tools(request["candidate"]))
        answer = {"id": request["id"], "detected": report.has_breaking()}
    except Exception as error:  # the CLI has no answer here either: a crash
        answer = {"id": request["id"], "error": f"{type(error).__name__}: {error}"}
    print(json.dumps(answer), flush=True)
