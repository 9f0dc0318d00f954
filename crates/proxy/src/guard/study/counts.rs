//! What the guard study counts: each path's verdicts over a set of calls (a needless refusal and
//! a repaired retry apart), and one summary line per server and class.

use serde::Serialize;

use super::{PathResult, Verdict};

/// Verdict counts of one path over a set of calls.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct PathCounts {
    pub accepted_correct: usize,
    pub accepted_wrong: usize,
    pub rejected_with_error: usize,
    pub crash_timeout: usize,
    pub refused_by_guard: usize,
    /// Refusals of calls that ran correctly without the guard.
    pub needless_refusals: usize,
    /// Refusals the repairer could rewrite into a retry from the text alone, and retries that
    /// then ran correctly.
    pub retried: usize,
    pub repaired: usize,
}

impl PathCounts {
    pub(super) fn add(&mut self, verdict: Verdict, straight: Verdict, retry: Option<&PathResult>) {
        if let Some(retry) = retry {
            self.retried += 1;
            self.repaired += usize::from(retry.verdict == Verdict::AcceptedCorrect);
        }
        match verdict {
            Verdict::AcceptedCorrect => self.accepted_correct += 1,
            Verdict::AcceptedWrong => self.accepted_wrong += 1,
            Verdict::RejectedWithError => self.rejected_with_error += 1,
            Verdict::CrashTimeout => self.crash_timeout += 1,
            Verdict::RefusedByGuard => {
                self.refused_by_guard += 1;
                if straight == Verdict::AcceptedCorrect {
                    self.needless_refusals += 1;
                }
            }
        }
    }

    pub(super) fn counts(&self) -> Vec<usize> {
        vec![
            self.accepted_correct,
            self.accepted_wrong,
            self.rejected_with_error,
            self.crash_timeout,
            self.refused_by_guard - self.needless_refusals,
            self.needless_refusals,
        ]
    }
}

/// One line of the summary: a server (or `all`) and a class, its calls and each path's counts.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SummaryRow {
    pub server: String,
    pub class: String,
    pub label: String,
    /// Calls that succeeded against the undrifted server: the population of every count.
    pub calls: usize,
    /// `without-guard`, then `guard-<mode>` per mode.
    pub paths: Vec<(String, PathCounts)>,
}

pub(super) fn rate(part: usize, whole: usize) -> String {
    if whole == 0 {
        "".into()
    } else {
        format!("{:.4}", part as f64 / whole as f64)
    }
}
