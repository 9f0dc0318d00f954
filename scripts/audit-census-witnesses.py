#!/usr/bin/env python3
"""Re-judges every breaking witness of a census results folder with Python's jsonschema and no
driftlab code, as an outside auditor would: each witness must be accepted by the approved
release's schema with `format` asserted and with it read as an annotation only, and refused by
the new release's (for an output schema, the mirror). Prints each one that does not hold, then
the count. Needs `pip install jsonschema`.

Usage: scripts/audit-census-witnesses.py results/mcp-census-2026-12-05
"""
import csv
import json
import os
import sys

from jsonschema import FormatChecker, validators


def tools(root, package, version):
    ecosystem, name = package.split(":", 1)
    with open(os.path.join(root, "captures", ecosystem, name, version + ".json")) as f:
        capture = json.load(f)
    return {tool["name"]: tool for tool in capture["toolsList"]["tools"]}


def validator(schema, formats):
    cls = validators.validator_for(schema)
    return cls(schema, format_checker=FormatChecker() if formats else None)


def main():
    root = sys.argv[1]
    held = failed = 0
    with open(os.path.join(root, "findings.csv")) as f:
        for row in csv.DictReader(f):
            if not row["witness"] or row["severity"] != "breaking":
                continue
            old = tools(root, row["package"], row["old"])
            new = tools(root, row["package"], row["new"])
            old_name, new_name = row["tool"].split(" -> ")[0], row["tool"].split(" -> ")[-1]
            field = "outputSchema" if "/outputSchema" in row["pointer"] else "inputSchema"
            accepting = old[old_name].get(field) or {}
            rejecting = new[new_name].get(field) or {}
            if field == "outputSchema":
                accepting, rejecting = rejecting, accepting
            witness = json.loads(row["witness"])
            holds = (
                validator(accepting, True).is_valid(witness)
                and validator(accepting, False).is_valid(witness)
                and not validator(rejecting, True).is_valid(witness)
            )
            if holds:
                held += 1
            else:
                failed += 1
                print("DOES NOT HOLD", row["package"], row["old"], row["new"], row["tool"], row["pointer"])
    print(f"{held} witnesses hold, {failed} do not")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
