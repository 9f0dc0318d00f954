#!/usr/bin/env bash
# The floor under reading a candidate: how fast can anything validate the study's payloads on
# this machine? Times, in one process over the same 1,000 generated surfaces (`driftlab
# generate`, about 1.5 KB each), driftlab's reader (`payload::read`, the approved surface's read)
# beside UTF-8 checks, serde_json skipping every token, and two SIMD JSON parsers (sonic-rs,
# simd-json), all built with `-C target-cpu=native` (the SIMD crates' best case).
# The crates are pinned here and built in a temporary crate, never added to driftlab.
# Usage: scripts/bench-json-floor.sh [REPETITIONS]   (default 200 passes over the 1,000 payloads)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
reps=${1:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --locked --quiet
./target/release/driftlab generate --surfaces 1000 >"$work/payloads.jsonl"
mkdir -p "$work/floor/src"
# Start from driftlab's lock file, so driftlab and its dependencies are the versions it ships.
cp Cargo.lock "$work/floor/Cargo.lock"
cat >"$work/floor/Cargo.toml" <<EOF
[package]
name = "floor"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
driftlab-contract = { path = "$repo/crates/contract" }
mimalloc = { version = "0.1", default-features = false }
serde = "1"
serde_json = "1"
simdutf8 = "=0.1.5"
sonic-rs = "=0.5.10"
simd-json = "=0.15.1"

[profile.release]
debug = "line-tables-only"
EOF
cat >"$work/floor/src/main.rs" <<'EOF'
use std::time::Instant;

use driftlab_contract::payload::{self, Limits};

// As in driftlab's binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("payloads file");
    let reps: usize = args.next().expect("repetitions").parse().expect("a number");
    let text = std::fs::read_to_string(file).expect("payloads");
    // Each line's `payload`, compact: the approved bytes the study reads.
    let payloads: Vec<Vec<u8>> = text
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("a generate row");
            serde_json::to_vec(&row["payload"]).expect("serializable")
        })
        .collect();
    let bytes: usize = payloads.iter().map(Vec::len).sum();
    println!(
        "{} payloads, mean {} bytes, {reps} passes, best of 5:",
        payloads.len(),
        bytes / payloads.len()
    );
    let time = |name: &str, accepts: &dyn Fn(&[u8]) -> bool| {
        let mut best = f64::MAX;
        for _ in 0..5 {
            let start = Instant::now();
            let mut accepted = 0;
            for _ in 0..reps {
                for p in &payloads {
                    accepted += usize::from(accepts(std::hint::black_box(p)));
                }
            }
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(accepted, reps * payloads.len(), "{name} refused a payload");
        }
        let n = (reps * payloads.len()) as f64;
        println!(
            "  {name:54} {:6.3} µs per payload, {:6.2} GB/s",
            best / n * 1e6,
            (bytes * reps) as f64 / best / 1e9
        );
    };
    time("UTF-8 check (std)", &|p| std::str::from_utf8(p).is_ok());
    time("UTF-8 check (simdutf8)", &|p| simdutf8::basic::from_utf8(p).is_ok());
    time("serde_json, skipping every token", &|p| {
        serde_json::from_slice::<serde::de::IgnoredAny>(p).is_ok()
    });
    time("sonic-rs, skipping every token", &|p| {
        sonic_rs::from_slice::<serde::de::IgnoredAny>(p).is_ok()
    });
    time("sonic-rs, LazyValue (validates, keeps a slice)", &|p| {
        sonic_rs::from_slice::<sonic_rs::LazyValue>(p).is_ok()
    });
    // simd-json parses in place, writing into its input, so each payload is copied first.
    time("simd-json, tape", &|p| {
        let mut copy = p.to_vec();
        simd_json::to_tape(&mut copy).is_ok()
    });
    time("driftlab payload::read (names, places, lazily parsed)", &|p| {
        payload::read(p, "candidate", Limits::default()).is_ok()
    });
}
EOF
echo "building the comparison (release, target-cpu=native)..."
CARGO_TARGET_DIR="$repo/target/floor" RUSTFLAGS="-C target-cpu=native" \
  cargo build --release --quiet --manifest-path "$work/floor/Cargo.toml"
"$repo/target/floor/release/floor" "$work/payloads.jsonl" "$reps"
