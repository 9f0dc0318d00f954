//! Studies: the spec, the embedded default, the parallel runner.

mod checkers;
pub mod gate;
pub mod lines;
pub mod live;
mod outcome;
pub mod results;
pub mod runner;
pub mod spec;
pub mod splice;
pub mod sweep;
mod tally;

pub use runner::run;
pub use spec::{Study, StudySpec};
