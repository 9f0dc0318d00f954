//! MCP client configs and the multi-server lockfile (floors 8-9): which servers an agent runs,
//! capturing them into a lockfile, gating them against it, and `guard install`'s plan.

#![deny(missing_docs)]

pub mod config;
pub mod lock;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_check::{check, verdict};
use driftlab_contract::{digest, fs, json_scan, payload, pointer, surface, text};
use driftlab_live::live;
use driftlab_report::report;
