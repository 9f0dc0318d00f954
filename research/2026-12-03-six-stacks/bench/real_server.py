"""The real pinned servers of servers/ for the real-tool cases, drifted on the wire:
`python real_server.py CASE VERSION` starts the case's real server behind `driftlab wrap
--enforce-drift` ($DRIFTLAB is the binary; the study sets it). Version 1 lists the real
contract (the `identity` drift); version 2 renames the case's parameter in the listing
(`parameter-renamed` on the case's tool, at a seed that picks that parameter), and wrap then
handles each call as a server implementing that listing would (the MCP SDKs' default: an
undeclared argument is dropped, the rest validated) before the real server runs it. wrap's log
($STUDY_LOG) records what the body got, under the listed names.

The fixtures live in a folder beside the log: a 40-line text file `x` (the filesystem server
reads it) and a git repository `x` with 30 commits on fixed dates (mcp-server-git reads it);
the calls' drawn strings are `x`, so a relative path names them."""

import os
import subprocess
import sys
from pathlib import Path

SERVERS = Path(__file__).resolve().parents[3] / "servers"

# case: (tool, the parameter version 2 renames, the seed at which parameter-renamed picks it)
CASES = {
    "real-read-text-file": ("read_text_file", "head", 2),
    "real-git-log": ("git_log", "start_timestamp", 2),
}


def fixtures(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = folder / "x"
    if not text.exists() and sys.argv[1] == "real-read-text-file":
        text.write_text("".join(f"line {n}\n" for n in range(1, 41)))
    if not text.exists() and sys.argv[1] == "real-git-log":
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "driftlab",
            "GIT_AUTHOR_EMAIL": "bench@driftlab.invalid",
            "GIT_COMMITTER_NAME": "driftlab",
            "GIT_COMMITTER_EMAIL": "bench@driftlab.invalid",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_SYSTEM": os.devnull,
        }
        git = ["git", "-C", str(text)]
        subprocess.run(["git", "init", "--quiet", "--initial-branch=main", str(text)], check=True, env=env)
        for day in range(1, 31):
            date = f"2026-11-{day:02d}T12:00:00+00:00"
            dated = {**env, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
            subprocess.run([*git, "commit", "--quiet", "--allow-empty", "-m", f"commit {day}"], check=True, env=dated)


def main() -> None:
    case, version = sys.argv[1], int(sys.argv[2])
    if case not in CASES:
        sys.exit(f"real_server.py: no real server for case {case!r} (cases: {', '.join(CASES)})")
    tool, _, seed = CASES[case]
    folder = Path(os.environ["STUDY_LOG"]).parent / f"real-{case}"
    fixtures(folder)
    if case == "real-read-text-file":
        entry = SERVERS / "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
        server = ["node", str(entry), str(folder)]
    else:
        server = [str(SERVERS / ".venv/bin/mcp-server-git")]
    drift = ["--drift", "identity"] if version == 1 else ["--drift", "parameter-renamed", "--drift-tool", tool]
    wrap = [os.environ["DRIFTLAB"], "wrap", *drift, "--seed", str(seed), "--enforce-drift"]
    os.chdir(folder)
    os.execvp(wrap[0], [*wrap, "--log", os.environ["STUDY_LOG"], "--", *server])


if __name__ == "__main__":
    main()
