//! What the guard study records per call: the verdict on each path and what decided it, and
//! the cells it could not run.

use serde::Serialize;
use serde_json::Value;

use super::session::Outcome;

use driftlab_mutate::mutate::Label;

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
    /// Every verdict, in the order the report and figure show them.
    pub const ALL: [Verdict; 5] = [
        Verdict::AcceptedCorrect,
        Verdict::AcceptedWrong,
        Verdict::RejectedWithError,
        Verdict::CrashTimeout,
        Verdict::RefusedByGuard,
    ];

    /// How `calls.csv` spells it.
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
    /// What became of the call.
    pub verdict: Verdict,
    /// The outcome, the dropped arguments, or the guard's rule.
    pub detail: String,
}

/// One call of one (server, class) cell.
#[derive(Debug, Clone, Serialize)]
pub struct CallRow {
    /// The server's name.
    pub server: String,
    /// The mutation class that drifted it.
    pub class: &'static str,
    /// The class's label.
    pub label: Label,
    /// The stream index the drift was drawn from.
    pub drift_index: u64,
    /// What the drift changed, in one line.
    pub drift: String,
    /// The tool called.
    pub tool: String,
    /// The call's number within its (server, class) cell, from 0.
    pub call: u64,
    /// The arguments sent, as compact JSON.
    pub arguments: String,
    /// The call's outcome on the undrifted server.
    pub control: String,
    /// The call sent straight to the drifted server.
    pub straight: PathResult,
    /// One per guard mode, in the spec's order.
    pub guarded: Vec<PathResult>,
    /// Per guard mode: the refused call retried as the repairer rewrote it from the refusal
    /// (`None`: not refused, or the refusal named nothing to change).
    pub retried: Vec<Option<PathResult>>,
}

/// A (server, class) the study could not run, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The server's name.
    pub server: String,
    /// The class.
    pub class: &'static str,
    /// Why, in one line.
    pub reason: String,
}

pub(super) fn is_drifted_server_entry(entry: &Value) -> bool {
    entry
        .get("action")
        .and_then(Value::as_str)
        .is_some_and(|a| a.starts_with("drifted-server-"))
}

/// The verdict of one path from the client's outcome, the drifted server's log entry for the
/// call and, behind the guard, its refusal.
pub(super) fn judge(
    outcome: &Outcome,
    wrap: Option<&Value>,
    refusal: Option<&Value>,
) -> PathResult {
    if let Some(refusal) = refusal {
        let rule = refusal.get("rule").and_then(Value::as_str).unwrap_or("?");
        return PathResult {
            verdict: Verdict::RefusedByGuard,
            detail: rule.to_string(),
        };
    }
    let dropped: Vec<&str> = wrap
        .and_then(|w| w.get("dropped"))
        .and_then(Value::as_array)
        .map(|d| d.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let (verdict, detail) = match outcome {
        Outcome::Success if !dropped.is_empty() => (
            Verdict::AcceptedWrong,
            format!("dropped {}", dropped.join(", ")),
        ),
        Outcome::Success => (Verdict::AcceptedCorrect, outcome.as_string()),
        Outcome::ToolError | Outcome::RpcError(_) => {
            (Verdict::RejectedWithError, outcome.as_string())
        }
        Outcome::Timeout | Outcome::Crash | Outcome::Broken => {
            (Verdict::CrashTimeout, outcome.as_string())
        }
    };
    PathResult { verdict, detail }
}
