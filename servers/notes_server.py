"""A small MCP server on the pinned Python SDK (mcp 2.3.x, servers/requirements.txt) for driftlab's
protocol-era tests: the SDK serves both eras on one stdio connection (the client's first request
decides), `initialize` (2024-11-05 … 2025-11-25) and 2026-07-28's `server/discover` with `_meta`
on every request. It offers a tool, a prompt, a resource, a resource template and instructions, so
a capture in either era holds the whole contract.

Run: servers/.venv/bin/python servers/notes_server.py   (stdio)
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes", instructions="Search before you read a note.")


@server.tool()
def search(query: str, limit: int = 10) -> list[str]:
    """Search the notes."""
    return [query][:limit]


@server.prompt()
def summarize(note: str, style: str = "short") -> str:
    """Summarize a note."""
    return f"Summarize {note} in a {style} style"


@server.resource("notes://index")
def index() -> str:
    """All notes."""
    return "a\nb"


@server.resource("notes://note/{id}")
def note(id: str) -> str:
    """One note."""
    return id


if __name__ == "__main__":
    server.run()
