"""AutoGen through autogen-ext's MCP workbench: `McpWorkbench(StdioServerParams(...))`, whose
call_tool the AutoGen agents use; it hands the arguments to the server as they came and answers
with a ToolResult."""

from contextlib import asynccontextmanager

from mcp_harness import main
from autogen_stack import answer_of  # the native row's reading of a ToolResult
from autogen_ext.tools.mcp import McpWorkbench, StdioServerParams


@asynccontextmanager
async def open_case(argv, env, option):
    params = StdioServerParams(command=argv[0], args=argv[1:], env=env, read_timeout_seconds=60)
    async with McpWorkbench(params) as workbench:

        async def invoke(name, arguments):
            return answer_of(await workbench.call_tool(name, arguments))

        yield invoke


if __name__ == "__main__":
    main(open_case)
