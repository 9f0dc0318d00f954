"""The bench as an MCP server on stdio, made with the Python SDK's low-level `Server` (mcp 2.x:
`on_list_tools` / `on_call_tool` handlers), as its users write one: the tools/list declares the
inputSchema the high-level `MCPServer` derives from each bench function (the same input
contract as mcp_server.py's; an outputSchema only where the body returns structured data), and
a call's arguments go to the function as they came, with no validation:
`python mcp_server_lowlevel.py CASE VERSION`. Each tool body's arguments are appended to
$STUDY_LOG as JSON lines {"id": request id, "received": {...}} (mcp_server.py's log)."""

import json
import sys

import anyio
import bench
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp_server import _current, _log  # the study's log of what each body received


async def serve(case: str, version: int) -> None:
    functions = bench.surface(case, version)
    declared = MCPServer("schemas")
    for name, function in functions.items():
        declared.tool(name=name, description=function.__doc__)(function)
    # An outputSchema only where the body returns structured data: MCPServer also declares one
    # for a plain string (it wraps it as {"result": ...}), which a low-level server does not.
    tools = [
        tool if functions[tool.name].__annotations__.get("return") is not str else tool.model_copy(update={"output_schema": None})
        for tool in await declared.list_tools()
    ]

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params) -> types.CallToolResult:
        _current["id"] = ctx.request_id
        function = functions.get(params.name)
        if function is None:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"unknown tool {params.name}")], isError=True
            )
        try:
            result = function(**(params.arguments or {}))
        except Exception as error:  # the body failed: its users answer the error as text
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(error))], isError=True)
        if isinstance(result, dict):
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=json.dumps(result))], structuredContent=result
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(result))])

    server = Server(f"driftlab-bench-{case}-v{version}-lowlevel", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> None:
    bench.seen = _log
    anyio.run(serve, sys.argv[1], int(sys.argv[2]))


if __name__ == "__main__":
    main()
