//! Fuzzes the two TOML readers a user hands driftlab: the gate policy (`--policy`) and the study
//! spec (parsed and resolved; a spec naming real bases reads them through the bounded reader).
//! The first byte picks the reader. Nothing may panic; errors must name the file.
//! The body is `driftlab::fuzz::policy_and_spec`, so CI builds, lints and runs it on the seeds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| driftlab::fuzz::policy_and_spec(data));
