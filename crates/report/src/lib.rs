//! The gate's output formats.
//!
//! Each renders a gate's report and a lockfile's report as text and does no I/O (floor 7).

#![deny(missing_docs)]

pub mod report;

// The tests read the registry: naming driftlab-rules links its hand-written rules into it.
#[cfg(test)]
use driftlab_rules as _;
