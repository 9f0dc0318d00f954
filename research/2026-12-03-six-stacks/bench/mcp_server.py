"""The bench as an MCP server on stdio, made with the Python SDK's MCPServer (mcp 2.x, the
FastMCP of mcp 1.x): `python mcp_server.py CASE VERSION`. Each tool body's arguments are
appended to $STUDY_LOG as JSON lines {"id": request id, "received": {...}}, so the study sees
what the body got after the SDK validated the call.

Each bench function is registered as its users write one that wants the request: with a
`ctx: Context` parameter, which MCPServer keeps out of the inputSchema."""

import functools
import inspect
import json
import os
import sys

import bench
from mcp.server.mcpserver import Context, MCPServer

_current = {"id": None}


def _log(arguments: dict) -> None:
    path = os.environ.get("STUDY_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"id": _current["id"], "received": arguments}, sort_keys=True) + "\n")


def with_context(function):
    signature = inspect.signature(function)
    parameters = list(signature.parameters.values())
    parameters.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context))

    @functools.wraps(function)
    def tool(*args, ctx: Context, **kwargs):
        _current["id"] = ctx.request_id
        return function(*args, **kwargs)

    tool.__signature__ = signature.replace(parameters=parameters)
    tool.__annotations__ = {**function.__annotations__, "ctx": Context}
    del tool.__wrapped__
    return tool


def main() -> None:
    case, version = sys.argv[1], int(sys.argv[2])
    bench.seen = _log
    server = MCPServer(f"driftlab-bench-{case}-v{version}")
    for name, function in bench.surface(case, version).items():
        server.tool(name=name, description=function.__doc__)(with_context(function))
    server.run("stdio")


if __name__ == "__main__":
    main()
