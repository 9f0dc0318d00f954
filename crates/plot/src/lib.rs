//! Charts from a finished study summary.
//!
//! Floor 6: every chart as SVG and PNG.

#![deny(missing_docs)]

pub mod plot;

// The tests read the registry: naming driftlab-rules links its hand-written rules into it.
#[cfg(test)]
use driftlab_rules as _;
