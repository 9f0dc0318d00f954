#!/usr/bin/env python3
"""Re-judges breaking witnesses with Python's jsonschema and no driftlab code, as an outside
auditor would: each witness must be accepted by the approved schema with `format` asserted and
with it read as an annotation only, and refused by the candidate's (for an output schema, the
mirror). Prints each one that does not hold, then the count; exits 1 if any does not. Needs
`pip install jsonschema rfc3987` (without rfc3987, jsonschema does not check `format: uri`, and
a witness for a `uri` format added looks accepted by the candidate).

Usage: scripts/audit-witnesses.py results/mcp-census-2026-12-05   (every census finding)
       scripts/audit-witnesses.py OLD.json NEW.json REPORT.json   (a `driftlab diff --format
       json` report of OLD -> NEW)
"""
import csv
import json
import os
import sys

from jsonschema import FormatChecker, validators


def tools_of(path):
    with open(path) as f:
        capture = json.load(f)
    if "contract" in capture:
        # A census stores each distinct contract once, under captures/contracts/DIGEST.json.
        captures = os.path.dirname(path)
        while os.path.basename(captures) != "captures":
            captures = os.path.dirname(captures)
        with open(os.path.join(captures, "contracts", capture["contract"] + ".json")) as f:
            capture = json.load(f)
    listing = capture["toolsList"] if "toolsList" in capture else capture
    return {tool["name"]: tool for tool in listing["tools"]}


def tools(root, package, version):
    ecosystem, name = package.split(":", 1)
    return tools_of(os.path.join(root, "captures", ecosystem, name, version + ".json"))


def validator(schema, formats):
    cls = validators.validator_for(schema)
    return cls(schema, format_checker=FormatChecker() if formats else None)


def holds(old, new, tool, pointer, witness):
    """Whether `witness` is accepted by the approved side and refused by the other."""
    old_name, new_name = tool.split(" -> ")[0], tool.split(" -> ")[-1]
    field = "outputSchema" if "/outputSchema" in pointer else "inputSchema"
    accepting = old[old_name].get(field) or {}
    rejecting = new[new_name].get(field) or {}
    if field == "outputSchema":
        accepting, rejecting = rejecting, accepting
    return (
        validator(accepting, True).is_valid(witness)
        and validator(accepting, False).is_valid(witness)
        and not validator(rejecting, True).is_valid(witness)
    )


def census(root):
    """(what, holds) for every breaking witness of a census results folder."""
    with open(os.path.join(root, "findings.csv")) as f:
        for row in csv.DictReader(f):
            if not row["witness"] or row["severity"] != "breaking":
                continue
            old = tools(root, row["package"], row["old"])
            new = tools(root, row["package"], row["new"])
            what = " ".join([row["package"], row["old"], row["new"], row["tool"], row["pointer"]])
            yield what, holds(old, new, row["tool"], row["pointer"], json.loads(row["witness"]))


def report(old_path, new_path, report_path):
    """(what, holds) for every breaking witness of one diff report."""
    old, new = tools_of(old_path), tools_of(new_path)
    with open(report_path) as f:
        findings = json.load(f)["findings"]
    for finding in findings:
        if finding["severity"] != "breaking" or "witness" not in finding:
            continue
        tool, pointer = finding["tool"], finding["pointer"]
        yield f"{finding['rule']} {tool} {pointer}", holds(old, new, tool, pointer, finding["witness"])


def main():
    checks = census(sys.argv[1]) if len(sys.argv) == 2 else report(*sys.argv[1:4])
    held = failed = 0
    for what, ok in checks:
        if ok:
            held += 1
        else:
            failed += 1
            print("DOES NOT HOLD", what)
    print(f"{held} witnesses hold, {failed} do not")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
