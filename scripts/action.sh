#!/usr/bin/env bash
# The logic of the driftlab GitHub Action (action.yml): install driftlab, then gate a server
# against its approved snapshot (or re-record the snapshot). Inputs come as INPUT_* variables,
# as action.yml passes them; tests run it locally with a faked GITHUB_* environment.
#
#   INPUT_MODE       check (default) | snapshot
#   INPUT_APPROVED   the approved snapshot, a repository path (or REV:PATH in check mode)
#   INPUT_SERVER     the server's argv, one argument per line (never a shell string)
#   INPUT_URL        or a Streamable HTTP endpoint
#   INPUT_CANDIDATE  or a captured payload file
#   INPUT_FAIL_ON    breaking (default) | warning | any
#   INPUT_FORMAT     what the log shows: github (default: annotations) | text | markdown | json
#   INPUT_SARIF      where the SARIF report goes (default driftlab.sarif; empty: none)
#   INPUT_POLICY     a policy file
#   INPUT_CATEGORY   names the SARIF alert set (default: the approved snapshot's path)
#   INPUT_VERSION    the driftlab release to install (default: latest)
#
#   DRIFTLAB_BIN          use this binary instead of installing one (local runs, tests)
#   DRIFTLAB_RELEASE_BASE where release assets are downloaded from (default: the action's own
#                         repository's GitHub releases)
set -euo pipefail

die() {
  echo "driftlab action: $*" >&2
  exit 2
}

mode=${INPUT_MODE:-check}
approved=${INPUT_APPROVED:-}
version=${INPUT_VERSION:-latest}
[ -n "$approved" ] || die "the 'approved' input is required (a path such as mcp/approved.json)"
case "$mode" in check | snapshot) ;; *) die "mode '$mode': expected check or snapshot" ;; esac

# The Rust target of this runner; release.yml builds exactly these (a test compares the lists).
runner_target() {
  case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) echo x86_64-unknown-linux-gnu ;;
    Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    *) echo "" ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# Downloads the release archive for this runner and verifies its checksum, failing closed: a
# missing or wrong checksum stops the action. Prints the binary's path; prints nothing when
# this runner has no prebuilt archive or the release has none (then cargo installs).
download_release() {
  local target archive base dir
  target=$(runner_target)
  [ -n "$target" ] || return 0
  archive="driftlab-${target}.tar.gz"
  if [ -n "${DRIFTLAB_RELEASE_BASE:-}" ]; then
    base=$DRIFTLAB_RELEASE_BASE
  elif [ "$version" = latest ]; then
    base="https://github.com/${DRIFTLAB_ACTION_REPOSITORY:?}/releases/latest/download"
  else
    base="https://github.com/${DRIFTLAB_ACTION_REPOSITORY:?}/releases/download/v${version#v}"
  fi
  dir=$(mktemp -d)
  if ! curl -fsSL --retry 3 -o "$dir/$archive" "$base/$archive" 2>/dev/null; then
    echo "driftlab action: no prebuilt $archive at $base; building from source" >&2
    return 0
  fi
  curl -fsSL --retry 3 -o "$dir/$archive.sha256" "$base/$archive.sha256" 2>/dev/null ||
    die "$base/$archive.sha256 is missing: refusing an unverified binary"
  local expected actual
  expected=$(cut -d' ' -f1 <"$dir/$archive.sha256")
  actual=$(sha256_of "$dir/$archive")
  [ "$expected" = "$actual" ] ||
    die "checksum mismatch for $archive (expected $expected, got $actual): refusing it"
  tar -xzf "$dir/$archive" -C "$dir" driftlab || die "$archive: no driftlab binary inside"
  echo "$dir/driftlab"
}

install_driftlab() {
  if [ -n "${DRIFTLAB_BIN:-}" ]; then
    echo "$DRIFTLAB_BIN"
    return
  fi
  local bin
  bin=$(download_release) || exit $?
  if [ -n "$bin" ]; then
    echo "$bin"
    return
  fi
  # A binary the action's cache restored, when it is the version asked for.
  local cached="$HOME/.cargo/bin/driftlab"
  # `--version` prints "driftlab X.Y.Z (commit …)": the version is the second word.
  if [ "$version" != latest ] && [ -x "$cached" ] \
    && [ "$("$cached" --version | cut -d' ' -f2)" = "${version#v}" ]; then
    echo "$cached"
    return
  fi
  local source=(--git "https://github.com/${DRIFTLAB_ACTION_REPOSITORY:?}")
  [ "$version" = latest ] || source+=(--tag "v${version#v}")
  cargo install --locked --quiet "${source[@]}" driftlab >&2
  command -v driftlab
}

# The server after `--`, one argument per line; or --url; or a payload file.
target=()
if [ -n "${INPUT_SERVER:-}" ]; then
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    [ -n "$line" ] && target+=("$line")
  done <<<"$INPUT_SERVER"
  target=(-- "${target[@]}")
fi
# (`${a[@]+"${a[@]}"}`: an empty array under `set -u` in the bash 3.2 of macOS runners.)
if [ -n "${INPUT_URL:-}" ]; then
  target=(--url "$INPUT_URL" ${target[@]+"${target[@]}"})
fi
if [ -n "${INPUT_CANDIDATE:-}" ]; then
  [ "$mode" = check ] || die "mode snapshot records from a server ('server' or 'url'), not a file"
  target=("$INPUT_CANDIDATE" ${target[@]+"${target[@]}"})
fi
[ ${#target[@]} -gt 0 ] || die "give the 'server' (argv, one argument per line), 'url' or 'candidate' input"

driftlab=$(install_driftlab) || exit $?
echo "driftlab action: $("$driftlab" --version)" >&2

if [ "$mode" = snapshot ]; then
  "$driftlab" snapshot -o "$approved" "${target[@]}"
  [ -z "${GITHUB_OUTPUT:-}" ] || echo "verdict=recorded" >>"$GITHUB_OUTPUT"
  exit 0
fi

args=(check --approved "$approved" --fail-on "${INPUT_FAIL_ON:-breaking}" --format "${INPUT_FORMAT:-github}")
sarif=${INPUT_SARIF-driftlab.sarif}
[ -z "$sarif" ] || args+=(--sarif "$sarif")
[ -z "${INPUT_POLICY:-}" ] || args+=(--policy "$INPUT_POLICY")
[ -z "${INPUT_CATEGORY:-}" ] || args+=(--category "$INPUT_CATEGORY")

status=0
"$driftlab" "${args[@]}" "${target[@]}" || status=$?
# driftlab wrote verdict, breaking and findings to GITHUB_OUTPUT; the SARIF path is ours.
if [ -n "${GITHUB_OUTPUT:-}" ] && [ -n "$sarif" ] && [ -f "$sarif" ]; then
  echo "sarif=$sarif" >>"$GITHUB_OUTPUT"
fi
exit "$status"
