#!/usr/bin/env bash
# `lock` and `check --lock` on a config of the pinned real servers (servers/: filesystem,
# memory, everything, time, git; `npm ci --prefix servers` and the venv of
# servers/requirements.txt, as .ci/run installs them), RUNS times each, alternating:
#   - each server's own capture time (the `in X s` of `lock --jobs 1`, median over the runs);
#   - the wall time of `lock` and `check --lock` at --jobs 1 and at --jobs JOBS (default: one
#     per server), against the slowest server's own time (target: about 1.5x);
#   - the CPU time (user + system) driftlab and the servers spend per run, and the wall time it
#     allows at best on this machine's cores (CPU / cores): no --jobs can go below it;
#   - whether the lockfiles of every run and --jobs are the same bytes.
# Usage: scripts/bench-lock.sh [RUNS] [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=$PWD/target/release/driftlab
runs=${1:-5}
node=$PWD/servers/node_modules/@modelcontextprotocol
venv=$PWD/servers/.venv/bin
for need in "$node/server-filesystem/dist/index.js" "$venv/mcp-server-time" "$venv/mcp-server-git"; do
  [ -e "$need" ] || { echo "missing $need: install servers/ as .ci/run does" >&2; exit 2; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git init -q "$dir/repo"
cat >"$dir/mcp.json" <<JSON
{"mcpServers": {
  "filesystem": {"command": "node", "args": ["$node/server-filesystem/dist/index.js", "$dir"]},
  "memory": {"command": "node", "args": ["$node/server-memory/dist/index.js"],
             "env": {"MEMORY_FILE_PATH": "$dir/memory.jsonl"}},
  "everything": {"command": "node", "args": ["$node/server-everything/dist/index.js", "stdio"]},
  "time": {"command": "$venv/mcp-server-time", "args": ["--local-timezone=UTC"]},
  "git": {"command": "$venv/mcp-server-git", "args": ["--repository", "$dir/repo"]}
}}
JSON
servers=5
jobs=${2:-$servers}
python3 - "$bin" "$dir" "$runs" "$jobs" <<'PY'
import os, re, resource, statistics, subprocess, sys, time
bin, dir, runs, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
config = f"{dir}/mcp.json"
walls, own, locks, cpus = {}, {}, set(), {}
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def run(label, args):
    start, used = time.monotonic(), cpu()
    done = subprocess.run([bin, *args], cwd=dir, capture_output=True, text=True)
    wall = time.monotonic() - start
    cpus.setdefault(label, []).append(cpu() - used)
    if done.returncode != 0:
        sys.exit(f"{label}: exit {done.returncode}\n{done.stderr}")
    walls.setdefault(label, []).append(wall)
    return done.stderr
for i in range(runs):
    for j in ("1", jobs):
        out = f"{dir}/mcp-{j}.lock"
        err = run(f"lock --jobs {j}", ["lock", "--config", config, "--yes", "--jobs", j, "-o", out])
        if j == "1":
            for name, secs in re.findall(r"driftlab: (\w+): \d+ tools.* in ([0-9.]+) s", err):
                own.setdefault(name, []).append(float(secs))
        locks.add(open(out, "rb").read())
        run(f"check --lock --jobs {j}", ["check", "--lock", out, "--config", config, "--yes", "--jobs", j])
med = lambda xs: statistics.median(xs)
print(f"{runs} runs; each server's own capture time (median, lock --jobs 1):")
for name, xs in own.items():
    print(f"  {name:12} {med(xs):6.2f} s")
slowest = max(med(xs) for xs in own.values())
total = sum(med(xs) for xs in own.values())
print(f"  slowest {slowest:.2f} s, sum {total:.2f} s")
cores = os.cpu_count()
for label, xs in walls.items():
    used = med(cpus[label])
    print(f"{label:24} median {med(xs):6.2f} s (range {min(xs):.2f}-{max(xs):.2f}) = {med(xs) / slowest:.2f}x the slowest server; "
          f"CPU {used:.2f} s, so at best {used / cores:.2f} s = {used / cores / slowest:.2f}x on {cores} cores")
print("lockfiles identical across runs and --jobs:", "yes" if len(locks) == 1 else f"NO ({len(locks)} variants)")
PY
