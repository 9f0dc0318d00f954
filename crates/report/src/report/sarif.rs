//! SARIF 2.1.0, for code scanning (GitHub's upload rules: results located in files of the
//! repository, at most 25,000 results of which 5,000 are shown, under 10 MB gzipped).

use serde_json::{json, Value};

use super::region::Place;
use super::servers::{LockReport, ServerState};
use super::{GateReport, Render};
use driftlab_check::check::{rules, Finding, Rule, Severity};

/// Results written at most: the number GitHub shows of one upload (the rest are truncated, with
/// a note in the run's invocation).
pub(crate) const MAX_RESULTS: usize = 5_000;
/// Bytes of results written at most, so the file stays under GitHub's 10 MB (gzipped) limit
/// even before compression.
pub(crate) const MAX_RESULT_BYTES: usize = 8 * 1024 * 1024;
/// A message's longest text in characters (a server's names and descriptions can be long).
const MAX_MESSAGE_CHARS: usize = 2_000;

/// Where each rule is explained: a stable anchor per rule id.
pub(crate) fn help_uri(rule: &str) -> String {
    format!(
        "{}/blob/main/docs/rules.md#{rule}",
        env!("CARGO_PKG_REPOSITORY")
    )
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Breaking | Severity::Unknown => "error",
        Severity::Warning => "warning",
        Severity::Compatible | Severity::Info => "note",
    }
}

fn rule_entry(rule: &dyn Rule) -> Value {
    json!({
        "id": rule.id(),
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": format!("{}. Judged by: {}.", rule.summary(), rule.source())},
        "helpUri": help_uri(rule.id()),
        "defaultConfiguration": {"level": level(rule.severity())},
        "properties": {
            "tags": ["mcp", "contract-drift", rule.kind().as_str(), rule.severity().as_str()],
            "severity": rule.severity().as_str(),
            "kind": rule.kind().as_str(),
        },
    })
}

fn shortened(text: &str) -> String {
    let visible = super::escape::visible(text);
    match visible.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &visible[..cut]),
        None => visible.into_owned(),
    }
}

fn result(report: &GateReport<'_>, f: &Finding, place: Option<&Place>) -> Value {
    let mut location = json!({
        "logicalLocations": [{"fullyQualifiedName": f.pointer, "kind": "member"}],
    });
    if let (Some(anchor), Some(place)) = (report.anchor, place) {
        location["physicalLocation"] = json!({
            "artifactLocation": {"uri": anchor.uri, "uriBaseId": "%SRCROOT%"},
            "region": {
                "startLine": place.start.0,
                "startColumn": place.start.1,
                "endLine": place.end.0,
                "endColumn": place.end.1,
            },
        });
    }
    let mut result = json!({
        "ruleId": f.rule,
        "level": level(f.severity),
        "message": {"text": shortened(&f.message)},
        "locations": [location],
        "partialFingerprints": {"driftlab/v1": f.fingerprint()},
        "properties": {
            "severity": f.severity.as_str(),
            "tool": f.tool.as_ref().map(|t| t.name.clone()),
            "subject": f.subject,
            "candidate": report.candidate,
            "old": f.old,
            "new": f.new,
            "oldPointer": f.old_pointer,
            "anchorPointer": place.map(|p| p.pointer.clone()),
        },
    });
    // SARIF's baselineState: only when there was a baseline (`check --approved`).
    if let Some(state) = f.baseline {
        result["baselineState"] = state.as_str().into();
    }
    result
}

/// The gate's report as a SARIF 2.1.0 log.
pub fn render(report: &GateReport<'_>) -> String {
    log(vec![run(report)])
}

/// The one run of a gate's report.
fn run(report: &GateReport<'_>) -> Value {
    let outcome = report.outcome;
    let places = report.anchor.map(|a| a.places.as_slice());
    // Findings are most severe first, so what is cut is the least severe.
    let mut results = Vec::new();
    let mut bytes = 0;
    for (i, f) in outcome.findings.iter().enumerate().take(MAX_RESULTS) {
        let value = result(report, f, places.and_then(|p| p.get(i)));
        bytes += value.to_string().len();
        if bytes > MAX_RESULT_BYTES {
            break;
        }
        results.push(value);
    }
    let mut used: Vec<&str> = outcome.findings[..results.len()]
        .iter()
        .map(|f| f.rule)
        .collect();
    used.sort_unstable();
    used.dedup();
    let rule_entries: Vec<Value> = used
        .iter()
        .filter_map(|id| rules::by_id(id))
        .map(rule_entry)
        .collect();
    let mut invocation = json!({"executionSuccessful": true});
    let left_out = outcome.findings.len() - results.len();
    if left_out > 0 {
        invocation["toolExecutionNotifications"] = json!([{
            "level": "warning",
            "message": {"text": format!(
                "{left_out} of {} findings are left out (the least severe): code scanning shows at \
                 most {MAX_RESULTS} results of one upload; `driftlab {} --format text` lists all",
                outcome.findings.len(),
                report.command
            )},
        }]);
    }
    let mut run = json!({
        "tool": tool(rule_entries),
        "columnKind": "utf16CodeUnits",
        "invocations": [invocation],
        "results": results,
        "properties": {
            "verdict": outcome.verdict.as_str(),
            "failOn": outcome.fail_on.as_str(),
            "findings": outcome.findings.len(),
        },
    });
    if let Some(category) = report.category {
        run["automationDetails"] = json!({"id": format!("driftlab/{category}/")});
    }
    run
}

/// SARIF for a lockfile: a run per server (`automationDetails.id` `driftlab/<server>/`, which
/// each checked server's report carries as its category), so code scanning keeps each server's
/// alerts apart; a server that was not checked is a run without results that says why.
pub struct Sarif;

impl Render for Sarif {
    fn gate(&self, report: &GateReport<'_>, _colour: bool) -> String {
        render(report)
    }

    fn servers(&self, report: &LockReport<'_>, _colour: bool) -> String {
        let runs: Vec<Value> = report
            .servers
            .iter()
            .map(|server| match &server.state {
                ServerState::Checked(gate) => run(gate),
                _ => {
                    let level = if server.fails() { "error" } else { "note" };
                    json!({
                        "tool": tool(Vec::new()),
                        "automationDetails": {"id": format!("driftlab/{}/", server.name)},
                        "invocations": [{
                            "executionSuccessful": true,
                            "toolExecutionNotifications": [{
                                "level": level,
                                "message": {"text": format!("server {}: {}", server.name, server.why())},
                            }],
                        }],
                        "results": [],
                        "properties": {"status": server.status().to_ascii_lowercase()},
                    })
                }
            })
            .collect();
        log(runs)
    }
}

/// The `tool` of a run: driftlab, with the rules its results use.
fn tool(rule_entries: Vec<Value>) -> Value {
    json!({"driver": {
        "name": "driftlab",
        "version": env!("CARGO_PKG_VERSION"),
        "informationUri": env!("CARGO_PKG_REPOSITORY"),
        "rules": rule_entries,
    }})
}

/// A SARIF 2.1.0 log of `runs`, pretty, with a final newline.
fn log(runs: Vec<Value>) -> String {
    let value = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": runs,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
