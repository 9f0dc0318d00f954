"""AutoGen (autogen-core): tools made with FunctionTool, called the way AutoGen's agents call
them: through a StaticWorkbench, whose call_tool finds the tool by name, runs run_json (the
arguments validated by the tool's pydantic model) and answers with a ToolResult.

Options: `default` (FunctionTool(strict=False)), `strict` (FunctionTool(strict=True))."""

import asyncio

from harness import Answer, main
import bench
from autogen_core.tools import FunctionTool, StaticWorkbench


def invoker_for(case: str, version: int, option: str):
    tools = [
        FunctionTool(function, description=function.__doc__, name=name, strict=option == "strict")
        for name, function in bench.surface(case, version).items()
    ]
    workbench = StaticWorkbench(tools)

    return lambda name, arguments: answer_of(asyncio.run(workbench.call_tool(name, arguments)))


def answer_of(result) -> Answer:
    """A workbench's ToolResult as the agent reads it (also the MCP workbench row's)."""
    text = "".join(getattr(part, "content", "") for part in result.result)
    if result.is_error:
        return Answer(error=text, error_type="ToolResult(is_error=True)")
    return Answer(returned=text)


if __name__ == "__main__":
    main(invoker_for)
