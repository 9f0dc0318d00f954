#!/usr/bin/env bash
# Regenerates the rule table (docs/checkers.md) and the mutation table (docs/study.md) from the
# registries (a test checks they match).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
python3 - <<'PY'
import re, subprocess
for what, page in [("rules", "docs/checkers.md"), ("mutations", "docs/study.md")]:
    text = open(page).read()
    table = subprocess.run(["./target/release/driftlab", what, "--markdown"], check=True, capture_output=True, text=True).stdout
    marker = f"<!-- driftlab {what} --markdown -->\n"
    start = text.index(marker) + len(marker)
    end = text.index("<!-- end -->", start)
    open(page, "w").write(text[:start] + table + text[end:])
PY
