//! The JSON contract of `check` and `diff` (documented in docs/gate.md):
//! `{"verdict", "fail_on", "approved", "candidate", "findings": [{"rule", "severity", "tool",
//! "pointer", "old_pointer", "old", "new", "message", "fingerprint", "baseline_state",
//! "witness" or "witness_bytes" where proven}],
//! "accepted": [… + "reason"], "expired_waivers" and "stale_waivers" when there are any
//! ([{"fingerprint", "reason", "until"}]),
//! "counts": {"breaking", "unknown", "warning", "compatible", "info"}}`.

use serde::Serialize;
use serde_json::{Map, Value};

use super::servers::{LockReport, ServerState};
use super::{GateReport, Render};
use driftlab_check::check::Finding;
use driftlab_check::verdict::Waiver;

/// One finding as JSON. Serialised straight to text: a report with 100k findings never becomes
/// a tree of `Value`s first.
#[derive(Serialize)]
pub(crate) struct FindingJson<'a> {
    rule: &'a str,
    severity: &'a str,
    tool: Option<&'a str>,
    /// What a finding outside the tools is about (`prompt "x"`, `instructions`, `capability y`).
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    pointer: &'a str,
    old_pointer: Option<&'a str>,
    old: Option<&'a str>,
    new: Option<&'a str>,
    message: &'a str,
    fingerprint: String,
    baseline_state: Option<&'a str>,
    /// The value proving a schema change breaks (see `witness`), when it is at most
    /// [`MAX_WITNESS_BYTES`] of JSON; `witness_bytes` gives the size of a larger one instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    witness: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    witness_bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// Witnesses larger than this are left out of the JSON report (only their size is given).
pub(crate) const MAX_WITNESS_BYTES: usize = 16 * 1024;

impl<'a> FindingJson<'a> {
    /// The JSON view of the finding `f`.
    pub fn of(f: &'a Finding) -> FindingJson<'a> {
        FindingJson {
            rule: f.rule,
            severity: f.severity.as_str(),
            tool: f.tool.as_ref().map(|t| t.name.as_str()),
            subject: f.subject.as_deref(),
            pointer: &f.pointer,
            old_pointer: f.old_pointer.as_deref(),
            old: f.old.as_deref(),
            new: f.new.as_deref(),
            message: &f.message,
            fingerprint: f.fingerprint(),
            baseline_state: f.baseline.map(|b| b.as_str()),
            witness: f
                .witness
                .as_deref()
                .filter(|w| w.json_len <= MAX_WITNESS_BYTES)
                .map(|w| &w.value),
            witness_bytes: f
                .witness
                .as_deref()
                .filter(|w| w.json_len > MAX_WITNESS_BYTES)
                .map(|w| w.json_len),
            reason: None,
        }
    }
}

#[derive(Serialize)]
struct ReportJson<'a> {
    verdict: &'a str,
    fail_on: &'a str,
    approved: Option<&'a str>,
    candidate: &'a str,
    findings: Vec<FindingJson<'a>>,
    accepted: Vec<FindingJson<'a>>,
    /// Waivers past their `until` day (their findings are back in `findings`).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    expired_waivers: &'a [Waiver],
    /// Waivers no finding matches any more.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    stale_waivers: &'a [Waiver],
    counts: Map<String, Value>,
}

/// The gate's report as the documented JSON contract (docs/gate.md), pretty-printed.
pub fn render(report: &GateReport<'_>) -> String {
    pretty(&report_json(report))
}

/// Pretty JSON with a final newline.
fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn report_json<'a>(report: &'a GateReport<'_>) -> ReportJson<'a> {
    let outcome = report.outcome;
    let mut counts = Map::new();
    for (severity, n) in outcome.counts() {
        counts.insert(severity.as_str().into(), n.into());
    }
    ReportJson {
        verdict: outcome.verdict.as_str(),
        fail_on: outcome.fail_on.as_str(),
        approved: report.approved,
        candidate: report.candidate,
        findings: outcome.findings.iter().map(FindingJson::of).collect(),
        accepted: outcome
            .accepted
            .iter()
            .map(|(f, reason)| FindingJson {
                reason: Some(reason.as_str()),
                ..FindingJson::of(f)
            })
            .collect(),
        expired_waivers: &outcome.expired,
        stale_waivers: &outcome.stale,
        counts,
    }
}

/// JSON for a lockfile: the run's verdict and summary, then each server with its status and
/// either its gate report (the same object `check --approved` writes) or the reason it was not
/// checked.
pub struct Json;

#[derive(Serialize)]
struct LockJson<'a> {
    verdict: &'a str,
    fail_on: &'a str,
    lock: &'a str,
    summary: String,
    servers: Vec<ServerJson<'a>>,
}

#[derive(Serialize)]
struct ServerJson<'a> {
    name: &'a str,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    report: Option<ReportJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl Render for Json {
    fn gate(&self, report: &GateReport<'_>, _colour: bool) -> String {
        render(report)
    }

    fn servers(&self, report: &LockReport<'_>, _colour: bool) -> String {
        let servers = report
            .servers
            .iter()
            .map(|server| {
                let (report, reason) = match &server.state {
                    ServerState::Checked(gate) => (Some(report_json(gate)), None),
                    _ => (None, Some(server.why())),
                };
                ServerJson {
                    name: &server.name,
                    status: server.status().to_ascii_lowercase(),
                    report,
                    reason,
                }
            })
            .collect();
        pretty(&LockJson {
            verdict: report.verdict().as_str(),
            fail_on: report.fail_on.as_str(),
            lock: report.lock,
            summary: report.summary(),
            servers,
        })
    }
}
