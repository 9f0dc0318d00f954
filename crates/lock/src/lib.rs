//! MCP client configs and the multi-server lockfile.
//!
//! Which servers an agent runs, capturing them into a lockfile, gating them against it, and
//! `guard install`'s plan (floors 8-9).

#![deny(missing_docs)]

pub mod config;
pub mod lock;
