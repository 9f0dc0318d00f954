#!/usr/bin/env python3
"""Load on the proxy: 10,000 sequential and 500 concurrent tools/call, straight to the fixture
server and through `driftlab wrap` and `driftlab guard` in front of it.

For each path it prints throughput, the latency of sequential calls (p50/p99, and what the proxy
adds to the direct path), the wall time of the concurrent burst and driftlab's peak resident
memory; it checks that no answer is lost, duplicated or misrouted (each call carries a unique
argument that the fixture echoes back), and that two guard runs with the same calls write the
same audit log. Exits 1 when a check fails. Usage: scripts/bench-proxy.py [SEQUENTIAL] [BURST]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DRIFTLAB = os.path.join(ROOT, "target/release/driftlab")
FIXTURE = os.path.join(ROOT, "target/release/examples/fixture_server")
PIN = os.path.join(ROOT, "tests/data/corpus/mcp-server-time@2026.10.19.json")
INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(n):
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "get_current_time", "arguments": {"timezone": f"Zone/{n}"}}}


class Session:
    """A client on a process's stdin/stdout; a reader thread files answers by id."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.answers = {}
        self.duplicates = 0
        self.cond = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            message = json.loads(line)
            if "id" not in message or "method" in message:
                continue
            with self.cond:
                if message["id"] in self.answers:
                    self.duplicates += 1
                self.answers[message["id"]] = (time.perf_counter(), message)
                self.cond.notify_all()

    def send(self, message):
        self.proc.stdin.write((json.dumps(message, separators=(",", ":")) + "\n").encode())
        self.proc.stdin.flush()

    def wait(self, ids, timeout=60):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(i in self.answers for i in ids):
                left = deadline - time.monotonic()
                if left <= 0 or not self.cond.wait(left):
                    return False
        return True

    def peak_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def misrouted(answers, ids):
    bad = 0
    for n in ids:
        message = answers[n][1]
        received = message.get("result", {}).get("structuredContent", {}).get("received", {})
        if received.get("arguments", {}).get("timezone") != f"Zone/{n}":
            bad += 1
    return bad


def run(name, argv, sequential, burst):
    session = Session(argv)
    session.send(INIT)
    session.wait(["init"])
    session.send(INITIALIZED)
    latencies = []
    started = time.perf_counter()
    for n in range(sequential):
        sent = time.perf_counter()
        session.send(call(n))
        if not session.wait([n]):
            sys.exit(f"{name}: no answer to call {n}")
        latencies.append(session.answers[n][0] - sent)
    seq_wall = time.perf_counter() - started
    ids = list(range(100_000, 100_000 + burst))
    started = time.perf_counter()
    writer = threading.Thread(target=lambda: [session.send(call(n)) for n in ids])
    writer.start()
    complete = session.wait(ids)
    burst_wall = time.perf_counter() - started
    writer.join()
    peak = session.peak_kib() if name != "direct" else None
    all_ids = list(range(sequential)) + ids
    lost = sum(1 for n in all_ids if n not in session.answers)
    wrong = misrouted(session.answers, [n for n in all_ids if n in session.answers])
    session.close()
    latencies.sort()
    return {
        "path": name,
        "calls_per_s": sequential / seq_wall,
        "p50_us": statistics.median(latencies) * 1e6,
        "p99_us": latencies[int(len(latencies) * 0.99) - 1] * 1e6,
        "burst_ms": burst_wall * 1e3,
        "peak_mib": peak / 1024 if peak else None,
        "lost": lost, "duplicated": session.duplicates, "misrouted": wrong,
        "complete": complete,
    }


def main():
    sequential = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    burst = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "driftlab",
                    "--example", "fixture_server"], cwd=ROOT, check=True)
    fixture = [FIXTURE, PIN, "--calls", "echo"]
    scratch = tempfile.mkdtemp(prefix="driftlab-bench-proxy-")
    # The pin without outputSchema: the fixture's echo would break it on every answer, and each
    # violation makes the guard list the server again; this measures admission, not that path.
    pin = os.path.join(scratch, "pin.json")
    with open(PIN) as f:
        capture = json.load(f)
    tools = capture["toolsList"]["tools"] if "toolsList" in capture else capture["tools"]
    for tool in tools:
        tool.pop("outputSchema", None)
    with open(pin, "w") as f:
        json.dump({"tools": tools}, f)
    audits = [os.path.join(scratch, f"audit-{k}.jsonl") for k in (1, 2)]
    paths = [
        ("direct", fixture),
        ("wrap", [DRIFTLAB, "wrap", "--seed", "1", "--"] + fixture),
        ("guard", [DRIFTLAB, "guard", "--approved", pin, "--audit", audits[0], "--"] + fixture),
    ]
    rows = [run(name, argv, sequential, burst) for name, argv in paths]
    # The same calls again through the guard: its audit log must be the same bytes.
    run("guard", [DRIFTLAB, "guard", "--approved", pin, "--audit", audits[1], "--"] + fixture,
        sequential, burst)
    same_log = open(audits[0], "rb").read() == open(audits[1], "rb").read()
    direct = rows[0]
    print(f"{sequential} sequential and {burst} concurrent tools/call per path "
          f"(fixture --calls echo, {os.cpu_count()} cores)")
    print("| path | calls/s | p50 µs | p99 µs | p50 added | burst ms | peak MiB | lost | dup | misrouted |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for r in rows:
        added = "–" if r["path"] == "direct" else f"{r['p50_us'] - direct['p50_us']:+.0f} µs"
        peak = "–" if r["peak_mib"] is None else f"{r['peak_mib']:.1f}"
        print(f"| {r['path']} | {r['calls_per_s']:.0f} | {r['p50_us']:.0f} | {r['p99_us']:.0f} | "
              f"{added} | {r['burst_ms']:.0f} | {peak} | {r['lost']} | {r['duplicated']} | "
              f"{r['misrouted']} |")
        failed |= bool(r["lost"] or r["duplicated"] or r["misrouted"] or not r["complete"])
    print(f"guard audit log identical across two runs: {'yes' if same_log else 'NO'}")
    sys.exit(1 if failed or not same_log else 0)


if __name__ == "__main__":
    main()
