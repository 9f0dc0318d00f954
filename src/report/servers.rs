//! `check --lock` reports: one gate per server of a lockfile, in every output format. A checked
//! server's part is its own gate report (so it reads as `check --approved` does); a server that
//! was not checked says why. SARIF gets one run per server, `automationDetails.id`
//! `driftlab/<server>/`, so code scanning keeps each server's alerts apart.

use serde_json::{json, Value};

use super::GateReport;
use crate::verdict::{FailOn, Verdict};

/// One server's part of the run.
pub enum ServerState<'a> {
    /// Gated against its lock entry.
    Checked(GateReport<'a>),
    /// Not started (it needs a person's input, OAuth, ...): reported, does not fail.
    Skipped(String),
    /// The config has it and the lock does not vouch for it: fails.
    Unlocked(String),
    /// The lock has it and the config no longer does: fails (the lock is stale).
    Removed,
}

pub struct ServerGate<'a> {
    pub name: String,
    pub state: ServerState<'a>,
}

impl ServerGate<'_> {
    pub fn fails(&self) -> bool {
        match &self.state {
            ServerState::Checked(report) => report.outcome.verdict == Verdict::Drift,
            ServerState::Skipped(_) => false,
            ServerState::Unlocked(_) | ServerState::Removed => true,
        }
    }

    /// `PASS`, `DRIFT`, `SKIPPED`, `UNLOCKED` or `REMOVED`.
    pub fn status(&self) -> &'static str {
        match &self.state {
            ServerState::Checked(r) if r.outcome.verdict == Verdict::Pass => "PASS",
            ServerState::Checked(_) => "DRIFT",
            ServerState::Skipped(_) => "SKIPPED",
            ServerState::Unlocked(_) => "UNLOCKED",
            ServerState::Removed => "REMOVED",
        }
    }

    /// Why a server that was not checked was not, in one line.
    fn why(&self) -> String {
        match &self.state {
            ServerState::Checked(_) => String::new(),
            ServerState::Skipped(why) => why.clone(),
            ServerState::Unlocked(why) => why.clone(),
            ServerState::Removed => {
                "locked, but the config no longer has it (`driftlab lock` re-records the config)"
                    .into()
            }
        }
    }
}

/// The whole run.
pub struct LockReport<'a> {
    pub lock: &'a str,
    pub fail_on: FailOn,
    pub servers: Vec<ServerGate<'a>>,
}

impl LockReport<'_> {
    pub fn verdict(&self) -> Verdict {
        match self.servers.iter().any(ServerGate::fails) {
            true => Verdict::Drift,
            false => Verdict::Pass,
        }
    }

    /// `4 servers: 3 pass, 1 drift (memory), 1 skipped`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for status in ["PASS", "DRIFT", "UNLOCKED", "REMOVED", "SKIPPED"] {
            let names: Vec<&str> = self
                .servers
                .iter()
                .filter(|s| s.status() == status)
                .map(|s| s.name.as_str())
                .collect();
            if !names.is_empty() {
                let label = status.to_ascii_lowercase();
                parts.push(match status {
                    "PASS" => format!("{} {label}", names.len()),
                    _ => format!("{} {label} ({})", names.len(), names.join(", ")),
                });
            }
        }
        format!("{} server(s): {}", self.servers.len(), parts.join(", "))
    }
}

pub fn text(report: &LockReport<'_>, colour: bool) -> String {
    let mut out = String::new();
    for server in &report.servers {
        match &server.state {
            ServerState::Checked(gate) => out.push_str(&super::text::render(gate, colour)),
            _ => out.push_str(&format!(
                "{:<8} server {}: {}\n",
                server.status(),
                super::escape::visible(&server.name),
                server.why()
            )),
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{}  {}: {} (fail-on {})\n",
        report.verdict().as_str().to_ascii_uppercase(),
        report.lock,
        report.summary(),
        report.fail_on.as_str()
    ));
    out
}

