//! SARIF 2.1.0, for code-scanning dashboards.

use serde_json::{json, Value};

use super::GateReport;
use crate::check::{rules, Severity};

pub fn render(report: &GateReport<'_>) -> String {
    let outcome = report.outcome;
    let mut used: Vec<&str> = outcome.findings.iter().map(|f| f.rule).collect();
    used.sort_unstable();
    used.dedup();
    let rule_entries: Vec<Value> = used
        .iter()
        .filter_map(|id| rules::by_id(id))
        .map(|r| {
            json!({
                "id": r.id(),
                "shortDescription": {"text": r.summary()},
                "properties": {"severity": r.severity().as_str(), "kind": r.kind().as_str()},
            })
        })
        .collect();
    let results: Vec<Value> = outcome
        .findings
        .iter()
        .map(|f| {
            let level = match f.severity {
                Severity::Breaking | Severity::Unknown => "error",
                Severity::Warning => "warning",
                Severity::Compatible | Severity::Info => "note",
            };
            let mut result = json!({
                "ruleId": f.rule,
                "level": level,
                "message": {"text": super::escape::visible(&f.message)},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": report.candidate}},
                    "logicalLocations": [{"fullyQualifiedName": f.pointer, "kind": "member"}],
                }],
                "partialFingerprints": {"driftlab/v1": f.fingerprint()},
                "properties": {
                    "severity": f.severity.as_str(),
                    "tool": f.tool.as_ref().map(|t| t.name.clone()),
                    "old": f.old,
                    "new": f.new,
                    "oldPointer": f.old_pointer,
                },
            });
            // SARIF's baselineState: only when there was a baseline (`check --approved`).
            if let Some(state) = f.baseline {
                result["baselineState"] = state.as_str().into();
            }
            result
        })
        .collect();
    let value = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "driftlab",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rule_entries,
            }},
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
