//! `--fail-on`: which findings make a gate fail. A threshold over the severities of `check`,
//! shared by the CI gate (`verdict`) and the study's gates.

use super::{Finding, Severity};

/// The rules of changes that lower a trusting client's guard: what `--fail-on trust` fails on
/// beside breaking and unknown findings (docs/rules.md, "The trust profile").
pub const TRUST_RULES: &[&str] = &[
    "annotation-lowered-guard",
    "hidden-characters-added",
    "instruction-cue-added",
    "unknown-key-added",
    "mcp-header-added",
    "remote-ref-added",
];

/// Which findings make the gate fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum FailOn {
    /// breaking and unknown findings (a change that cannot be judged is not assumed safe)
    Breaking,
    /// breaking, unknown and warning findings
    Warning,
    /// any finding at all
    Any,
    /// breaking and unknown findings, and every change that lowers a trusting client's guard
    /// (an annotation that stops a host asking, hidden characters, an instruction, URL or tool
    /// reference added to a description, a new unknown key, a parameter newly sent as an HTTP
    /// header, a schema newly fetched from elsewhere), never a reorder or a reflow
    Trust,
}

impl FailOn {
    /// How `--fail-on` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Breaking => "breaking",
            FailOn::Warning => "warning",
            FailOn::Any => "any",
            FailOn::Trust => "trust",
        }
    }

    /// Whether `finding` fails a gate at this threshold: by its severity, or under `trust` by
    /// its rule.
    pub fn fails_finding(self, finding: &Finding) -> bool {
        self.fails(finding.severity)
            || (self == FailOn::Trust && TRUST_RULES.contains(&finding.rule))
    }

    /// Whether a finding of `severity` fails a gate at this threshold, whatever its rule (under
    /// `trust`, as under `breaking`: see [`FailOn::fails_finding`]).
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Breaking | FailOn::Trust => {
                matches!(severity, Severity::Breaking | Severity::Unknown)
            }
            FailOn::Warning => matches!(
                severity,
                Severity::Breaking | Severity::Unknown | Severity::Warning
            ),
            FailOn::Any => true,
        }
    }
}
