//! The studies: the study spec and runner, the six-stack study, the release census, `scan`, and
//! remote servers watched over time.
//!
//! The results folder as a type, external checkers and the study's report (floors 8-9).

#![deny(missing_docs)]

pub mod census;
pub mod scan;
pub mod stacks;
pub mod study;
pub mod watch;

// The tests read the registry: naming driftlab-rules links its hand-written rules into it.
#[cfg(test)]
use driftlab_rules as _;
