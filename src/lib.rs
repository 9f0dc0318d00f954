//! driftlab: a research harness and CI gate for MCP tool-schema drift.
//!
//! Data flows one way: `generate → mutate → check → record → study::results / plot / report`. The
//! payload reader and the rule registry do not know where a payload came from, so the same rules
//! serve the research study and the CI gate.
//!
//! This crate is the command line and the binary; the rooms below it are the workspace's crates
//! (`crates/`, one per band of floors in docs/architecture.md), each named by its own path
//! (`driftlab_contract::payload`).

// The hand-written rules join the registry of driftlab-check at link time: naming the crate
// links it.
use driftlab_rules as _;

// The fuzz targets' bodies (for `fuzz/` and the seed test; not a library promise).
#[doc(hidden)]
pub mod fuzz;

// The command line as a library call: `cli::run_from` is what the binary, the tests and the fuzz
// targets run.
pub mod cli;

/// The code this binary was built from (see build.rs), as a results folder's manifest and
/// `run.json` record it: placed where the record crate reads it, at link time.
#[linkme::distributed_slice(driftlab_record::provenance::CODE_VERSION)]
static CODE_VERSION: fn() -> driftlab_record::provenance::CodeVersion = code_version;

fn code_version() -> driftlab_record::provenance::CodeVersion {
    driftlab_record::provenance::CodeVersion {
        version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: Some(env!("DRIFTLAB_GIT_COMMIT"))
            .filter(|c| !c.is_empty())
            .map(str::to_string),
        git_dirty: match env!("DRIFTLAB_GIT_DIRTY") {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        source_sha256: env!("DRIFTLAB_SOURCE_SHA256").to_string(),
    }
}
