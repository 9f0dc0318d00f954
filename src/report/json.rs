//! The JSON contract of `check` and `diff` (documented in the README):
//! `{"verdict", "fail_on", "approved", "candidate", "findings": [{"rule", "severity", "tool",
//! "pointer", "old_pointer", "old", "new", "message", "fingerprint", "baseline_state"}],
//! "accepted": [… + "reason"],
//! "counts": {"breaking", "unknown", "warning", "compatible", "info"}}`.

use serde_json::{json, Map, Value};

use super::GateReport;
use crate::check::Finding;

pub fn finding(f: &Finding) -> Value {
    json!({
        "rule": f.rule,
        "severity": f.severity.as_str(),
        "tool": f.tool.as_ref().map(|t| t.name.clone()),
        "pointer": f.pointer,
        "old_pointer": f.old_pointer,
        "old": f.old,
        "new": f.new,
        "message": f.message,
        "fingerprint": f.fingerprint(),
        "baseline_state": f.baseline.map(|b| b.as_str()),
    })
}

pub fn render(report: &GateReport<'_>) -> String {
    let outcome = report.outcome;
    let mut counts = Map::new();
    for (severity, n) in outcome.counts() {
        counts.insert(severity.as_str().into(), n.into());
    }
    let accepted: Vec<Value> = outcome
        .accepted
        .iter()
        .map(|(f, reason)| {
            let mut v = finding(f);
            v["reason"] = reason.clone().into();
            v
        })
        .collect();
    let value = json!({
        "verdict": outcome.verdict.as_str(),
        "fail_on": outcome.fail_on.as_str(),
        "approved": report.approved,
        "candidate": report.candidate,
        "findings": outcome.findings.iter().map(finding).collect::<Vec<_>>(),
        "accepted": accepted,
        "counts": counts,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
