//! Fuzzes the client-config reader (JSON with comments, Codex TOML, variable expansion) and the
//! installer's rewrite: nothing may panic, errors name the file, and every server with a command
//! can be rewritten into a config that reads back with the new argv.
//! The body is `driftlab::fuzz::client_config`, so CI builds, lints and runs it on the seeds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| driftlab::fuzz::client_config(data));
