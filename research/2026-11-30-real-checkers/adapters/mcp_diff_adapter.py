#!/usr/bin/env python3
"""driftlab checker (JSON Lines) around mcp-diff 0.1.0, doing what `mcp-diff snapshot` then
`mcp-diff check` do, minus the transport: the approved tools become a lockfile
(`serialize_lockfile`: normalized, sorted by name, through JSON as the file is), the candidate's
tools are what `list_tools()` returns (`result.get("tools", [])`), `classify_changes(old, new)`,
detected when `has_breaking` (the CLI's exit 1). An exception answers `error`: a crash."""
import json
import sys

from mcp_diff.diff import classify_changes, deserialize_lockfile, has_breaking, serialize_lockfile


def listed(payload):
    return json.loads(payload).get("tools", [])


for line in sys.stdin:
    request = json.loads(line)
    try:
        lockfile = json.loads(json.dumps(serialize_lockfile(listed(request["approved"]), ["server"])))
        changes = classify_changes(deserialize_lockfile(lockfile), listed(request["candidate"]))
        answer = {"id": request["id"], "detected": has_breaking(changes)}
    except Exception as error:
        answer = {"id": request["id"], "error": f"{type(error).__name__}: {error}"}
    print(json.dumps(answer), flush=True)
