"""CrewAI through crewai-tools' MCP adapter: `MCPServerAdapter(StdioServerParameters(...))`
(mcpadapt underneath) yields CrewAI tools whose args_schema is a pydantic model built from the
server's JSON Schema; each is called the way a CrewAI agent calls a tool (stacks/crewai_stack.py:
an AgentAction handed to execute_tool_and_check_finality)."""

import os
from contextlib import asynccontextmanager

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from mcp_harness import main  # noqa: E402
from crewai_stack import call  # noqa: E402  (the native row's call path)
from crewai_tools import MCPServerAdapter  # noqa: E402
from mcp import StdioServerParameters  # noqa: E402


@asynccontextmanager
async def open_case(argv, env, option):
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    # The adapter runs its MCP session on a thread of its own; its tools are called synchronously.
    with MCPServerAdapter(params, connect_timeout=60) as tools:
        structured = [t.to_structured_tool() for t in tools]

        async def invoke(name, arguments):
            return call(structured, name, arguments)

        yield invoke


if __name__ == "__main__":
    main(open_case)
