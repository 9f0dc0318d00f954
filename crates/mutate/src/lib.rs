//! Synthetic tool surfaces and mutation classes: deliberate contract changes (floor 3).

#![deny(missing_docs)]

pub mod generate;
pub mod mutate;

// The rooms below, by the paths (`crate::payload`) the code names them with.
#[cfg(test)]
use driftlab_contract::is_kebab_case;
use driftlab_contract::{lookup, payload, rng, surface};
