//! The gate's output formats (floor 7): each renders a gate's report and a lockfile's report as
//! text and does no I/O.

#![deny(missing_docs)]

pub mod report;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_check::{check, verdict};
use driftlab_contract::{json_scan, payload, pointer, surface, text};
