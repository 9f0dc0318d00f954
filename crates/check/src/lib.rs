//! The gate's judgement: the rule vocabulary, the rule registry, and the verdict a policy makes
//! of the findings.
//!
//! Floors 5-6. The hand-written rules live in `driftlab-rules`, whose table the linker gathers
//! into the registry (`check::rules::HAND_WRITTEN`), so changing one rebuilds only that crate
//! and the binary's.

#![deny(missing_docs)]

pub mod check;
pub mod verdict;
