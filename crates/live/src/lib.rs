//! Talking to real MCP servers over stdio and HTTP, in every protocol era.
//!
//! Their processes never outlive driftlab (floor 3).

#![deny(missing_docs)]

pub mod live;
