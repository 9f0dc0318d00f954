"""The reference tools of the six-stack study, at version 1 and a drifted version 2, one case per
drift class the survey discusses. Written as each Python stack's users write tools: plain
functions with type hints and a docstring (LangChain's @tool, CrewAI's @tool, the Agents SDK's
@function_tool, AutoGen's FunctionTool and MCPServer's @tool all read exactly this).

Every body's first statement is `seen(locals())`: the harness learns what the tool body
received (after the stack validated, coerced or dropped anything), which is what the study
classifies. The zod twin of this file, for the MCP TypeScript SDK, is bench.mjs.
"""

from typing import Literal, TypedDict

_SEEN: list[dict] = []


def seen(arguments: dict) -> None:
    """Records the arguments a tool body was entered with."""
    _SEEN.append(dict(arguments))


def take_seen() -> list[dict]:
    """The bodies entered since the last call, and forgets them."""
    out = list(_SEEN)
    _SEEN.clear()
    return out


class ItemsV1(TypedDict):
    items: list[str]


class ResultsV2(TypedDict):
    results: list[str]


class DataV2(TypedDict):
    data: ResultsV2


# --- renamed-required: parameter-renamed, a required parameter ------------------------------


def get_forecast_v1(city: str) -> str:
    """Weather forecast for a city."""
    seen(locals())
    return f"sunny in {city}"


def get_forecast_v2(location: str) -> str:
    """Weather forecast for a location."""
    seen(locals())
    return f"sunny in {location}"


# --- renamed-optional: parameter-renamed, an optional parameter -----------------------------


def search_docs_v1(query: str, max_results: int = 5) -> str:
    """Searches the documentation."""
    seen(locals())
    return f"{max_results} results for {query}"


def search_docs_v2(query: str, limit: int = 5) -> str:
    """Searches the documentation."""
    seen(locals())
    return f"{limit} results for {query}"


# --- narrowed-float-int: parameter-type-narrowed, number -> integer -------------------------


def set_temperature_v1(celsius: float) -> str:
    """Sets the thermostat, in degrees Celsius."""
    seen(locals())
    return f"thermostat set to {celsius}"


def set_temperature_v2(celsius: int) -> str:
    """Sets the thermostat, in whole degrees Celsius."""
    seen(locals())
    return f"thermostat set to {celsius}"


# --- narrowed-list-str: parameter-type-narrowed, array of strings -> string -----------------


def tag_item_v1(item_id: str, labels: list[str]) -> str:
    """Adds labels to an item."""
    seen(locals())
    return f"{item_id} tagged {len(labels)} times"


def tag_item_v2(item_id: str, labels: str) -> str:
    """Adds comma-separated labels to an item."""
    seen(locals())
    return f"{item_id} tagged {len(labels.split(','))} times"


# --- enum-value-removed -------------------------------------------------------------------


def convert_temperature_v1(
    value: float,
    unit: Literal["celsius", "fahrenheit", "kelvin"],
) -> str:
    """Converts a Celsius temperature to the given unit."""
    seen(locals())
    offset = {"celsius": 0.0, "fahrenheit": 32.0, "kelvin": 273.15}[unit]
    return f"{value + offset} {unit}"


def convert_temperature_v2(
    value: float,
    unit: Literal["celsius", "fahrenheit"],
) -> str:
    """Converts a Celsius temperature to the given unit."""
    seen(locals())
    offset = {"celsius": 0.0, "fahrenheit": 32.0}[unit]
    return f"{value + offset} {unit}"


# --- required-added: required-parameter-added ---------------------------------------------


def send_message_v1(text: str) -> str:
    """Sends a message to the team."""
    seen(locals())
    return f"sent {text!r}"


def send_message_v2(text: str, channel: str) -> str:
    """Sends a message to a channel."""
    seen(locals())
    return f"sent {text!r} to {channel}"


# --- output-shape: output shape changed, {items} -> {data: {results}} -----------------------


def list_items_v1(folder: str) -> ItemsV1:
    """Lists the items in a folder."""
    seen(locals())
    return {"items": [f"{folder}/a", f"{folder}/b"]}


def list_items_v2(folder: str) -> DataV2:
    """Lists the items in a folder."""
    seen(locals())
    return {"data": {"results": [f"{folder}/a", f"{folder}/b"]}}


