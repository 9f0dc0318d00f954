#!/usr/bin/env bash
# The gate's cost on the large inputs of issue 49, each command run RUNS times, alternating:
#   - two identical payloads of 300,000 small tools (the shape of tests/it/hostile_sizes.rs):
#     `diff a b` and `check --approved a b`, peak memory against the bytes read, and
#     `check --approved`'s median wall time against `diff`'s (target: at most 3x and 1.3x);
#     and `diff a c`, every tool's description changed (no target: it must stay linear);
#   - a one-tool payload whose inputSchema is 10 MB of properties, one property's type changed
#     in the candidate: `diff`, witness search included (target: seconds).
# Prints the median and range of wall time, CPU time and peak RSS of each command.
# Usage: scripts/bench-large-pair.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=$PWD/target/release/driftlab
runs=${1:-11}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import json, sys
out = sys.argv[1]
tools = [{"name": f"tool_{i}", "description": f"does thing {i}",
          "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}
         for i in range(300_000)]
text = json.dumps({"tools": tools}, separators=(",", ":"))
for name in ("a.json", "b.json"):
    open(f"{out}/{name}", "w").write(text)
for tool in tools:
    tool["description"] += " v2"
open(f"{out}/c.json", "w").write(json.dumps({"tools": tools}, separators=(",", ":")))
props = {f"p{i}": {"type": "string", "description": "x" * 60} for i in range(120_000)}
schema = {"type": "object", "properties": props}
open(f"{out}/big_a.json", "w").write(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}))
props["p5"] = {"type": "integer", "description": "x" * 60}
open(f"{out}/big_b.json", "w").write(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}))
PY
python3 - "$bin" "$dir" "$runs" <<'PY'
import os, statistics, subprocess, sys, time
bin, d, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def size(*names):
    return sum(os.path.getsize(f"{d}/{n}") for n in names)
commands = {
    "diff a b": ([bin, "diff", f"{d}/a.json", f"{d}/b.json"], size("a.json", "b.json")),
    "check --approved a b": ([bin, "check", "--approved", f"{d}/a.json", f"{d}/b.json"], size("a.json", "b.json")),
    "diff a c (every tool changed)": ([bin, "diff", f"{d}/a.json", f"{d}/c.json"], size("a.json", "c.json")),
    "diff big_a big_b (10 MB schema)": ([bin, "diff", f"{d}/big_a.json", f"{d}/big_b.json"], size("big_a.json", "big_b.json")),
}
measured = {name: [] for name in commands}
for _ in range(runs):
    for name, (argv, _) in commands.items():
        started = time.perf_counter()
        timed = subprocess.run(["/usr/bin/time", "-f", "%U %S %M"] + argv,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - started
        user, sys_, rss = timed.stderr.strip().splitlines()[-1].split()
        measured[name].append((wall, float(user) + float(sys_), int(rss) * 1024))
for name, (_, read) in commands.items():
    wall = [m[0] for m in measured[name]]
    cpu = [m[1] for m in measured[name]]
    rss = max(m[2] for m in measured[name])
    print(f"{name:34} wall median {statistics.median(wall):.3f} s ({min(wall):.3f}-{max(wall):.3f}), "
          f"CPU median {statistics.median(cpu):.2f} s, peak {rss / 2**20:.0f} MiB = "
          f"{rss / read:.2f}x the {read / 1e6:.1f} MB read")
ratio = statistics.median(m[0] for m in measured["check --approved a b"]) / statistics.median(
    m[0] for m in measured["diff a b"])
print(f"check --approved / diff, median wall: {ratio:.2f}x")
PY
