"""CrewAI: tools made with crewai's @tool decorator, called the way a CrewAI agent calls them:
an AgentAction (tool name and JSON input, as the model wrote them) handed to
crewai.utilities.tool_utils.execute_tool_and_check_finality, which finds the tool by name,
hands the input to ToolUsage and answers with the text the agent sees next.

Options: `default` (@tool reads the function's signature), `args-schema` (a Tool with a
hand-written args_schema, pydantic's default `extra="ignore"`), `forbid` (the same with
`extra="forbid"`)."""

import json
import os

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

from harness import Answer, main, parameters_model  # noqa: E402
import bench  # noqa: E402
from crewai.agents.parser import AgentAction  # noqa: E402
from crewai.tools import tool  # noqa: E402
from crewai.tools.base_tool import Tool  # noqa: E402
from crewai.utilities.i18n import get_i18n  # noqa: E402
from crewai.utilities.tool_utils import execute_tool_and_check_finality  # noqa: E402


def invoker_for(case: str, version: int, option: str):
    tools = []
    for name, function in bench.surface(case, version).items():
        if option in ("args-schema", "forbid"):
            made = Tool(
                name=name,
                description=function.__doc__,
                func=function,
                args_schema=parameters_model(function, forbid=option == "forbid"),
            )
        else:
            made = tool(name)(function)
        tools.append(made.to_structured_tool())
    return lambda name, arguments: call(tools, name, arguments)


def call(tools, name, arguments) -> Answer:
    """One call the way a CrewAI agent makes it (also the MCP adapter row's path)."""
    text = json.dumps(arguments)
    action = AgentAction(thought="", tool=name, tool_input=text, text=text)
    result = execute_tool_and_check_finality(agent_action=action, tools=tools, i18n=get_i18n())
    # CrewAI hands errors to the model as the tool's text, in its i18n wording.
    if str(result.result).lstrip().startswith("I encountered an error"):
        return Answer(error=str(result.result).strip(), error_type="ToolUsage error text")
    return Answer(returned=result.result)


if __name__ == "__main__":
    main(invoker_for)