# --- tool-removed and tool-renamed --------------------------------------------------------


def get_alerts(region: str) -> str:
    """Active weather alerts for a region."""
    seen(locals())
    return f"no alerts in {region}"


def fetch_alerts(region: str) -> str:
    """Active weather alerts for a region."""
    seen(locals())
    return f"no alerts in {region}"


# --- real tools: a renamed optional parameter that was a filter ------------------------------
# Built from real tool schemas in the shared corpus: read_text_file of
# @modelcontextprotocol/server-filesystem 2026.8.31 (its head and tail are JSON numbers; whole
# lines here) and git_log of mcp-server-git 2026.10.19. Unlike search_docs' max_results=5, the
# optional parameters default to None: a call whose filter is dropped gets everything.

_FILE = [f"line {n}" for n in range(1, 41)]
_COMMITS = [f"2026-11-{day:02d} commit {day}" for day in range(30, 0, -1)]  # newest first


def read_text_file_v1(path: str, head: int | None = None, tail: int | None = None) -> str:
    """Read the complete contents of a file as text. Use 'head' to read only the first N lines,
    or 'tail' to read only the last N lines."""
    seen(locals())
    return _lines(head, tail)


def read_text_file_v2(path: str, max_lines: int | None = None, tail: int | None = None) -> str:
    """Read the complete contents of a file as text. Use 'max_lines' to read only the first N
    lines, or 'tail' to read only the last N lines."""
    seen(locals())
    return _lines(max_lines, tail)


def _lines(first: int | None, last: int | None) -> str:
    if first is not None:
        return "\n".join(_FILE[: max(first, 0)])
    if last is not None:
        return "\n".join(_FILE[len(_FILE) - max(min(last, len(_FILE)), 0) :])
    return "\n".join(_FILE)


def git_log_v1(repo_path: str, max_count: int = 10, start_timestamp: str | None = None) -> str:
    """Shows the commit logs, newest first: at most max_count, and only those at or after
    start_timestamp (an ISO date) when it is given."""
    seen(locals())
    return _log(max_count, start_timestamp)


def git_log_v2(repo_path: str, max_count: int = 10, since: str | None = None) -> str:
    """Shows the commit logs, newest first: at most max_count, and only those at or after
    since (an ISO date) when it is given."""
    seen(locals())
    return _log(max_count, since)


def _log(count: int, since: str | None) -> str:
    commits = [c for c in _COMMITS if since is None or c[:10] >= since]
    return "\n".join(commits[: max(count, 0)]) or "no commits"


def _named(function, name):
    function.__name__ = name
    function.__qualname__ = name
    return function


# Each case: its surface at version 1 and version 2 (tool name -> function, in list order).
CASES = {
    "renamed-required": (
        {"get_forecast": get_forecast_v1},
        {"get_forecast": get_forecast_v2},
    ),
    "renamed-optional": (
        {"search_docs": search_docs_v1},
        {"search_docs": search_docs_v2},
    ),
    "narrowed-float-int": (
        {"set_temperature": set_temperature_v1},
        {"set_temperature": set_temperature_v2},
    ),
    "narrowed-list-str": (
        {"tag_item": tag_item_v1},
        {"tag_item": tag_item_v2},
    ),
    "enum-value-removed": (
        {"convert_temperature": convert_temperature_v1},
        {"convert_temperature": convert_temperature_v2},
    ),
    "required-added": (
        {"send_message": send_message_v1},
        {"send_message": send_message_v2},
    ),
    "output-shape": (
        {"list_items": list_items_v1},
        {"list_items": list_items_v2},
    ),
    "tool-removed": (
        {"get_forecast": get_forecast_v1, "get_alerts": get_alerts},
        {"get_forecast": get_forecast_v1},
    ),
    "tool-renamed": (
        {"get_alerts": get_alerts},
        {"fetch_alerts": fetch_alerts},
    ),
    "real-read-text-file": (
        {"read_text_file": read_text_file_v1},
        {"read_text_file": read_text_file_v2},
    ),
    "real-git-log": (
        {"git_log": git_log_v1},
        {"git_log": git_log_v2},
    ),
}


def surface(case: str, version: int) -> dict:
    """The case's tools at `version` (1 or 2), each function renamed to its tool name."""
    tools = CASES[case][version - 1]
    return {name: _named(function, name) for name, function in tools.items()}
