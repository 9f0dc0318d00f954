#!/usr/bin/env python3
"""Writes the field census's spec: every npm and PyPI package of the official MCP registry's
seed list (modelcontextprotocol/registry, data/seed_2025_05_16.json; MIT) beside the 60 of the
2026-12-05 census, each with every release of the 12 months before 2026-12-06 (at most 12).
The seed's packages of unknown registry join where scripts/field-census-lookup.py found them
(FOUND: its output, committed beside the spec).

    scripts/field-census-spec.py SEED.json FOUND > research/2026-12-06-mcp-field-census/census.toml

A seed package gets a dummy value for each environment variable the registry names (an
address where the name says URL, HOST or ENDPOINT: a loopback port nothing listens on), no
arguments (the seed's are placeholders such as `--directory <path>`), and its only bin or
console script. The 2026-12-05 census's packages keep their hand-set starts."""

import json
import re
import sys
import tomllib
from pathlib import Path

SEED_COMMIT = "81e5174a593a7488715b0bf0ae77a4dc466b4d35"
ROOT = Path(__file__).resolve().parent.parent
OLD = ROOT / "research/2026-12-05-mcp-census/census.toml"


# A name each registry can hold (the seed has some repository paths in their place).
VALID = {
    "npm": re.compile(r"^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$"),
    "pypi": re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$"),
}


def toml_string(text):
    return json.dumps(text, ensure_ascii=False)


def dummy(name):
    upper = name.upper()
    if any(word in upper for word in ("URL", "HOST", "ENDPOINT", "URI")):
        return "http://127.0.0.1:9"
    if "PORT" in upper:
        return "9"
    return "dummy"


def entry(source, package):
    lines = ["[[package]]", f"source = {toml_string(source)}", "last = 12"]
    for key in ("bin", "script", "module"):
        if key in package:
            lines.append(f"{key} = {toml_string(package[key])}")
    if package.get("args"):
        lines.append("args = [" + ", ".join(map(toml_string, package["args"])) + "]")
    env = package.get("env") or {}
    if env:
        pairs = ", ".join(f"{toml_string(k)} = {toml_string(v)}" for k, v in sorted(env.items()))
        lines.append("env = { " + pairs + " }")
    return "\n".join(lines)


def main():
    seed = json.load(open(sys.argv[1]))
    found = {}
    for line in open(sys.argv[2]):
        source, _how = line.split()
        registry, name = source.split(":", 1)
        found[name] = registry
    old = tomllib.load(open(OLD, "rb"))
    chosen = {p["source"]: p for p in old["package"]}
    for server in seed:
        for package in server.get("packages") or []:
            name = package["name"].strip()
            registry = package.get("registry_name")
            if registry == "unknown":
                registry = found.get(name)
            if registry not in ("npm", "pypi"):
                continue
            source = f"{registry}:{name}"
            if source in chosen or not VALID[registry].match(name):
                continue
            env = {v["name"]: dummy(v["name"]) for v in package.get("environment_variables") or []
                   if v.get("name", "").replace("_", "").isalnum()}
            chosen[source] = {"source": source, "env": env}
    print(f"""# The field census: every npm and PyPI package of the official MCP registry's seed list
# (modelcontextprotocol/registry@{SEED_COMMIT[:12]}, data/seed_2025_05_16.json; its names of
# unknown registry where seed-unknown-found.txt places them) and the 60 of the 2026-12-05
# census, each with every release its registry dates from 2025-12-06 on (at most the last 12).
# Written by scripts/field-census-spec.py; method: docs/census.md.
id = "mcp-field-census-2026-12-06"
title = "MCP field census: a year of releases of {len(chosen)} servers from npm and PyPI"
capture_timeout_seconds = 30
install_timeout_seconds = 300
rule_set = "2026-12-04"
released_since = "2025-12-06"
# PyPI releases: Python 3.13 (27 packages list no release 3.11 may install), installed by
# the uv on PATH as of their upload (docs/census.md).
python = "python3.13"
""")
    old_sources = [p["source"] for p in old["package"]]
    rest = sorted(s for s in chosen if s not in old_sources)
    print("\n\n".join(entry(s, chosen[s]) for s in old_sources + rest))


main()
