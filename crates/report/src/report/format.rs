//! The output formats of `check` and `diff` (`--format`), and their dispatch: one gate's report
//! or one report per server of a lockfile, each as text.

use super::servers::LockReport;
use super::{github, json, junit, markdown, sarif, text, GateReport, Render};

/// A report format. Each is one type implementing [`Render`], for a gate's report and a
/// lockfile's alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// readable in a terminal; coloured on a TTY unless NO_COLOR is set
    Text,
    /// the documented JSON contract
    Json,
    /// a table for pull-request comments and job summaries
    Markdown,
    /// SARIF 2.1.0 for code scanning
    Sarif,
    /// GitHub Actions workflow annotations
    Github,
    /// JUnit XML for GitLab, Jenkins and other CI test reports (a test case per finding)
    Junit,
}

impl Format {
    /// Whether findings must be placed on lines of a repository file (SARIF, annotations).
    pub fn places_findings(self) -> bool {
        matches!(self, Format::Sarif | Format::Github)
    }

    /// The type that renders this format.
    pub fn renderer(self) -> &'static dyn Render {
        match self {
            Format::Text => &text::Text,
            Format::Json => &json::Json,
            Format::Markdown => &markdown::Markdown,
            Format::Sarif => &sarif::Sarif,
            Format::Github => &github::Github,
            Format::Junit => &junit::Junit,
        }
    }

    /// One gate's report; `colour` only matters for text.
    pub fn gate(self, report: &GateReport<'_>, colour: bool) -> String {
        self.renderer().gate(report, colour)
    }

    /// The report of every server of a lockfile.
    pub fn servers(self, report: &LockReport<'_>, colour: bool) -> String {
        self.renderer().servers(report, colour)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::report::servers::{ServerGate, ServerState};
    use driftlab_check::check::rules::of_kind;
    use driftlab_check::check::RuleKind;
    use driftlab_check::verdict::{evaluate, FailOn, ResolvedPolicy};

    /// In a lockfile's report each checked server reads as its own gate report, in every
    /// format, without rendering one and taking it apart again.
    #[test]
    fn a_lockfile_report_holds_each_servers_gate_report() {
        let read = |value: Value| {
            driftlab_contract::payload::read(
                &serde_json::to_vec(&value).unwrap(),
                "p",
                Default::default(),
            )
            .unwrap()
        };
        let schema = |kind: &str| json!({"type": "object", "properties": {"q": {"type": kind}}});
        let approved = read(json!({"tools": [{"name": "t", "description": "d",
            "inputSchema": schema("number")}]}));
        let candidate = read(json!({"tools": [{"name": "t", "description": "d",
            "inputSchema": schema("integer")}]}));
        let rules = of_kind(RuleKind::Diff);
        let outcome = evaluate(
            &rules,
            &approved,
            &candidate,
            Some(&approved),
            &ResolvedPolicy::default(),
            FailOn::Breaking,
        );
        let gate = || GateReport {
            command: "check",
            approved: Some("mcp.lock"),
            candidate: "memory",
            outcome: &outcome,
            anchor: None,
            category: Some("memory"),
        };
        let lock = LockReport {
            lock: "mcp.lock",
            fail_on: FailOn::Breaking,
            servers: vec![
                ServerGate {
                    name: "memory".into(),
                    state: ServerState::Checked(gate()),
                },
                ServerGate {
                    name: "gone".into(),
                    state: ServerState::Removed,
                },
            ],
        };
        let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap();
        let whole = parse(&Format::Json.servers(&lock, false));
        assert_eq!(
            whole["servers"][0]["report"],
            parse(&Format::Json.gate(&gate(), false))
        );
        assert_eq!(whole["servers"][1]["status"], "removed");
        let sarif = parse(&Format::Sarif.servers(&lock, false));
        let single = parse(&Format::Sarif.gate(&gate(), false));
        assert_eq!(sarif["runs"][0], single["runs"][0]);
        assert_eq!(sarif["runs"][1]["results"], json!([]));
        let junit = Format::Junit.servers(&lock, false);
        let suite = Format::Junit.gate(&gate(), false);
        let suite =
            &suite[suite.find("  <testsuite ").unwrap()..suite.find("</testsuites>").unwrap()];
        let renamed = suite.replacen("driftlab check", "driftlab check --lock: memory", 1);
        assert!(junit.contains(&renamed), "{junit}");
        for format in <Format as clap::ValueEnum>::value_variants() {
            let text = format.servers(&lock, false);
            assert!(
                text.contains("gone") || text.contains("removed"),
                "{format:?}: {text}"
            );
        }
    }
}
