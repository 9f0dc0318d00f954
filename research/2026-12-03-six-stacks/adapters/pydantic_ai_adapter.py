"""Pydantic AI through its MCP toolset: `MCPToolset` on a FastMCP stdio client, handed to an
Agent whose model is a scripted `FunctionModel` (turn 1: one tool call with the arguments a
model holding version 1 would write; turn 2: a final text). What the model saw after the call
is the tool's return: its outcome says whether it is an answer or an error the model is asked to
retry on (an unknown tool, arguments that fail the check, or an error the server answered, with
`tool_error_behavior="retry"`, the default)."""

from contextlib import asynccontextmanager

from mcp_harness import Answer, content_text, main
from fastmcp.client import Client
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import BaseToolReturnPart, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def scripted(name: str, arguments: dict):
    def model(messages, info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(tool_name=name, args=arguments, tool_call_id="call_1")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(model)


@asynccontextmanager
async def open_case(argv, env, option):
    toolset = MCPToolset(Client(StdioTransport(command=argv[0], args=argv[1:], env=env)))
    async with toolset:

        async def invoke(name, arguments):
            agent = Agent(scripted(name, arguments), toolsets=[toolset])
            result = await agent.run("go")
            for message in result.all_messages():
                if not isinstance(message, ModelRequest):
                    continue
                for part in message.parts:
                    if isinstance(part, RetryPromptPart):
                        return Answer(error=part.model_response(), error_type="RetryPromptPart")
                    if isinstance(part, BaseToolReturnPart):
                        content = content_text(part.content) if isinstance(part.content, list) else part.content
                        if part.outcome != "success":  # retried or failed: the model reads an error
                            return Answer(error=content_text(content), error_type=f"tool return, outcome={part.outcome}")
                        return Answer(returned=content)
            return Answer(error="the model saw no answer to its call", error_type="no tool return")

        yield invoke


if __name__ == "__main__":
    main(open_case)
