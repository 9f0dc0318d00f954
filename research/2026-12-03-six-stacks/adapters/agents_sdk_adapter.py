"""OpenAI Agents SDK through its own MCP server class: `MCPServerStdio` handed to the Agent's
`mcp_servers`, called the way the SDK's Runner calls a tool: a scripted model (the one of
stacks/agents_sdk_stack.py) answers the first turn with one function call and the second with
a final text. The SDK turns each MCP tool into a FunctionTool whose JSON Schema comes from the
server (not strict: `convert_schemas_to_strict` is off by default) and hands the arguments to
the server as the model wrote them. No network: the model is local and tracing is off."""

from contextlib import asynccontextmanager

from mcp_harness import Answer, content_text, main
from agents import Agent, ModelSettings, Runner
from agents.items import ToolCallOutputItem
from agents.mcp import MCPServerStdio
from agents_sdk_stack import ERROR_PREFIX, ScriptedModel  # also turns tracing off


@asynccontextmanager
async def open_case(argv, env, option):
    params = {"command": argv[0], "args": argv[1:], "env": env}
    async with MCPServerStdio(params=params, cache_tools_list=True, client_session_timeout_seconds=60) as server:

        async def invoke(name, arguments):
            agent = Agent(
                name="study",
                instructions="",
                mcp_servers=[server],
                model=ScriptedModel(name, arguments),
                model_settings=ModelSettings(),
            )
            result = await Runner.run(agent, "go", max_turns=3)
            outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
            output = outputs[0] if outputs else None
            if isinstance(output, str) and output.startswith(ERROR_PREFIX):
                return Answer(error=output, error_type="failure_error_function text")
            # An MCP tool's output is its content items; the model reads their text.
            return Answer(returned=content_text(output) if isinstance(output, (dict, list)) else output)

        yield invoke


if __name__ == "__main__":
    main(open_case)
