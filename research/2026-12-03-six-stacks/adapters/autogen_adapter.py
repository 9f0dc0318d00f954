"""AutoGen's two documented MCP paths (autogen-ext's `autogen_ext.tools.mcp`):

- `default`: `McpWorkbench(StdioServerParams(...))`, whose call_tool the AutoGen agents use; it
  hands the arguments to the server as they came and answers with a ToolResult.
- `tools`: `mcp_server_tools(params, session=...)`, the tool adapters an
  `AssistantAgent(tools=...)` takes. The agent puts them in a StaticWorkbench, whose call_tool
  runs each adapter's run_json: the arguments are validated by a pydantic model built from the
  tool's inputSchema and dumped (unset fields left out) before they go to the server."""

from contextlib import asynccontextmanager

import json

from mcp_harness import Answer, content_text, main
from autogen_stack import answer_of  # the native row's reading of a ToolResult
from autogen_core.tools import StaticWorkbench
from autogen_ext.tools.mcp import McpWorkbench, StdioServerParams, create_mcp_server_session, mcp_server_tools


@asynccontextmanager
async def open_case(argv, env, option):
    params = StdioServerParams(command=argv[0], args=argv[1:], env=env, read_timeout_seconds=60)
    if option == "tools":
        # One session for the case, as the factory's documentation shows; without one each
        # call would start the server anew.
        async with create_mcp_server_session(params) as session:
            await session.initialize()
            try:
                workbench = StaticWorkbench(await mcp_server_tools(params, session=session))
            except Exception as error:  # noqa: BLE001 - the tools cannot be loaded: a finding
                # An agent built on these tools never starts (the factory raises when it turns
                # a schema into a pydantic model, e.g. a `type` list): every call fails so.
                failed = error

                async def invoke(name, arguments):
                    raise failed

                yield invoke
                return

            async def invoke(name, arguments):
                answer = answer_of(await workbench.call_tool(name, arguments))
                return Answer(returned=unwrapped(answer.returned)) if answer.error is None else answer

            yield invoke
        return
    async with McpWorkbench(params) as workbench:

        async def invoke(name, arguments):
            return answer_of(await workbench.call_tool(name, arguments))

        yield invoke


def unwrapped(text):
    """A tool adapter's answer is its MCP content blocks as JSON text; the model reads their
    text, as the other adapters hand it on."""
    try:
        blocks = json.loads(text)
    except (TypeError, ValueError):
        return text
    return content_text(blocks) if isinstance(blocks, list) else text


if __name__ == "__main__":
    main(open_case)
