"""LangChain / LangGraph through langchain-mcp-adapters: the server's tools loaded with
`load_mcp_tools` on a session of `MultiServerMCPClient` (stdio), and called the way a LangGraph
agent calls them: an AIMessage with the tool call handed to langgraph's prebuilt ToolNode. The
adapter builds each tool's `args_schema` from the server's JSON Schema (a dict, which LangChain
does not validate against)."""

from contextlib import asynccontextmanager

from mcp_harness import Answer, content_text, main
from langchain_core.messages import AIMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode


@asynccontextmanager
async def open_case(argv, env, option):
    connection = {"transport": "stdio", "command": argv[0], "args": argv[1:], "env": env}
    client = MultiServerMCPClient({"bench": connection})
    async with client.session("bench") as session:
        tools = await load_mcp_tools(session)
        graph = StateGraph(MessagesState)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "tools")
        graph.add_edge("tools", END)
        app = graph.compile()

        async def invoke(name, arguments):
            call = {"name": name, "args": arguments, "id": "call-1", "type": "tool_call"}
            out = await app.ainvoke({"messages": [AIMessage(content="", tool_calls=[call])]})
            message = out["messages"][-1]
            if getattr(message, "status", "success") == "error":
                return Answer(error=content_text(message.content), error_type="ToolMessage(status=error)")
            return Answer(returned=content_text(message.content))

        yield invoke


if __name__ == "__main__":
    main(open_case)
