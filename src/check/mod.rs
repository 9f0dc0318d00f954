//! Checker rules: the `Rule` trait, findings, severities, gates.
//!
//! A rule compares an approved surface with a candidate and reports findings. It never knows
//! whether it runs inside a study or in the CI gate.

pub mod rules;

use serde::Serialize;

use crate::surface::{Surface, Tool};

/// How much a finding matters to a caller of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Info,
    Compatible,
    Unknown,
    Warning,
    Breaking,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Compatible => "compatible",
            Severity::Unknown => "unknown",
            Severity::Warning => "warning",
            Severity::Breaking => "breaking",
        }
    }
}

/// The tool a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolRef {
    pub index: usize,
    /// The name, or `#<index>` when the tool has no string name.
    pub name: String,
}

impl ToolRef {
    pub fn of(tool: &Tool<'_>) -> ToolRef {
        ToolRef {
            index: tool.index,
            name: tool.label(),
        }
    }
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub tool: Option<ToolRef>,
    /// JSON pointer into the candidate payload.
    pub pointer: String,
    /// One line, no trailing period.
    pub message: String,
}

/// A checker rule. Implementations are unit structs listed in [`rules::REGISTRY`].
pub trait Rule: Sync {
    /// Stable kebab-case id, used in specs, CSV files and CI output.
    fn id(&self) -> &'static str;
    fn severity(&self) -> Severity;
    /// One line for `driftlab rules` and the README.
    fn summary(&self) -> &'static str;
    /// Where in the MCP specification (or elsewhere) the rule comes from.
    fn source(&self) -> &'static str;
    fn check(&self, approved: &Surface, candidate: &Surface, out: &mut Vec<Finding>);
}

/// A named set of rules; it detects a candidate when any of its rules reports a finding.
#[derive(Clone)]
pub struct Gate {
    pub id: String,
    pub rules: Vec<&'static dyn Rule>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<_> = self.rules.iter().map(|r| r.id()).collect();
        f.debug_struct("Gate")
            .field("id", &self.id)
            .field("rules", &ids)
            .finish()
    }
}

/// Runs every rule once and returns all findings, in rule order then report order.
pub fn run_rules(rules: &[&dyn Rule], approved: &Surface, candidate: &Surface) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in rules {
        rule.check(approved, candidate, &mut out);
    }
    out
}
