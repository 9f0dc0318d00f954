//! The gate's judgement: the rule vocabulary and registry, and the verdict a policy makes of
//! the findings (floors 5-6). The hand-written rules live in `driftlab-rules`, which hands them to
//! the registry at start (`check::rules::register`), so changing one rebuilds only that crate and
//! the binary's.

#![deny(missing_docs)]

pub mod check;
pub mod verdict;

// The rooms below, by the paths (`crate::payload`) the code names them with.
#[cfg(test)]
use driftlab_contract::payload;
use driftlab_contract::{pointer, surface, text};
use driftlab_diff::{diff, witness};
