"""Hand-written: no agent framework. The tool table, the validation and the dispatch are the
user's own code, as the survey's sixth stack: a dict of tools, each with a pydantic model of
its parameters, and (option `forbid`) its JSON Schema checked with the jsonschema package first.

Options: `none` (validation off: the function called with the arguments as they came),
`pydantic` (model_validate with pydantic's default, extra="ignore"), `forbid` (jsonschema
Draft 2020-12 with additionalProperties false, then pydantic extra="forbid")."""

import jsonschema
from pydantic import ValidationError

from harness import Answer, main, parameters_model
import bench


def invoker_for(case: str, version: int, option: str):
    forbid = option == "forbid"
    table = {}
    for name, function in bench.surface(case, version).items():
        model = parameters_model(function, forbid=forbid)
        schema = model.model_json_schema()
        if forbid:
            schema["additionalProperties"] = False
        table[name] = (function, model, jsonschema.Draft202012Validator(schema))

    def invoke(name, arguments):
        if name not in table:
            return Answer(error=f"unknown tool {name!r}", error_type="unknown tool")
        function, model, validator = table[name]
        if option == "none":
            return Answer(returned=function(**arguments))
        if forbid:
            problems = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
            if problems:
                text = "; ".join(p.message for p in problems)
                return Answer(error=text, error_type="jsonschema ValidationError")
        try:
            parsed = model.model_validate(arguments)
        except ValidationError as error:
            return Answer(error=str(error), error_type="pydantic ValidationError")
        return Answer(returned=function(**parsed.model_dump()))

    return invoke


if __name__ == "__main__":
    main(invoker_for)
