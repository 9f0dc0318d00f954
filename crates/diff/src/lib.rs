//! The diff engine: every change between two surfaces, each proven by a witness where what a
//! schema accepts changed.
//!
//! The witness search and the engine that pairs two surfaces' tools (floors 3-4).

#![deny(missing_docs)]

pub mod diff;
pub mod witness;
