//! The studies (floors 8-9): the study spec, runner and results folder, the six-stack study,
//! the release census, and `scan`.

#![deny(missing_docs)]

pub mod census;
pub mod scan;
pub mod stacks;
pub mod study;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_check::{check, verdict};
use driftlab_contract::{cleanup, contract, fs, payload, rng, surface, text};
use driftlab_contract::{id_problem, is_safe_id};
use driftlab_diff::diff;
use driftlab_live::live;
use driftlab_mutate::{generate, mutate};
use driftlab_plot::plot;
use driftlab_proxy::{guard, proxy};
use driftlab_record as record;
use driftlab_report::report;
