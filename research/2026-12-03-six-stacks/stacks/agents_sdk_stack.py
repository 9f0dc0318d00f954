"""OpenAI Agents SDK: tools made with @function_tool, called the way the SDK's Runner calls
them: a scripted Model answers the agent's first turn with one function call (the name and the
JSON arguments a model holding version 1 would write) and its second turn with a final text;
Runner.run looks the tool up, validates the arguments and runs it. No network: the model is
local and tracing is off.

Options: `strict` (the default, strict_mode=True), `non-strict` (strict_mode=False)."""

import asyncio
import json

from harness import Answer, main
import bench
from agents import Agent, ModelSettings, Runner, function_tool, set_tracing_disabled
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

set_tracing_disabled(True)

# The SDK's default failure_error_function answers the model with this text.
ERROR_PREFIX = "An error occurred while running the tool"


class ScriptedModel(Model):
    """Turn 1: call `name` with `arguments`; turn 2: finish."""

    def __init__(self, name: str, arguments: dict):
        self.name = name
        self.arguments = arguments
        self.turn = 0

    async def get_response(self, *args, **kwargs) -> ModelResponse:
        self.turn += 1
        if self.turn == 1:
            item = ResponseFunctionToolCall(
                type="function_call",
                id="fc_1",
                call_id="call_1",
                name=self.name,
                arguments=json.dumps(self.arguments),
                status="completed",
            )
        else:
            item = ResponseOutputMessage(
                type="message",
                id="msg_1",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text="done", annotations=[])],
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError("the study does not stream")


def invoker_for(case: str, version: int, option: str):
    strict = option != "non-strict"
    tools = [
        function_tool(function, name_override=name, strict_mode=strict)
        for name, function in bench.surface(case, version).items()
    ]

    def invoke(name, arguments):
        agent = Agent(
            name="study",
            instructions="",
            tools=tools,
            model=ScriptedModel(name, arguments),
            model_settings=ModelSettings(),
        )
        result = asyncio.run(Runner.run(agent, "go", max_turns=3))
        outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
        output = outputs[0] if outputs else None
        if isinstance(output, str) and output.startswith(ERROR_PREFIX):
            return Answer(error=output, error_type="failure_error_function text")
        return Answer(returned=output)

    return invoke


if __name__ == "__main__":
    main(invoker_for)
