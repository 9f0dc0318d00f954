//! driftlab: a research harness and CI gate for MCP tool-schema drift.
//!
//! Data flows one way: `generate → mutate → check → record → study::results / plot / report`. The
//! payload reader and the rule registry do not know where a payload came from, so the same rules
//! serve the research study and the CI gate.

// The library: reading, checking and studying MCP contracts. Each module's header says what it
// promises; `docs/architecture.md` draws how they stack.
pub mod census;
pub mod check;
pub mod config;
pub mod diff;
pub mod digest;
pub mod generate;
pub mod guard;
pub mod jsonrpc;
pub mod live;
pub mod lock;
pub mod mutate;
pub mod payload;
pub mod plot;
pub mod proxy;
pub mod record;
pub mod report;
pub mod rng;
pub mod scan;
pub mod stacks;
pub mod study;
pub mod surface;
pub mod verdict;
pub mod witness;

// Shared vocabulary a library user meets in the types above: bounded file reading and atomic
// writes (`fs::ReadError`), and server text made safe to print (`text`).
pub mod fs;
pub mod text;

// The fuzz targets' bodies (for `fuzz/` and the seed test; not a library promise).
#[doc(hidden)]
pub mod fuzz;

// The command line as a library call: `cli::run_from` is what the binary, the tests and the fuzz
// targets run.
pub mod cli;

// Plumbing the modules above share; not a promise to library users.
mod cleanup;
mod contract;
mod json_scan;
mod pointer;

/// `kebab-case`: lowercase ASCII words of letters and digits joined by single hyphens.
pub fn is_kebab_case(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Why a spec's `id` cannot name its results folder (`results/<id>`), or `None` when it can.
/// Every spec whose id becomes a path checks it here.
pub fn id_problem(id: &str) -> Option<String> {
    (!is_safe_id(id)).then(|| {
        format!(
            "{id:?} must be 1-100 characters of a-z, 0-9, '-', '_', '.', '+' and not start with '.'"
        )
    })
}

/// Safe as a folder name: 1–100 of `a-z 0-9 - _ . +`, not starting with a dot.
pub fn is_safe_id(id: &str) -> bool {
    (1..=100).contains(&id.len())
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.+".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_case() {
        assert!(is_kebab_case("input-schema-null"));
        assert!(is_kebab_case("structural"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b"] {
            assert!(!is_kebab_case(bad), "{bad}");
        }
    }

    #[test]
    fn safe_ids() {
        assert!(is_safe_id("mcp-contract-drift-2026-08-22"));
        for bad in ["", ".", "..", "../x", "a/b", "A"] {
            assert!(!is_safe_id(bad), "{bad}");
        }
    }
}
