//! Fuzzes `driftlab merge` end to end, in-process: two real shards of a small study are written
//! once; each input replaces one file of shard 1 (the first byte picks manifest.json,
//! summary.json or rows.csv) and, for summary and rows, re-pins its sha256 in the manifest so the
//! bytes get past verification into parsing, matching and summing. Merge must answer 0 or 2
//! (never panic, never 70), and a merge that succeeds must leave a folder that verifies.
//! The body is `driftlab::fuzz::merge`, so CI builds, lints and runs it on the seeds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| driftlab::fuzz::merge(data));
