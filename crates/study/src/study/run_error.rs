//! What stops a study run: a defect (a generated payload the reader refuses), a live server
//! that failed, or an external checker that did.

use driftlab_contract::payload::PayloadError;

/// A failure inside the runner: a defect when the generator or a mutation produced a payload
/// the reader refuses; a property of the environment when a live server could not be captured.
#[derive(Debug, thiserror::Error)]
#[error("surface {surface}, mutation {mutation}: {failure}")]
pub struct RunError {
    /// The surface it failed on.
    pub surface: u64,
    /// The class it failed on.
    pub mutation: &'static str,
    /// Shown in the message above, so not chained as a source (`{:#}` would print it twice):
    /// a field named `source` would be one.
    pub failure: RunFailure,
}

/// What failed inside the runner.
#[derive(Debug, thiserror::Error)]
pub enum RunFailure {
    /// The reader refused a generated payload (a defect).
    #[error("generated payload was rejected: {0}")]
    Payload(#[from] PayloadError),
    /// A live server could not be captured.
    #[error(transparent)]
    Live(crate::study::live::LiveStudyError),
    /// An external checker failed.
    #[error(transparent)]
    Checker(#[from] crate::study::external::CheckerError),
}

impl RunError {
    /// Whether this is a defect in driftlab (exit 70) rather than a server that failed (exit 2).
    pub fn is_defect(&self) -> bool {
        matches!(self.failure, RunFailure::Payload(_))
    }
}
