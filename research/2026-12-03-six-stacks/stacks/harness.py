"""The study's side of every Python stack: reads one request on stdin, answers on stdout.

  {"op": "schemas"}
      -> {"cases": {case: {"v1": [tool], "v2": [tool]}}}: each tool's name and the JSON Schema
         of its parameters as pydantic reads the bench function (the canonical contract the
         study draws version-1 calls from).
  {"op": "call", "version": 1|2, "cases": {case: [{"tool": T, "arguments": {...}}, ...]}}
      -> one JSON line per call, cases in the order given: what the stack did with the call
         to the case's tools at that version (version 1 is the control).

A stack adapter provides `invoker_for(case, version, option) -> (tool, arguments) -> Answer`:
it builds the case's tools at that version natively and calls one through the stack's own
invocation path. The option is the adapter's first command-line argument.
"""

import json
import os
import sys
import traceback

# Stacks print banners and panels to stdout; the answers need it to themselves. Everything
# written to file descriptor 1 from here on goes to stderr, and the answers to a copy of it.
_ANSWERS = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import bench  # noqa: E402
from pydantic import ConfigDict, create_model  # noqa: E402
import inspect  # noqa: E402
import typing  # noqa: E402


@dataclass
class Answer:
    """What the caller (the agent loop) got back."""

    returned: object = None
    # An error the stack raised out of its invocation path, or handed back as the tool's result.
    error: str | None = None
    error_type: str | None = None
    raised: bool = False
    # Behind `driftlab guard`: the rule of the guard's refusal (the server never saw the call).
    refused_by: str | None = None


def parameters_model(function, forbid: bool):
    """The pydantic model of a function's parameters, as a user writes it by hand for
    `args_schema` (with `extra="forbid"` when asked)."""
    hints = typing.get_type_hints(function, include_extras=True)
    fields = {}
    for name, parameter in inspect.signature(function).parameters.items():
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (hints[name], default)
    config = ConfigDict(extra="forbid") if forbid else ConfigDict()
    return create_model(f"{function.__name__}_arguments", __config__=config, **fields)


def plain(value):
    """A returned value as JSON: dicts and lists as they are, a string that holds JSON or a
    Python literal read back (stacks stringify dict results), anything else as its string."""
    if isinstance(value, (dict, list, int, float, bool)) or value is None:
        return value
    text = str(value)
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import ast

        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def schemas() -> dict:
    cases = {}
    for case in bench.CASES:
        versions = {}
        for version in (1, 2):
            tools = []
            for name, function in bench.surface(case, version).items():
                model = parameters_model(function, forbid=False)
                tools.append({"name": name, "inputSchema": model.model_json_schema()})
            versions[f"v{version}"] = tools
        cases[case] = versions
    return {"cases": cases}


def main(invoker_for) -> None:
    request = json.loads(sys.stdin.read())
    if request["op"] == "schemas":
        print(json.dumps(schemas(), sort_keys=True), file=_ANSWERS, flush=True)
        return
    option = sys.argv[1] if len(sys.argv) > 1 else "default"
    version = request["version"]
    for case, calls in request["cases"].items():
        invoke = invoker_for(case, version, option)
        for call in calls:
            answer_call(invoke, call)


def answer_call(invoke, call) -> None:
    """Makes one call and prints what the body received and what the caller got back."""
    bench.take_seen()
    try:
        answer = invoke(call["tool"], call["arguments"])
    except Exception as error:  # noqa: BLE001 - what escaped the stack is the finding
        answer = Answer(error=str(error), error_type=type(error).__name__, raised=True)
        if "--trace" in sys.argv:
            traceback.print_exc()
    print_answer(bench.take_seen(), answer)


def print_answer(entered: list, answer: Answer) -> None:
    """Prints one call's line: what the body received (`entered`: its arguments at each entry)
    and what the caller got back."""
    line = {
        "entered": len(entered),
        "received": entered[0] if entered else None,
        "returned": plain(answer.returned) if answer.error is None else None,
        "error": answer.error,
        "error_type": answer.error_type,
        "raised": answer.raised,
    }
    if answer.refused_by is not None:
        line["refused_by"] = answer.refused_by
    print(json.dumps(line, sort_keys=True, default=str), file=_ANSWERS, flush=True)


if __name__ == "__main__":
    # Alone, the harness answers {"op": "schemas"}; calls need a stack adapter.
    main(None)
