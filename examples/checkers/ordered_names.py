#!/usr/bin/env python3
"""A driftlab checker: detected when the ordered list of tool names changed.

JSON Lines mode (default): one request per stdin line, one answer per stdout line, flushed.
Exit-code mode: `ordered_names.py APPROVED CANDIDATE` exits 1 when detected, else 0.
"""
import json
import sys


def names(payload):
    # A missing name differs from every present one, null included.
    return [json.dumps(t["name"], sort_keys=True) if "name" in t else None for t in json.loads(payload)["tools"]]


if len(sys.argv) == 3:
    files = [open(path, encoding="utf-8").read() for path in sys.argv[1:]]
    sys.exit(1 if names(files[0]) != names(files[1]) else 0)

for line in sys.stdin:
    request = json.loads(line)
    detected = names(request["approved"]) != names(request["candidate"])
    findings = [{"rule": "ordered-names", "pointer": "/tools"}] if detected else []
    print(json.dumps({"id": request["id"], "detected": detected, "findings": findings}), flush=True)
