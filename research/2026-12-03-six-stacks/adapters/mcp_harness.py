"""The study's side of every MCP adapter row: the stacks/harness.py protocol on stdin and
stdout, with the tools coming from an MCP server over stdio through the stack's own MCP adapter
instead of native functions.

  python adapters/ADAPTER.py OPTION -- SERVER ARGV ({case} and {version} filled per case)

Per case, the adapter starts the server once (the case's tools at the request's version) and
makes every call of the case through its own MCP client, as an agent built on that stack
would. The body runs in the server, so what it received comes from the server's log: the
bench servers append one JSON line per body entry to $STUDY_LOG, which this harness sets per
case and reads after each call (calls run one at a time). The real servers run behind
`driftlab wrap --enforce-drift --log $STUDY_LOG` (bench/real_server.py), whose log records what
each call ran with in the same way.

An adapter provides `open_case(argv, env, option)`: an async context manager that starts the
server with that argv and environment and yields `async invoke(tool, arguments) -> Answer`.
"""

import asyncio
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "stacks"))

from harness import Answer, print_answer  # noqa: E402  (also takes stdout for the answers)
from mcp.client.session import ClientSession  # noqa: E402

# What the last tools/call answered, seen at the MCP client every adapter uses underneath (a tap
# for the study, which changes nothing): several adapters hand a result the server flagged
# `isError` to the model as the tool's ordinary output, and the model then reads an error text.
# Behind `driftlab guard` the tap also reads a refusal's rule from its structuredContent, so a
# refusal is told from the server's own errors whatever the adapter makes of it.
_last_result = {"is_error": False, "refused_by": None}
_call_tool = ClientSession.call_tool


async def _tapped_call_tool(self, *args, **kwargs):
    result = await _call_tool(self, *args, **kwargs)
    _last_result["is_error"] = bool(getattr(result, "isError", False))
    guard = (getattr(result, "structuredContent", None) or {}).get("driftlabGuard")
    if isinstance(guard, dict) and guard.get("refused") is True:
        _last_result["refused_by"] = guard.get("rule")
    return result


ClientSession.call_tool = _tapped_call_tool

# The calls of a case wait on one server; a start-up or a call that takes longer is a failure.
CASE_TIMEOUT_SECONDS = 90


class BodyLog:
    """The server's log of body entries, read from where the last read stopped."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0

    def take(self) -> list:
        try:
            with open(self.path, "rb") as log:
                log.seek(self.offset)
                data = log.read()
        except FileNotFoundError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        self.offset += len(complete)
        entries = [json.loads(line) for line in complete.splitlines() if line.strip()]
        # A body entry has `received` (wrap's log also records its other decisions).
        return [entry["received"] for entry in entries if "received" in entry]


def content_text(content) -> str:
    """An MCP result's content as a stack hands it on: its text blocks joined (LangChain keeps
    content blocks as dicts with a random id, which the study leaves out), or the text."""
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return content["text"]
    if isinstance(content, list):
        parts = [c.get("text", "") if isinstance(c, dict) else getattr(c, "text", str(c)) for c in content]
        return "\n".join(parts)
    return str(content)


def server_argv(case: str, version: int) -> list:
    if "--" not in sys.argv:
        sys.exit("usage: ADAPTER.py OPTION -- SERVER ARGV (with {case} and {version})")
    template = sys.argv[sys.argv.index("--") + 1 :]
    return [a.replace("{case}", case).replace("{version}", str(version)) for a in template]


async def run_case(open_case, case: str, version: int, calls: list, option: str, logs: Path) -> None:
    log = BodyLog(logs / f"{case}-v{version}.jsonl")
    env = {**os.environ, "STUDY_LOG": str(log.path)}
    async with open_case(server_argv(case, version), env, option) as invoke:
        for call in calls:
            log.take()
            _last_result["is_error"] = False
            _last_result["refused_by"] = None
            try:
                answer = await invoke(call["tool"], call["arguments"])
                if _last_result["is_error"] and answer.error is None:
                    text = content_text(answer.returned)
                    answer = Answer(error=text, error_type="isError text handed on as the tool's output")
            except Exception as error:  # noqa: BLE001 - what escaped the adapter is the finding
                answer = Answer(error=str(error), error_type=type(error).__name__, raised=True)
                if "--trace" in sys.argv:
                    traceback.print_exc()
            answer.refused_by = _last_result["refused_by"]
            print_answer(log.take(), answer)


def main(open_case) -> None:
    request = json.loads(sys.stdin.read())
    if request["op"] != "call":
        sys.exit("an adapter answers calls only; the schemas come from stacks/harness.py")
    option = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "--" else "default"
    with tempfile.TemporaryDirectory(prefix="driftlab-adapter-") as logs:
        for case, calls in request["cases"].items():
            asyncio.run(
                asyncio.wait_for(
                    run_case(open_case, case, request["version"], calls, option, Path(logs)),
                    CASE_TIMEOUT_SECONDS,
                )
            )
