//! One change between two contracts, judged by direction: what a caller of the older contract
//! meets in the newer one.

use driftlab_check::check::{FailOn, Finding, Rule, Severity};
use driftlab_check::verdict::{evaluate, ResolvedPolicy};
use driftlab_contract::payload::input::surface_of_bytes;
use driftlab_contract::payload::Limits;

use super::record::{Judged, WatchFinding};

/// Rules whose findings are about words only: a change they alone report moves no caller.
const TEXT_RULES: [&str; 7] = [
    "tool-description-changed",
    "title-changed",
    "parameter-description-changed",
    "schema-annotation-changed",
    "prompt-text-changed",
    "resource-text-changed",
    "instructions-changed",
];

/// The kinds of change, worst first, as reports order them.
pub const KINDS: [&str; 6] = [
    "breaking",
    "unknown",
    "compatible",
    "text",
    "unjudged",
    "bytes",
];

/// Judges the change from `old` to `new` (the bytes of two stored contracts, which differ):
/// - `bytes`: the same JSON value, spelled differently (key order, whitespace, number
///   spelling); never drift;
/// - `breaking`: some finding is breaking; `unknown`: none is, and some could not be judged;
/// - `text`: every finding is about descriptions, titles or other words;
/// - `compatible`: the findings are compatible, warnings or notes, not all words;
/// - `unjudged`: the values differ where no rule looks.
///
/// A side driftlab cannot read as a contract is judged `unknown` with one finding saying why.
pub fn judge(old: &[u8], new: &[u8], rules: &[&'static dyn Rule]) -> Judged {
    let value = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).ok();
    if let (Some(a), Some(b)) = (value(old), value(new)) {
        if a == b {
            return Judged {
                kind: "bytes".into(),
                findings: Vec::new(),
            };
        }
    }
    let read = |bytes: &[u8], side: &str| {
        surface_of_bytes(bytes.to_vec(), side, Limits::default()).map_err(|e| e.to_string())
    };
    let (approved, candidate) = match (read(old, "older"), read(new, "newer")) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => {
            return Judged {
                kind: "unknown".into(),
                findings: vec![WatchFinding {
                    rule: "contract-unreadable".into(),
                    severity: "unknown".into(),
                    pointer: String::new(),
                    message: why,
                    witness: None,
                }],
            }
        }
    };
    let outcome = evaluate(
        rules,
        &approved,
        &candidate,
        None,
        &ResolvedPolicy::default(),
        FailOn::Any,
    );
    Judged {
        kind: kind_of(&outcome.findings).into(),
        findings: outcome.findings.iter().map(kept).collect(),
    }
}

fn kind_of(findings: &[Finding]) -> &'static str {
    match findings.iter().map(|f| f.severity).max() {
        None => "unjudged",
        Some(Severity::Breaking) => "breaking",
        Some(Severity::Unknown) => "unknown",
        Some(_) if findings.iter().all(|f| TEXT_RULES.contains(&f.rule)) => "text",
        Some(_) => "compatible",
    }
}

fn kept(finding: &Finding) -> WatchFinding {
    WatchFinding {
        rule: finding.rule.to_string(),
        severity: finding.severity.as_str().to_string(),
        pointer: finding.pointer.clone(),
        message: finding.message.clone(),
        witness: finding.witness.as_ref().map(|w| w.value.clone()),
    }
}
