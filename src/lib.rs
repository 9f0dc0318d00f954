//! driftlab: a research harness and CI gate for MCP tool-schema drift.
//!
//! Data flows one way: `generate → mutate → check → record → study::results / plot / report`. The
//! payload reader and the rule registry do not know where a payload came from, so the same rules
//! serve the research study and the CI gate.
//!
//! This crate is the command line and the binary; the rooms below it are the workspace's crates
//! (`crates/`, one per band of floors in docs/architecture.md), re-exported here under the names
//! they had when driftlab was one crate.

pub use driftlab_check::{check, verdict};
pub use driftlab_contract::{
    digest, fs, id_problem, is_kebab_case, is_safe_id, jsonrpc, payload, rng, surface, text,
};
pub use driftlab_diff::{diff, witness};
pub use driftlab_live::live;
pub use driftlab_lock::{config, lock};
pub use driftlab_mutate::{generate, mutate};
pub use driftlab_plot::plot;
pub use driftlab_proxy::{guard, proxy};
pub use driftlab_record as record;
pub use driftlab_report::report;
pub use driftlab_study::{census, scan, stacks, study};

// Plumbing the command line uses; not a promise to library users.
use driftlab_contract::cleanup;

// The fuzz targets' bodies (for `fuzz/` and the seed test; not a library promise).
#[doc(hidden)]
pub mod fuzz;

// The command line as a library call: `cli::run_from` is what the binary, the tests and the fuzz
// targets run.
pub mod cli;

/// Makes the process whole before anything reads the registry or writes a manifest: hands the
/// hand-written rules to the registry and names the code this binary was built from. `cli::run_from`
/// calls it; a library user calling the crates directly calls it once first. Idempotent.
pub fn start() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        driftlab_rules::register();
        study::results::CodeVersion::register(code_version());
    });
}

/// The code this binary was built from (see build.rs).
fn code_version() -> study::results::CodeVersion {
    study::results::CodeVersion {
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
