//! The bodies of the cargo-fuzz targets in `fuzz/`: each takes one input and panics on a bug.
//! They live in the library so that CI compiles and lints them with everything else, and a test
//! runs each on the committed seeds (`tests/it/fuzz_seeds.rs`); `fuzz/fuzz_targets/` only wraps
//! them for libFuzzer.

mod client_config;
mod guard_line;
mod merge;
mod payload_and_diff;
mod policy_and_spec;
mod splice;

pub use {
    client_config::client_config, guard_line::guard_line, merge::merge,
    payload_and_diff::payload_and_diff, policy_and_spec::policy_and_spec, splice::splice,
};