pub fn json(report: &LockReport<'_>) -> String {
    let servers: Vec<Value> = report
        .servers
        .iter()
        .map(|server| {
            let mut entry = json!({
                "name": &server.name,
                "status": server.status().to_ascii_lowercase(),
            });
            match &server.state {
                ServerState::Checked(gate) => {
                    entry["report"] =
                        serde_json::from_str(&super::json::render(gate)).unwrap_or(Value::Null)
                }
                _ => entry["reason"] = server.why().into(),
            }
            entry
        })
        .collect();
    let value = json!({
        "verdict": report.verdict().as_str(),
        "fail_on": report.fail_on.as_str(),
        "lock": report.lock,
        "summary": report.summary(),
        "servers": servers,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

pub fn markdown(report: &LockReport<'_>) -> String {
    let verdict = match report.verdict() {
        Verdict::Pass => "✅ PASS",
        Verdict::Drift => "❌ DRIFT",
    };
    let mut out = format!(
        "### driftlab check --lock: {verdict}\n\n`{}`: {} (fail-on {})\n\n| server | status | findings |\n|---|---|---|\n",
        report.lock.replace('`', "'"),
        report.summary(),
        report.fail_on.as_str()
    );
    for server in &report.servers {
        let findings = match &server.state {
            ServerState::Checked(gate) => gate.count_line(),
            _ => server.why(),
        };
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            cell(&server.name),
            server.status(),
            cell(&findings)
        ));
    }
    for server in &report.servers {
        if let ServerState::Checked(gate) = &server.state {
            if gate.outcome.findings.is_empty() {
                continue;
            }
            let single = super::markdown::render(gate);
            // The server's own section, a level below the run's.
            let body = single.split_once('\n').map_or("", |(_, rest)| rest);
            out.push_str(&format!("\n#### {}{body}", cell(&server.name)));
        }
    }
    out
}

fn cell(text: &str) -> String {
    super::escape::visible(text).replace('|', "\\|")
}

pub fn sarif(report: &LockReport<'_>) -> String {
    let runs: Vec<Value> = report
        .servers
        .iter()
        .map(|server| match &server.state {
            ServerState::Checked(gate) => {
                let log: Value =
                    serde_json::from_str(&super::sarif::render(gate)).unwrap_or(Value::Null);
                log["runs"][0].clone()
            }
            _ => {
                let level = if server.fails() { "error" } else { "note" };
                json!({
                    "tool": super::sarif::tool(Vec::new()),
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
    super::sarif::log(runs)
}

pub fn github(report: &LockReport<'_>) -> String {
    let mut out = String::new();
    for server in &report.servers {
        match &server.state {
            ServerState::Checked(gate) => out.push_str(&super::github::render(gate)),
            _ => {
                let level = if server.fails() { "error" } else { "notice" };
                out.push_str(&format!(
                    "::{level} title={}::{}\n",
                    super::github::property(&format!("driftlab: server {}", server.name)),
                    super::github::data(&server.why())
                ));
            }
        }
    }
    out
}

pub fn junit(report: &LockReport<'_>) -> String {
    use super::junit::xml;
    let mut suites = String::new();
    let (mut tests, mut failures) = (0, 0);
    for server in &report.servers {
        let suite_name = format!("driftlab check --lock: {}", server.name);
        match &server.state {
            ServerState::Checked(gate) => {
                let single = super::junit::render(gate);
                // The single report's one <testsuite>, renamed for the server.
                let start = single.find("  <testsuite ").unwrap_or(0);
                let end = single.find("</testsuites>").unwrap_or(single.len());
                let suite = single[start..end].replacen(
                    "name=\"driftlab check\"",
                    &format!("name=\"{}\"", xml(&suite_name)),
                    1,
                );
                tests += gate.outcome.findings.len().max(1);
                failures += gate
                    .outcome
                    .findings
                    .iter()
                    .filter(|f| gate.outcome.fails_gate(f))
                    .count();
                suites.push_str(&suite);
            }
            _ => {
                tests += 1;
                let verdict = if server.fails() {
                    failures += 1;
                    format!(
                        "<failure type=\"{}\" message=\"{}\"/>",
                        server.status().to_ascii_lowercase(),
                        xml(&server.why())
                    )
                } else {
                    format!("<skipped message=\"{}\"/>", xml(&server.why()))
                };
                suites.push_str(&format!(
                    "  <testsuite name=\"{}\" tests=\"1\" failures=\"{}\">\n    <testcase classname=\"driftlab\" name=\"server {}\">{verdict}</testcase>\n  </testsuite>\n",
                    xml(&suite_name),
                    u8::from(server.fails()),
                    xml(&server.name)
                ));
            }
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"driftlab\" tests=\"{tests}\" failures=\"{failures}\">\n{suites}</testsuites>\n"
    )
}
