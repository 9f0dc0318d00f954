//! The live half (floors 6-7): the stdio MCP proxy, the drifted server of `wrap`, and the
//! runtime admission guard with its study.

#![deny(missing_docs)]

pub mod guard;
pub mod proxy;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_check::{check, verdict};
use driftlab_contract::id_problem;
use driftlab_contract::{contract, fs, jsonrpc, payload, rng, surface, text};
use driftlab_diff::diff;
use driftlab_live::live;
use driftlab_mutate::mutate;
use driftlab_plot::plot;
