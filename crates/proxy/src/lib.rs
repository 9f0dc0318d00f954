//! The live proxy: the stdio MCP proxy, the drifted server of `wrap`, and the runtime admission
//! guard.
//!
//! Floors 6-7; the guard's study lives here too.

#![deny(missing_docs)]

pub mod guard;
pub mod proxy;

// The tests read the registry: naming driftlab-rules links its hand-written rules into it.
#[cfg(test)]
use driftlab_rules as _;
