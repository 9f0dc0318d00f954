//! `--fail-on`: which findings make a gate fail. A threshold over the severities of `check`,
//! shared by the CI gate (`verdict`) and the study's gates.

use super::Severity;

/// Which findings make the gate fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum FailOn {
    /// breaking and unknown findings (a change that cannot be judged is not assumed safe)
    Breaking,
    /// breaking, unknown and warning findings
    Warning,
    /// any finding at all
    Any,
}

impl FailOn {
    /// How `--fail-on` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Breaking => "breaking",
            FailOn::Warning => "warning",
            FailOn::Any => "any",
        }
    }

    /// Whether a finding of `severity` fails a gate at this threshold.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Breaking => matches!(severity, Severity::Breaking | Severity::Unknown),
            FailOn::Warning => matches!(
                severity,
                Severity::Breaking | Severity::Unknown | Severity::Warning
            ),
            FailOn::Any => true,
        }
    }
}
