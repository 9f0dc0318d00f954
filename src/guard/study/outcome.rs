//! What the guard study records per call: the verdict on each path and what decided it, and
//! the cells it could not run.

use serde::Serialize;

use crate::mutate::Label;

/// What one call met, on one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The server ran the call with the client's arguments and answered.
    AcceptedCorrect,
    /// The server answered success but ran without some argument the client sent.
    AcceptedWrong,
    /// The server refused the call with an error.
    RejectedWithError,
    /// No answer, or the server died.
    CrashTimeout,
    /// The guard refused the call with a correction; the server never saw it.
    RefusedByGuard,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [
        Verdict::AcceptedCorrect,
        Verdict::AcceptedWrong,
        Verdict::RejectedWithError,
        Verdict::CrashTimeout,
        Verdict::RefusedByGuard,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::AcceptedCorrect => "accepted-correct",
            Verdict::AcceptedWrong => "accepted-wrong",
            Verdict::RejectedWithError => "rejected-with-error",
            Verdict::CrashTimeout => "crash-timeout",
            Verdict::RefusedByGuard => "refused-by-guard",
        }
    }
}

/// One path's result for one call: the verdict and what decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathResult {
    pub verdict: Verdict,
    /// The outcome, the dropped arguments, or the guard's rule.
    pub detail: String,
}

/// One call of one (server, class) cell.
#[derive(Debug, Clone, Serialize)]
pub struct CallRow {
    pub server: String,
    pub class: &'static str,
    pub label: Label,
    pub drift_index: u64,
    pub drift: String,
    pub tool: String,
    pub call: u64,
    pub arguments: String,
    pub control: String,
    pub straight: PathResult,
    /// One per guard mode, in the spec's order.
    pub guarded: Vec<PathResult>,
}

/// A (server, class) the study could not run, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    pub server: String,
    pub class: &'static str,
    pub reason: String,
}
