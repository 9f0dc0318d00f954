//! The witness search and the diff engine (floors 3-4): pairs two surfaces' tools and lists
//! every change, each proven by a witness where it is about what a schema accepts.

#![deny(missing_docs)]

pub mod diff;
pub mod witness;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_contract::{contract, lookup, payload, pointer, rng, surface, text};
