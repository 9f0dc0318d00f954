#!/usr/bin/env python3
"""Finds the registry of the official MCP registry seed's packages of unknown registry: each
name is looked up on npm and on PyPI and kept where
- that registry's metadata names the seed entry's GitHub repository (`repository`), or
- no registry names it, exactly one registry holds the name with no repository named at all,
  and the name says `mcp` (`name`): a bare name could be another project's (`todos`,
  `fetch`, `backend` are), and a package that names another repository is another project.
Prints one `npm:NAME HOW` or `pypi:NAME HOW` line per package found, sorted, for
scripts/field-census-spec.py.

    scripts/field-census-lookup.py SEED.json > research/2026-12-06-mcp-field-census/seed-unknown-found.txt

Reads the registries this machine's npm and pip use (registry.npmjs.org, pypi.org)."""

import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

VALID = {
    "npm": re.compile(r"^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$"),
    "pypi": re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$"),
}
GITHUB = re.compile(r"github\.com[/:]([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)", re.I)


def repositories(value):
    """Every GitHub owner/name a JSON value mentions, lowercased, without `.git`."""
    found = set()
    for owner, name in GITHUB.findall(json.dumps(value)):
        name = re.sub(r"\.git$", "", name)
        found.add(f"{owner}/{name}".lower())
    return found


def fetch(url):
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise


def npm_repositories(name):
    packument = fetch("https://registry.npmjs.org/" + urllib.parse.quote(name, safe="@"))
    if packument is None:
        return None
    latest = packument.get("dist-tags", {}).get("latest")
    version = packument.get("versions", {}).get(latest, {})
    keys = ("repository", "homepage", "bugs")
    return repositories([packument.get(k) for k in keys] + [version.get(k) for k in keys])


def pypi_repositories(name):
    project = fetch(f"https://pypi.org/pypi/{urllib.parse.quote(name)}/json")
    if project is None:
        return None
    info = project.get("info", {})
    return repositories([info.get("project_urls"), info.get("home_page"), info.get("download_url")])


def look_up(package):
    name, seed_repos = package
    held = {}
    for registry, lookup in (("npm", npm_repositories), ("pypi", pypi_repositories)):
        if VALID[registry].match(name):
            repos = lookup(name)
            if repos is not None:
                held[registry] = repos
    by_repository = [r for r, repos in held.items() if repos & seed_repos]
    if by_repository:
        return [f"{r}:{name} repository" for r in by_repository]
    if len(held) == 1 and "mcp" in name.lower():
        (registry, repos), = held.items()
        if not repos:
            return [f"{registry}:{name} name"]
    return []


def main():
    seed = json.load(open(sys.argv[1]))
    unknown = {}
    for server in seed:
        seed_repos = repositories((server.get("repository") or {}).get("url"))
        for package in server.get("packages") or []:
            if package.get("registry_name") == "unknown" and seed_repos:
                unknown.setdefault(package["name"].strip(), set()).update(seed_repos)
    with ThreadPoolExecutor(8) as pool:
        lines = sorted(line for found in pool.map(look_up, sorted(unknown.items())) for line in found)
    print("\n".join(lines))
    print(f"{len(lines)} of {len(unknown)} names found", file=sys.stderr)


main()
