# Sourced by the paired-timing scripts (ab.sh, bench-taxonomy-vs.sh): `build_beside COMMIT`
# builds COMMIT in a temporary worktree beside this checkout, and this checkout, both in release.
# It sets `work` (the temporary folder, removed on exit), `before` (COMMIT's binary) and `now`
# (this checkout's binary).
build_beside() {
  work=$(mktemp -d)
  trap 'git worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  git worktree add --detach --quiet "$work/tree" "$1"
  echo "building $1 and this checkout (release)..."
  CARGO_TARGET_DIR="$work/target" cargo build --release --locked --quiet \
    --manifest-path "$work/tree/Cargo.toml"
  cargo build --release --locked --quiet
  before="$work/target/release/driftlab"
  now=./target/release/driftlab
}
