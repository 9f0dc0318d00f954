#!/usr/bin/env python3
"""Pins every `name==version` line of the requirement files given with the sha256 of each file
the index (PyPI) serves for that release, so `pip install --require-hashes` installs nothing but those
bytes: what `pip-compile --generate-hashes` writes, for files that are already a full freeze.
Comments and the order of the lines are kept; hashes already there are replaced.

  scripts/hash-requirements.py research/2026-12-03-six-stacks/requirements*.txt
"""

import json
import os
import re
import sys
import urllib.request

PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)")


def file_version(filename: str) -> str:
    """The version in a distribution file's name: a wheel's second field, an sdist's last."""
    if filename.endswith(".whl"):
        return filename.split("-")[1]
    for suffix in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
        if filename.endswith(suffix):
            return filename[: -len(suffix)].rsplit("-", 1)[-1]
    return ""


def hashes(name: str, version: str) -> list:
    """The sha256 of every file of the release, from the index's JSON simple API (PEP 691)."""
    request = urllib.request.Request(
        f"https://pypi.org/simple/{name}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        files = json.load(answer)["files"]
    found = sorted(
        {
            f["hashes"]["sha256"]
            for f in files
            if file_version(f["filename"]).lower() == version.lower() and "sha256" in f["hashes"]
        }
    )
    if not found:
        sys.exit(f"hash-requirements.py: the index lists no files for {name}=={version}")
    return found


def logical_lines(text: str) -> list:
    """The file's lines with `\\` continuations joined."""
    lines, current = [], ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        lines.append(current + line)
        current = ""
    if current:
        lines.append(current)
    return lines


def rewrite(path: str) -> None:
    out = []
    for line in logical_lines(open(path, encoding="utf-8").read()):
        pin = PIN.match(line.strip())
        if not pin:
            out.append(line)
            continue
        name, version = pin.groups()
        out.append(f"{name}=={version} \\")
        digests = hashes(name, version)
        for i, digest in enumerate(digests):
            tail = " \\" if i + 1 < len(digests) else ""
            out.append(f"    --hash=sha256:{digest}{tail}")
    with open(path + ".tmp", "w", encoding="utf-8") as new:
        new.write("\n".join(out) + "\n")
    os.replace(path + ".tmp", path)
    print(f"{path}: {sum(1 for l in out if PIN.match(l))} pins hashed")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for file in sys.argv[1:]:
        rewrite(file)
