//! Deliberate contract changes: synthetic tool surfaces and mutation classes.
//!
//! Floor 3: the study's inputs.

#![deny(missing_docs)]

pub mod generate;
pub mod mutate;
