"""LangChain / LangGraph: tools made with langchain_core's @tool, called the way a LangGraph
agent calls them: an AIMessage with tool calls handed to langgraph's prebuilt ToolNode (in a
compiled graph), which looks the tool up by name, validates the arguments and answers with a
ToolMessage.

Options: `default` (@tool reads the function's signature), `forbid` (@tool with a hand-written
args_schema, pydantic `extra="forbid"`)."""

from harness import Answer, main, parameters_model
import bench
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


def invoker_for(case: str, version: int, option: str):
    tools = []
    for name, function in bench.surface(case, version).items():
        if option == "forbid":
            tools.append(tool(name, args_schema=parameters_model(function, forbid=True))(function))
        else:
            tools.append(tool(function))
    # The smallest LangGraph agent graph: the tools node alone (the model's turn is the call).
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    app = graph.compile()

    def invoke(name, arguments):
        call = {"name": name, "args": arguments, "id": "call-1", "type": "tool_call"}
        out = app.invoke({"messages": [AIMessage(content="", tool_calls=[call])]})
        message = out["messages"][-1]
        if getattr(message, "status", "success") == "error":
            return Answer(error=str(message.content), error_type="ToolMessage(status=error)")
        return Answer(returned=message.content)

    return invoke


if __name__ == "__main__":
    main(invoker_for)
