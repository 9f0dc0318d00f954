//! Talking to real MCP servers over stdio and HTTP, in every protocol era (floor 3); their
//! processes never outlive driftlab.

#![deny(missing_docs)]

pub mod live;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_contract::{cleanup, payload, surface, text};
