//! Charts from a finished summary (floor 6).

#![deny(missing_docs)]

pub mod plot;

// The rooms below, by the paths (`crate::payload`) the code names them with.
use driftlab_check::check;
use driftlab_mutate::mutate;
use driftlab_record as record;
