#!/usr/bin/env bash
# Peak memory and wall time of the gate on a large payload: the 14 tools of the pinned
# server-filesystem capture repeated with unique names up to ~52 MB (53,077 tools), and the same
# payload with one description changed (b.json) and with every description changed (c.json).
# Prints one line per command.
# Usage: scripts/bench-memory.sh [BYTES]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=./target/release/driftlab
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "${1:-52000000}" "$dir" <<'PY'
import json, sys
size_limit, out = int(sys.argv[1]), sys.argv[2]
capture = json.load(open("tests/data/corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json"))
def tools_of(v):
    if isinstance(v, dict):
        if "tools" in v:
            return v["tools"]
        for k in ("result", "toolsList"):
            if k in v:
                return tools_of(v[k])
    return v
base = tools_of(capture)
tools, size = [], 0
while size < size_limit:
    tool = dict(base[len(tools) % len(base)])
    tool["name"] = f"{tool['name']}_{len(tools)}"
    tools.append(tool)
    size += len(json.dumps(tool))
json.dump({"tools": tools}, open(f"{out}/a.json", "w"))
tools[5]["description"] = "changed"
json.dump({"tools": tools}, open(f"{out}/b.json", "w"))
for tool in tools:
    tool["description"] = tool.get("description", "") + " v2"
json.dump({"tools": tools}, open(f"{out}/c.json", "w"))
print(f"payload: {len(tools)} tools, {size} bytes of tools")
PY
measure() { /usr/bin/time -f "%e s wall, %M KB peak RSS" "$@" 2>&1 >/dev/null | tail -1; }
echo "check b.json:                  $(measure "$bin" check "$dir/b.json")"
echo "check --approved a.json b.json: $(measure "$bin" check --approved "$dir/a.json" "$dir/b.json")"
echo "diff a.json b.json:            $(measure "$bin" diff "$dir/a.json" "$dir/b.json")"
echo "diff a.json c.json:            $(measure "$bin" diff "$dir/a.json" "$dir/c.json")"
