#!/usr/bin/env bash
# Regenerates the README's rule and mutation tables from the registries (a test checks they match).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
python3 - <<'PY'
import re, subprocess
readme = open("README.md").read()
for what in ["rules", "mutations"]:
    table = subprocess.run(["./target/release/driftlab", what, "--markdown"], check=True, capture_output=True, text=True).stdout
    marker = f"<!-- driftlab {what} --markdown -->\n"
    start = readme.index(marker) + len(marker)
    end = readme.index("<!-- end -->", start)
    readme = readme[:start] + table + readme[end:]
open("README.md", "w").write(readme)
PY
