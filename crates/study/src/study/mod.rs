//! Studies: the spec, the embedded default, the parallel runner.

mod bases;
mod checkers;
mod evaluate;
pub mod external;
pub mod gate;
pub mod headline;
pub mod lines;
pub mod live;
mod outcome;
pub mod report;
pub mod results;
mod run_error;
pub mod runner;
pub mod spec;
pub mod splice;
pub mod sweep;
mod tally;

pub use runner::run;
pub use spec::{Study, StudySpec};
